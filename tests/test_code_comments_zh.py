"""Code shown in the Chinese UI: the same code, its comments in Chinese (ui.book_code)."""

from __future__ import annotations

import ast
import re

from attention import AttentionConfig, trace_attention
from attention.book_code import marked_source
from attention.bugs import BUGS
from attention.chapter import causal_diff
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.export import SNIPPET_STYLES, reproduce_snippet
from attention.modules import CausalAttention, MultiHeadAttention
from tests.apptest_support import run_page
from ui.book_code import code_in_language, comment_start

CJK = re.compile(r"[\u4e00-\u9fff]")


def _shown_code() -> dict[str, str]:
    """Every code block the app builds from the book's classes and the export script."""
    shown = {
        "CausalAttention": marked_source(CausalAttention, "softmax").text,
        "MultiHeadAttention": marked_source(MultiHeadAttention, "split").text,
        "chapter diff": causal_diff(),
        **{f"bug {name}": bug.diff for name, bug in BUGS.items()},
    }
    for heads, variant, training in ((1, "fused", True), (2, "fused", False), (2, "wrapper", True)):
        cfg = AttentionConfig(
            d_out=2 * heads, dropout=0.5, num_heads=heads, variant=variant, training=training
        )
        trace = trace_attention(BOOK_EMBEDDINGS, cfg)
        for style in SNIPPET_STYLES:
            shown[f"export {heads} {variant} {style}"] = reproduce_snippet(
                trace, list(BOOK_TOKENS), style=style
            )
    return shown


def _split(code: str) -> list[tuple[str, str | None]]:
    """Each line as (code before the comment, the comment's text or None)."""
    parts, quote = [], None
    for line in code.split("\n"):
        start, quote = comment_start(line, quote)
        parts.append((line, None) if start is None else (line[:start], line[start + 1 :].strip()))
    return parts


def _is_code(comment: str) -> bool:
    """A shape or a statement (``(b, h, T, T)``, ``(b, T, h, head_dim) -> (b, h, T, head_dim)``)."""
    try:
        for part in comment.split("->"):
            ast.parse(part.strip())
    except SyntaxError:
        return False
    return True


def test_comment_start_skips_strings_and_docstrings() -> None:
    assert comment_start('x = "a # b"  # c') == (13, None)
    assert comment_start("'''the book's # class") == (None, "'''")
    assert comment_start("still the book's # text'''  # now", "'''") == (28, None)
    assert comment_start("+ attn_scores.masked_fill_(  # new: in place") == (29, None)


def test_chinese_code_has_chinese_comments_and_the_same_code() -> None:
    problems, translated = [], 0
    for name, code in _shown_code().items():
        assert code_in_language(code, "en") == code
        english, chinese = _split(code), _split(code_in_language(code, "zh"))
        assert len(english) == len(chinese), name
        for (code_en, comment_en), (code_zh, comment_zh) in zip(english, chinese, strict=True):
            assert code_zh == code_en, (name, code_en)
            assert (comment_en is None) == (comment_zh is None), (name, code_en)
            translated += comment_zh is not None and comment_zh != comment_en
            if comment_zh is not None and not CJK.search(comment_zh) and not _is_code(comment_zh):
                problems.append(f"{name}: # {comment_zh}")
    assert translated >= 25  # the blocks hold comments to check
    assert not problems, "English comments left in the Chinese UI:\n" + "\n".join(problems)


def test_find_the_bug_and_export_show_chinese_comments_in_the_chinese_ui() -> None:
    for page, comment in (("find_the_bug", "# 新增："), ("export", "# 为了复现，设置随机种子")):
        at = run_page(page, {"lang": "zh"})
        assert not at.exception
        assert any(comment in block.value for block in at.code), page
