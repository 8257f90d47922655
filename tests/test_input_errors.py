"""The core's input errors in the user's language (``ui/input_errors.py``).

Every ``AttentionInputError`` the core raises with a ``code`` must have a Chinese message with
exactly the placeholders of its ``params`` (read from the source, so a new check cannot be
forgotten), and the messages must say the same numbers in both languages.
"""

from __future__ import annotations

import ast
import string
from pathlib import Path

import pytest

from attention import AttentionConfig, trace_attention
from attention.tasks import check_text
from attention.training import TrainConfig
from attention.validate import AttentionInputError
from ui.input_errors import ZH, explain

ATTENTION = Path(__file__).resolve().parent.parent / "attention"


def _raised_codes() -> dict[str, set[str]]:
    """``{code: names of its params}`` for every ``AttentionInputError(…, code=…)`` in attention/."""
    codes: dict[str, set[str]] = {}
    for path in sorted(ATTENTION.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (
                isinstance(node, ast.Call) and getattr(node.func, "id", "") == "AttentionInputError"
            ):
                continue
            keywords = {keyword.arg: keyword.value for keyword in node.keywords}
            if "code" not in keywords:
                continue
            code = keywords["code"]
            assert isinstance(code, ast.Constant) and isinstance(code.value, str), (
                path,
                node.lineno,
            )
            params = keywords.get("params")
            names: set[str] = set()
            if params is not None:
                assert isinstance(params, ast.Dict), (path, node.lineno)
                names = {key.value for key in params.keys if isinstance(key, ast.Constant)}
            assert codes.setdefault(code.value, names) == names, f"{code.value}: two sets of params"
    return codes


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_coded_error_of_the_core_has_a_chinese_message_with_its_placeholders() -> None:
    codes = _raised_codes()
    assert len(codes) >= 20  # the scan finds the checks (it would find none if it were broken)
    for code, names in codes.items():
        assert code in ZH, f"no Chinese message for {code}"
        assert _placeholders(ZH[code]) == names, code
    assert set(ZH) == set(codes), "Chinese messages for codes the core no longer raises"


def _error(call) -> AttentionInputError:  # noqa: ANN001 - a lambda that raises
    with pytest.raises(AttentionInputError) as caught:
        call()
    return caught.value


CASES = {
    "text_not_utf8": (lambda: check_text(b"abc\xff" * 200, 32), ["4"]),
    "text_too_short": (lambda: check_text("short text", 32), ["10", "32"]),
    "text_has_nul": (lambda: check_text("ab\x00c" * 300, 32), ["3"]),
    "width_heads_split": (
        lambda: TrainConfig(task="text", width=10, heads=3).resolved(),
        ["10", "3"],
    ),
    "d_out_heads_split": (
        lambda: trace_attention([[1.0, 2.0, 3.0]] * 4, AttentionConfig(d_out=5, num_heads=2)),
        ["5", "2"],
    ),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_an_error_reads_in_chinese_and_in_english_with_the_same_numbers(code: str) -> None:
    call, numbers = CASES[code]
    error = _error(call)
    assert error.code == code
    english, chinese = explain(error, "en"), explain(error, "zh")
    assert english == error.message == str(error)
    assert chinese != english
    assert any("\u4e00" <= ch <= "\u9fff" for ch in chinese), chinese
    for number in numbers:
        assert number in english and number in chinese, (number, english, chinese)


def test_an_error_without_a_code_stays_in_english() -> None:
    error = AttentionInputError("Something only code can get wrong.", field="x")
    assert error.code is None and error.params == {}
    assert explain(error, "zh") == "Something only code can get wrong."
