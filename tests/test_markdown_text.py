"""Token labels are shown literally where Streamlit renders Markdown (st.markdown, st.table)."""

from __future__ import annotations

from tests.cases import subcases
from viz.markdown_text import escape_markdown

WORD_JOINER = "\u2060"


@subcases(
    ("text", "escaped"),
    [
        ("Your", "Your"),
        ("**bold**", r"\*\*bold\*\*"),
        ("[x](y)", r"\[x\]\(y\)"),
        ("$x^2$", r"\$x\^2\$"),
        (":red[r]", r"\:red\[r\]"),
        ("a_b", r"a\_b"),
        ("<b>", r"\<b\>"),
        ("\\", "\\\\"),
        ("词元", "词元"),
    ],
)
def test_markdown_specials_are_backslash_escaped(text: str, escaped: str) -> None:
    assert escape_markdown(text) == escaped


def test_bare_links_are_broken_invisibly() -> None:
    assert escape_markdown("http://a.b") == f"http{WORD_JOINER}\\:\\/\\/a\\.b"
    assert escape_markdown("WWW.a.b").startswith(f"WWW{WORD_JOINER}\\.")
    assert escape_markdown("me@a.b") == f"me{WORD_JOINER}\\@a\\.b"


def test_escaping_keeps_distinct_labels_distinct() -> None:
    labels = ["a*", "a\\*", "a", "*a"]
    assert len({escape_markdown(label) for label in labels}) == len(labels)
