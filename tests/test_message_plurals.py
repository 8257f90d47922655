"""Every message, in both languages, written with counts 1 and 2: no "1 rows", no "(s)".

A count is written with its noun through ``{name:one|many}`` (``ui.i18n.t``), so a message
says "1 row" and "2 rows". This test renders each message of the catalogue with every
placeholder set to 1, then to 2 (the counts a page can pass), and reads what a reader would.
"""

from __future__ import annotations

import re
import string

from tests.cases import subcases
from ui.i18n import CATALOGUE, t

# English words ending in "s" that may follow a number and are not plural nouns ("row 1 sees",
# "d_k = 1 is", "1 vs 2"): verbs and small words, never a counted thing.
NOT_PLURAL_NOUNS = frozenset(
    "is was has does as vs its this thus plus sees comes means keeps divides".split()
)
ONE_THING_MANY = re.compile(r"(?<![\d.,−-])\b1 ([a-z]+s)\b")
# "head(s)" is a plural left to the reader; "exp(s)", "softmax(s)" are functions of s
BRACKETED_S = re.compile(r"\b(?!(?:exp|log|softmax|max|sum)\()[A-Za-z]+\(s\)")


def _rendered(key: str, lang: str, count: int) -> str:
    """Message ``key`` in ``lang`` with every placeholder set to ``count``."""
    fields = string.Formatter().parse(CATALOGUE[key].get(lang) or CATALOGUE[key]["en"])
    names = {field.split(".")[0].split("[")[0] for _, field, _, _ in fields if field}
    return t(key, lang, **dict.fromkeys(names, count))


@subcases("lang", ["en", "zh"])
def test_no_message_writes_one_with_a_plural_or_a_bracketed_s(lang: str) -> None:
    problems = []
    for key in CATALOGUE:
        for count in (1, 2):
            written = _rendered(key, lang, count)
            if BRACKETED_S.search(written):
                problems.append(f"{key} ({count}): “(s)”")
            if lang == "en" and count == 1:
                problems += [
                    f"{key}: “{match.group(0)}”"
                    for match in ONE_THING_MANY.finditer(written)
                    if match.group(1) not in NOT_PLURAL_NOUNS
                ]
    assert not problems, "\n".join(problems)


def test_a_counted_noun_follows_its_count() -> None:
    """The plural form of ``t``: singular for 1 (a number or its text), plural otherwise, and
    the number formatted by what comes before the first ``|``."""
    CATALOGUE["test.plural"] = {"en": "{n:row|rows}; {size:,|byte|bytes}", "zh": "{n} 行"}
    try:
        assert t("test.plural", "en", n=1, size=1) == "1 row; 1 byte"
        assert t("test.plural", "en", n=2, size=12345) == "2 rows; 12,345 bytes"
        assert t("test.plural", "en", n="1", size=0) == "1 row; 0 bytes"
        assert t("test.plural", "zh", n=1, size=1) == "1 行"
    finally:
        del CATALOGUE["test.plural"]
