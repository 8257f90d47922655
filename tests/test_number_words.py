"""Numbers in sentences as a reader writes them: an exponent raised (0.5² = 0.25, never 0.5^2), a
difference of exactly zero as 0 (never 0.0e+00), in every message that names them so."""

from __future__ import annotations

import re

from ui.i18n import CATALOGUE, LANGUAGES, t
from viz.vocabulary import format_difference, format_exponent, format_subscript


def test_exponents_are_raised_and_exact_zero_differences_are_zero() -> None:
    assert [format_exponent(n) for n in (2, 3, 10, -1)] == ["²", "³", "¹⁰", "⁻¹"]
    assert [format_subscript(n) for n in (1, 12, 90)] == ["₁", "₁₂", "₉₀"]
    assert format_difference(0.0) == "0"
    assert format_difference(-0.0) == "0"
    assert format_difference(4.7e-05) == "4.7e-05"
    assert format_difference(0.28) == "2.8e-01"
    for lang in LANGUAGES:
        vanished = t(
            "chapter.s352.vanished",
            lang,
            token="journey",
            number=2,
            visible=2,
            p="0.5",
            chance="0.25",
        )
        assert "0.5² = 0.25" in vanished and "^" not in vanished
        book = t("chapter.s352.book", lang, ones=0.0, weights=4.7e-05)
        assert "0 " in book or "0（" in book
        assert "e+00" not in book and "4.7e-05" in book


def test_no_message_writes_a_power_with_a_caret_or_a_difference_in_raw_notation() -> None:
    """A template may write ``e^(−∞)`` (a formula in words), not ``{p}^{n}`` or ``{x:.1e}``."""
    raw = re.compile(r"\}\^\{|\w\^\{|\{\w+:\.\d+e\}")
    found = [
        f"{key} [{lang}]"
        for key, texts in CATALOGUE.items()
        for lang in LANGUAGES
        if raw.search(texts[lang])
    ]
    assert found == []
