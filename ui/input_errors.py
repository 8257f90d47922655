"""What the core's input errors say, in the user's language.

``attention/`` explains a bad value in English (:class:`~attention.validate.AttentionInputError`);
an error a user of the app can run into also carries a ``code`` and its values (``params``).
:func:`explain` writes the core's English, or the Chinese of :data:`ZH` filled with the same
values; an error without a listed code is shown as the core wrote it, never an empty box.
``tests/test_input_errors.py`` checks that every code the core raises is listed here.
"""

from __future__ import annotations

import streamlit as st

from attention.validate import AttentionInputError

from .deck import offer_fixes
from .i18n import current_language, t
from .problem_reference import with_reference
from .table import problem

ZH: dict[str, str] = {
    # the text of the Train page's text task (attention/tasks.py, check_text)
    "text_too_large": "文本太大：{size:,} 字节；最多 {limit:,} 字节（1 MB）。",
    "text_not_utf8": "这个文件不是 UTF-8 文本（第 {byte} 个字节无法读取）；是二进制文件吗？"
    "请另存为纯 UTF-8 文本（.txt）。",
    "text_has_nul": "文本中有 NUL 字符（第 {position} 个字符）：看起来是二进制文件，不是文本。",
    "text_control_characters": "文本中有 {count:,} 个控制字符：看起来是二进制文件，不是文本。",
    "text_empty": "文本是空的（或只有空格和换行）：请给出一些可供学习的文本。",
    "text_too_short": "文本太短：{length:,} 个字符；上下文为 {context} 个字符时至少需要 "
    "{minimum:,} 个（最后 {held_out:.0%} 留作验证，必须能放下一个上下文）。",
    "text_too_few_characters": "文本只有 {distinct} 种不同的字符：没有什么可预测的。"
    "请给出至少含 {minimum} 种不同字符的文本。",
    "text_too_many_characters": "文本有 {distinct:,} 种不同的字符；这里的字符级模型最多支持 "
    "{maximum:,} 种。",
    # the training tasks and settings (attention/tasks.py, attention/training.py)
    "digit_problems_too_few": "{digits} 种数字组成长度为 {length} 的序列，只有 {problems} "
    "道不同的题：太少，无法留出一部分做验证。请用更长的序列或更多的数字。",
    "segment_too_long": "长度为 {segment} 的片段无法在 {tokens} 个 token 中出现两次："
    "max_segment 最多取上下文的一半。",
    "width_heads_split": "宽度 width = {width} 不能平均分给 {heads} 个头：MultiHeadAttention "
    "给每个头 width / heads 个特征，所以 width 必须能被 heads 整除。",
    "train_dropout_one": "训练时 dropout 必须小于 1：等于 1 时所有注意力权重都被丢弃，"
    "注意力什么也传不下去。",
    "compare_dropout_range": "要做对比，dropout 必须大于 0 且小于 1，实际为 {value}。",
    # the attention layer (attention/trace.py) and every caller of check_attention_size
    "too_large_to_trace": "这太大了，无法追踪：batch × heads × tokens² = {batch} × {heads} × "
    "{tokens}² = {cells:,} 个注意力权重（最多 {maximum:,}）。请减少头、token 或 batch 的数量。",
    "cache_growth_too_large": "逐个 token 送入 {tokens:,} 个 token 太大了：tokens² × (2 × d_out + "
    "heads) / 2 = {tokens:,}² × (2 × {d_out} + {heads}) / 2 = {cells:,} 个要复制和保存的数"
    "（最多 {maximum:,}）。请减少 token 数、d_out 或头的数量。",
    "d_out_heads_split": "d_out = {d_out} 不能平均分给 {heads} 个头：融合的 MultiHeadAttention "
    "给每个头 d_out / num_heads 个特征，所以 d_out 必须能被 num_heads 整除。",
    "heads_too_wide": "d_out × num_heads = {width} 太宽（最多 {maximum}）。",
    "kv_heads_pair": "请同时给出 heads 和 kv_heads（分组查询注意力），或者都不给。",
    "kv_heads_split": "heads = {heads} 必须整除 d_model = {d_model}，且 kv_heads = {kv_heads} "
    "必须整除 heads：每个 K/V 头服务 heads / kv_heads 个查询头。",
    "longer_than_context": "输入有 {tokens} 个 token，但 context_length 只有 {context}："
    "因果掩码只覆盖 context_length 个位置。",
    "overflow": "数值在经过这一层时超出了 float32 的范围；请用更小的嵌入值。",
    # the backward pass (attention/gradients.py)
    "backward_too_large": "这对反向传播来说太大了：batch × heads × tokens² = {batch} × "
    "{heads} × {tokens}² = {cells:,} 个注意力权重（最多 {maximum:,}，单头时约 "
    "{tokens_one_head} 个 token）。请减少 token 或头的数量。",
    "overflow_backward": "数值在经过这一层时超出了 float32 的范围；请用更小的嵌入值"
    "（如果做了学习步，也可以用更小的学习率）。",
    "loss_not_finite": "损失不是有限的数。",
    "learning_rate_range": "学习率必须大于 0 且不超过 {maximum:g}，实际为 {value}。",
    "too_many_steps": "在 {tokens} 个 token 上做 {steps} 个学习步的计算量太大："
    "这个规模下最多 {limit} 步。",
    "target_not_finite": "目标向量的每个数都必须是有限的，且绝对值不超过 {maximum:g}。",
}


def explain(error: AttentionInputError, lang: str | None = None) -> str:
    """``error``'s message in ``lang`` (default: the current language), as plain text.

    Chinese when the error has a code listed in :data:`ZH`; otherwise the core's English message.
    The text may contain what a user typed (an upload's characters, say): show it as text
    (``viz.markdown_text.escape_markdown`` before Markdown), never as HTML.
    """
    language = lang or current_language()
    template = ZH.get(error.code or "") if language == "zh" else None
    if template is None:
        return error.message
    return template.format(**error.params)


def show_input_error(error: AttentionInputError, message: str = "error.attention") -> None:
    """An error box: ``message`` (a catalogue key with a ``{detail}``) with :func:`explain`'s text."""
    reported = problem(f"core.{error.code or error.field or 'other'}", detail=str(error))
    st.error(with_reference(t(message, detail=explain(error)), reported))
    offer_fixes(error.code, dict(error.params))
