"""A small built-in corpus for the character-level text task, original to this project: small
enough that a tiny model learns it by heart in a minute, which makes dropout's effect visible.
"""

from __future__ import annotations

__all__ = ["CORPUS"]

CORPUS = """\
The lighthouse stood at the end of a long stone pier, and every evening the keeper climbed its
hundred and twelve steps to light the lamp. She counted the steps out loud, as her father had done
before her, because counting kept the mind from wandering into the dark.

In the village below there lived a clockmaker who could not sleep. He said that the clocks kept him
awake, ticking each in its own time, and that he had to listen to every one of them before he could
rest. Some nights he walked down to the pier and watched the light turn over the water.

One evening the keeper found him sitting on the lowest step. "You are late," he said. "The light
should have been lit an hour ago." She laughed and told him that the sun had not yet gone down, and
that a light in daylight only shows the gulls where the keeper is.

They began to talk on the steps most evenings. He told her about the clocks: the tall clock in the
hall that lost a minute every week, the small brass clock that ran too fast when it was cold, the
clock with the painted moon that nobody had wound for years. She told him about the ships: the
fishing boats that came home at dusk, the grey steamer that passed on Tuesdays, the sailing boat
with the red sail that had not been seen since the spring.

"A clock is a kind of lighthouse," he said one night. "It tells you where you are, but in time
instead of in space." She thought about this while she climbed the steps, and when she reached the
top she decided that he was right, and that a lighthouse was a kind of clock as well, because the
light turned once every ten seconds and the sailors counted the flashes to know which coast they saw.

In the winter the storms came. The waves broke over the pier and the spray reached the windows of
the lamp room. The keeper stayed up all night to keep the glass clean and the flame steady. The
clockmaker could not come down the pier in such weather, so he stood at the end of the village
street with a lantern, and when she looked down she could see his small light answering hers.

After the worst storm a fishing boat did not come home. The whole village waited on the shore. The
keeper kept the lamp burning through the next day, although the rules said that it should rest in
daylight. The clockmaker wound every clock in his shop and set them all to the same hour, so that
they would strike together, and the sound carried out over the water like a bell.

In the evening the boat came in slowly, with a broken mast and four tired men, who said that they
had seen the light all through the night and had heard, when the wind turned, a great many clocks
striking at once. They had not known what it was, but they had steered towards it.

The next spring the clockmaker built a new clock for the lighthouse. It had no hands and no face.
It had a small bell that rang once for every ship that passed, and a drawer in which the keeper could
write the names of the ships she saw. She kept it on the table beside the lamp, and on quiet nights
the two of them read the names aloud, as if they were counting steps.

Years later a child asked the keeper why she counted the steps. She said that counting is a way of
paying attention, and that paying attention is most of what a keeper does: to the weather, to the
flame, to the ships, to the small light at the end of the street. The child asked what happens when
you stop paying attention. The keeper said that then the light goes out, and somebody has to come
and tell you.

The clockmaker grew old and his hands began to shake, so he could no longer mend the smallest
clocks. He taught the child instead. The child learned that a clock is mostly waiting: a spring that
waits to unwind, a wheel that waits for the next tooth, a bell that waits for the hour. "And a
lighthouse," said the child, "is mostly looking." The old man agreed, and said that waiting and
looking are two halves of the same work.

When the keeper retired, the child took over the lamp. On the first evening the child climbed the
steps and counted them out loud, and found that there were a hundred and twelve, as there had always
been. At the top there was a note in the drawer of the clock with no face. It said: the light turns
once every ten seconds; the ships count the flashes; somebody down in the village is counting too.

Every town on that coast has a story like this one, and in every version the numbers are a little
different: a hundred steps, or a hundred and twenty, a light that turns every five seconds, a clock
with two bells. The story does not mind. What stays the same is the keeper on the stairs, the
clockmaker at the end of the street, and the two lights answering each other across the dark.
"""
