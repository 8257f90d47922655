"""Class mode inside one server (the in-process store), with AppTest sessions as teacher and
student; tests/e2e/test_class_mode.py does the same across two replicas and Redis."""

from __future__ import annotations

import json
import os

from tests.apptest_support import page_text, run_page
from ui.class_store import shared_store


def _room(room_id: str) -> dict:
    return json.loads(shared_store().read(room_id).state)


def test_a_student_follows_the_teacher_and_cannot_drive_the_room() -> None:
    assert not os.environ.get("REDIS_URL")  # this process's own rooms
    teacher = run_page("step", {"seed": "5", "lang": "zh"})
    teacher.button(key="class_start_sidebar").click().run()
    room = teacher.session_state["class_teacher"]
    link = next(code.value for code in teacher.code if "?class=" in code.value)
    assert link.endswith(f"/?class={room['id']}") and room["secret"] not in page_text(teacher)
    assert _room(room["id"]) == {"page": "step", "query": {"seed": "5"}}  # not the language

    student = run_page("step", {"class": room["id"]})
    assert student.session_state["seed"] == 5 and student.session_state["lang"] == "en"
    teacher.number_input(key="seed").set_value(9).run()
    teacher.slider(key="dropout").set_value(0.5).run()
    student.run()
    assert (student.session_state["seed"], student.session_state["dropout"]) == (9, 0.5)
    assert not student.exception

    student.number_input(key="seed").set_value(42).run()  # the student's own change ...
    assert _room(room["id"])["query"] == {"seed": "9", "dropout": "0.5"}  # ... stays theirs
    assert student.session_state["seed"] == 9  # and following shows the teacher's view again
    student.button(key="class_explore").click().run()
    student.number_input(key="seed").set_value(42).run()
    assert student.session_state["seed"] == 42 and _room(room["id"])["query"]["seed"] == "9"

    teacher.button(key="class_end_sidebar").click().run()
    assert shared_store().read(room["id"]) is None
    student.run()
    assert "class_teacher" not in teacher.session_state and not student.exception


def test_a_bad_class_link_is_named_and_the_page_works() -> None:
    at = run_page("step", {"class": "<b>x</b>"})
    assert not at.exception
    (warning,) = [w.value for w in at.warning if "class=" in w.value]
    assert "is not a class id" in warning and "<b>" not in warning  # shown as text, escaped
    assert "class_follow" not in at.session_state
