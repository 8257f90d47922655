"""Messages of the page “Find the bug” (the gallery of ``attention/bugs.py``).

The English title and "how to spot it" sentence of each bug are the gallery's own
(``attention.bugs.BUGS``), read when first shown; the Chinese ones are here.
"""

from collections.abc import Iterator, Mapping


class _FromGallery(Mapping[str, str]):
    """A bug's text: English from the gallery (``attention.bugs``, imported on the first read),
    Chinese from here. The catalogue loads without the gallery, whose KV-cache bug imports the
    training code: every page's first visit would import it for nothing."""

    def __init__(self, name: str, field: str, zh: str) -> None:
        self._name, self._field, self._zh = name, field, zh

    def __getitem__(self, lang: str) -> str:
        if lang == "zh":
            return self._zh
        if lang != "en":
            raise KeyError(lang)
        from attention.bugs import BUGS

        return getattr(BUGS[self._name], self._field)

    def __iter__(self) -> Iterator[str]:
        return iter(("en", "zh"))

    def __len__(self) -> int:
        return 2


_ZH_TITLES = {
    "mask_inverted": "掩码取反",
    "mask_diagonal": "掩码连自身也隐藏",
    "mask_not_applied": "注册了掩码却从未使用",
    "no_scaling": "没有缩放",
    "wrong_scaling": "除以 √d_in",
    "scale_by_d_k": "除以 d_k（没有开方）",
    "softmax_wrong_dim": "softmax 用错了轴",
    "mask_after_softmax": "softmax 之后才掩码，且未重新归一化",
    "dropout_before_softmax": "dropout 作用在分数上",
    "dropout_in_eval": "eval 模式下仍然 dropout",
    "dropout_unscaled": "手写 dropout，缺少 1/(1−p)",
    "values_from_keys": "权重乘在键上",
    "sdpa_bool_mask": "把书中的掩码交给 SDPA",
    "sdpa_dropout_in_eval": "eval 模式下 SDPA 的 dropout_p 仍然生效",
    "heads_without_transpose": "只用 view 拆分多头，没有 transpose",
    "no_out_proj": "漏掉了 out_proj",
    "scale_by_d_out": "除以 √d_out 而不是 √head_dim",
    "kv_cache_mask_slice": "KV 缓存：掩码从第 0 行切片",
}

_ZH_SPOT = {
    "mask_inverted": "每个词元只看到它后面的词元：权重都在对角线上方，后面的词元会改变前面的输出，"
    "最后一行是 NaN（所有键都被隐藏）。",
    "mask_diagonal": "对角线也被隐藏了：词元从不关注自己，而第一个词元前面什么都没有，得到 NaN。",
    "mask_not_applied": "不会报错，每行之和也为 1，但对角线上方的权重不是 0："
    "每个词元都关注它后面的词元，所以后面的词元会改变前面所有的输出。",
    "no_scaling": "权重比书中的更尖锐（更接近 0 和 1），但每行之和仍为 1，也没有泄漏；"
    "d_out 越大，差距越大。",
    "wrong_scaling": "除以输入宽度 √d_in 而不是键的宽度 √d_k：权重比书中的略尖锐或略平坦，"
    "每行之和仍为 1；当 d_in = d_out 时两者相同。",
    "scale_by_d_k": "除以 d_k 而不是 √d_k：权重比书中的更平坦；每行之和为 1；只有 d_k = 1 时相同。",
    "softmax_wrong_dim": "每列之和为 1 而不是每行（最后一个键只被最后一个查询看到，所以那里的权重是 1），"
    "而且后面的词元会通过列的求和改变前面的输出。",
    "mask_after_softmax": "每行之和小于 1（只有最后一行等于 1），而且后面的词元会改变前面的输出："
    "它的分数出现在每一行 softmax 的分母里。",
    "dropout_before_softmax": "训练模式下每行之和仍为 1，且没有权重恰好为 0"
    "（被丢弃的分数变成 0，而不是 −∞）；eval 模式下与书中的类相同。",
    "dropout_in_eval": "训练模式下与书中的类相同；model.eval() 之后权重仍被丢弃，"
    "所以同一输入运行两次会得到不同的输出。",
    "dropout_unscaled": "保留的权重保持原值，而没有乘以 1/(1−p)，所以训练模式下输出平均小了 (1−p) 倍；"
    "eval 模式下与书中的类相同。",
    "values_from_keys": "每个权重都正确，只有上下文向量不同：它们混合的是键向量，W_value 完全不起作用。",
    "sdpa_bool_mask": "SDPA 把布尔掩码读作 True = 关注，而书中的掩码是 True = 隐藏："
    "每个词元只看到后面的词元，最后一个词元的输出全是 0。",
    "sdpa_dropout_in_eval": "SDPA 没有训练标志：model.eval() 之后 dropout_p 仍在丢弃，"
    "所以 eval 的输出每次运行都不同；训练模式下与书中的类相同。",
    "heads_without_transpose": "形状是对的，所以不会报错；但一个头的行不再是词元（每行混有相邻词元的片段），"
    "因果掩码隐藏了错误的东西，后面的词元会改变前面的输出。",
    "no_out_proj": "每个头的权重都正确，也没有泄漏；只有最后一步不同：各头的输出被拼接却从未混合，"
    "out_proj 也得不到梯度。",
    "scale_by_d_out": "每个头都除以整个宽度而不是自己的 head_dim：权重比书中的更平坦，"
    "每行之和仍为 1；只有一个头时相同。",
    "kv_cache_mask_slice": "完整的一次前向传播与书中相同（q = n）：这个错误只在用缓存时出现。"
    "先输入前面的词元，再单独输入最后一个，前面几行一致，最后一行不同："
    "它唯一的查询拿到的是位置 0 的掩码行，所以只看得到第一个键（权重为 1）。",
}

MESSAGES = {
    "page.find_the_bug.title": {"en": "Find the bug", "zh": "找出 bug"},
    "find_the_bug.window_unused": {
        "en": "The sidebar's sliding window (window = {window}) is not used on this page: each "
        "bug is a slip in the book's class, which has no window, so the bug and the book's class "
        "both run without one.",
        "zh": "本页不使用侧边栏的滑动窗口（window = {window}）：每个 bug 都是书中类的一处失误，"
        "而书中的类没有窗口，所以 bug 和书中的类都不用窗口运行。",
    },
    "find_the_bug.intro": {
        "en": "Each bug below is the book's class with a mistake that shipped in real code; above "
        "its diff, each says how many of the book's statements it changes. Pick one: it runs on "
        "your current sentence, seed, dropout and mode, beside the book's class with the same "
        "weights and the same dropout draws.",
        "zh": "下面每个 bug 都是书中的类带上一个曾出现在真实代码里的错误；每个 bug 的差异上方会说明它改动了"
        "书中的几条语句。选一个："
        "它会在你当前的句子、种子、dropout 和模式下运行，与使用相同权重和相同 dropout 抽样的书中类并排比较。",
    },
    "find_the_bug.choose": {"en": "Bug", "zh": "选择一个 bug"},
    "url.bad_bug": {
        "en": "Link: “bug={value}” is not a bug of the gallery; its names are {bugs}. The first "
        "bug is shown instead.",
        "zh": "链接：“bug={value}”不是 bug 库里的名称；可用的名称为 {bugs}。已改为显示第一个 bug。",
    },
    "find_the_bug.diff.header": {"en": "What the bug changes", "zh": "bug 改动了什么"},
    "find_the_bug.statements.one": {"en": "one statement", "zh": "一条语句"},
    "find_the_bug.statements.many": {"en": "{count:statement|statements}", "zh": "{count} 条语句"},
    "find_the_bug.size.one": {
        "en": "One statement changed: the book's {where}.",
        "zh": "改动了一条语句：书中的{where}。",
    },
    "find_the_bug.size.left_out": {
        "en": "The bug leaves out {book} of the book's ({where}).",
        "zh": "这个 bug 删去了书中的{book}（{where}）。",
    },
    "find_the_bug.size.replaced": {
        "en": "The bug replaces {book} of the book's ({where}) with {own} of its own.",
        "zh": "这个 bug 把书中的{book}（{where}）换成了它自己的{own}。",
    },
    "find_the_bug.where.line": {"en": "line {line}", "zh": "第 {line} 行"},
    "find_the_bug.where.lines": {"en": "lines {first}–{last}", "zh": "第 {first}–{last} 行"},
    "find_the_bug.metric.nan": {"en": "not a number", "zh": "不是数（NaN）"},
    "find_the_bug.nan_rows": {
        "en": "**The bug's output holds NaN (not a number)** in {rows} of its {total:row|rows}: "
        "{tokens}. NaN minus any number is NaN, so no largest difference can be measured there.",
        "zh": "**bug 的输出中含有 NaN（不是数）**，在它 {total} 行中的 {rows} 行：{tokens}。"
        "NaN 减去任何数仍是 NaN，所以那里无法测出最大差异。",
    },
    "find_the_bug.diff.caption": {
        "en": "− the book's statement in attention/modules.py (line {lines}), + the bug's",
        "zh": "− attention/modules.py 中书里的语句（第 {lines} 行），+ bug 的写法",
    },
    "find_the_bug.diff.caption_cache": {
        "en": "− the right slice in {file} (line {lines}), + the slip of PR #697 in "
        "rasbt/LLMs-from-scratch",
        "zh": "− {file} 中正确的切片（第 {lines} 行），+ rasbt/LLMs-from-scratch 的 PR #697 "
        "中的失误",
    },
    "find_the_bug.cached.note": {
        "en": "A KV-cache bug: on a full pass it is the book's class. Both sides here feed the "
        "tokens through a cache, the first {prompt} in one pass, then “{token}” alone "
        "(MultiHeadAttention, {heads:head|heads}, d_out = {d_out}; the tables show head 1). The book's "
        "side equals the book's full pass up to float rounding (eval mode: {difference}). A cell of an "
        "earlier row under the last key is hidden: that key was not in the cache yet.",
        "zh": "这是 KV 缓存的 bug：完整的一次前向传播与书中的类相同。这里两边都让词元经过缓存："
        "先一次输入前 {prompt} 个，再单独输入“{token}”（MultiHeadAttention，{heads} 个头，"
        "d_out = {d_out}；表格显示第 1 个头）。书中一侧与书中的完整前向传播只差浮点舍入"
        "（eval 模式：{difference}）。前面各行在最后一个键下的格子是隐藏的：那时这个键还不在缓存里。",
    },
    "find_the_bug.diff.caption_many": {
        "en": "− the book's statements in attention/modules.py (lines {lines}), + the bug's",
        "zh": "− attention/modules.py 中书里的语句（第 {lines} 行），+ bug 的写法",
    },
    "find_the_bug.spot.header": {"en": "How to spot it", "zh": "如何发现它"},
    "find_the_bug.checks.header": {"en": "Tests on your numbers", "zh": "在你的数字上测试"},
    "find_the_bug.metric.difference": {"en": "Largest output difference", "zh": "输出的最大差异"},
    "find_the_bug.metric.leak": {"en": "Future leak", "zh": "未来信息泄漏"},
    "find_the_bug.metric.rows": {"en": "Rows sum to 1", "zh": "每行之和为 1"},
    "find_the_bug.yes": {"en": "yes", "zh": "是"},
    "find_the_bug.no": {"en": "no", "zh": "否"},
    "find_the_bug.nan": {"en": "NaN (not a number)", "zh": "NaN（不是数）"},
    "find_the_bug.last_shown": {
        "en": "Below: the last comparison that could be run ({bug}, {tokens:token|tokens}), until the "
        "settings or the table fit again.",
        "zh": "下面是最近一次能运行的比较（{bug}，{tokens} 个 token），直到设置或表格重新合适为止。",
    },
    "find_the_bug.leak.moved": {
        "en": "**Future-leak test.** Changing the last token, {token}, moved the outputs of "
        "earlier tokens: {moved}. A causal layer never lets a token see what follows it.",
        "zh": "**未来泄漏测试。** 改变最后一个词元 {token} 后，前面词元的输出变了：{moved}。"
        "因果注意力层绝不允许词元看到它后面的内容。",
    },
    "find_the_bug.leak.none": {
        "en": "**Future-leak test.** Changing the last token, {token}, moves no earlier output: "
        "no leak.",
        "zh": "**未来泄漏测试。** 改变最后一个词元 {token} 后，前面词元的输出都没变：没有泄漏。",
    },
    "find_the_bug.rows.text": {
        "en": "**Row sums** of the bug's weights after softmax: {sums} (the book's: all 1).",
        "zh": "bug 在 softmax 之后的权重的**每行之和**：{sums}（书中的：全是 1）。",
    },
    "find_the_bug.modes.text": {
        "en": "**Training vs eval.** Largest output difference to the book's class in training "
        "mode: {train}; in eval mode: {eval}.",
        "zh": "**训练与 eval。** 与书中类的输出最大差异，训练模式：{train}；eval 模式：{eval}。",
    },
    "find_the_bug.heads.note": {
        "en": "A multi-head bug: both run MultiHeadAttention with {heads:head|heads} and d_out = "
        "{d_out}; the tables show head 1.",
        "zh": "这是多头的 bug：两者都运行 {heads} 个头、d_out = {d_out} 的 MultiHeadAttention；"
        "表格显示第 1 个头。",
    },
    "find_the_bug.steps.header": {"en": "What changes, step by step", "zh": "逐步看哪里变了"},
    "find_the_bug.steps.none": {
        "en": "In the current mode nothing changes: every step is the book's. Switch training "
        "mode or dropout in the sidebar to see this bug.",
        "zh": "在当前模式下什么都没变：每一步都与书中相同。在侧边栏切换训练模式或 dropout 来看这个 bug。",
    },
    "find_the_bug.steps.choose": {"en": "Step", "zh": "步骤"},
    "find_the_bug.book": {"en": "The book's class", "zh": "书中的类"},
    "find_the_bug.buggy": {"en": "With the bug", "zh": "有 bug 的类"},
    "find_the_bug.output.header": {
        "en": "Output difference (bug − book)",
        "zh": "输出的差异（bug − 书）",
    },
    "find_the_bug.value.difference": {"en": "difference", "zh": "差异"},
    "find_the_bug.entry.queries": {"en": "Queries", "zh": "查询"},
    "find_the_bug.entry.keys": {"en": "Keys", "zh": "键"},
    "find_the_bug.entry.values": {"en": "Values", "zh": "值"},
    "find_the_bug.entry.attn_scores": {"en": "Raw scores", "zh": "原始分数"},
    "find_the_bug.entry.masked_scores": {"en": "Masked scores", "zh": "掩码后的分数"},
    "find_the_bug.entry.scaled_scores": {"en": "Scaled scores", "zh": "缩放后的分数"},
    "find_the_bug.entry.attn_weights": {"en": "Softmax weights", "zh": "softmax 权重"},
    "find_the_bug.entry.dropped_weights": {
        "en": "Weights after dropout",
        "zh": "dropout 之后的权重",
    },
    "find_the_bug.entry.context": {"en": "Context vectors", "zh": "上下文向量"},
    "find_the_bug.entry.output": {"en": "Output", "zh": "输出"},
    **{
        f"find_the_bug.bug.{name}": _FromGallery(name, "title", zh)
        for name, zh in _ZH_TITLES.items()
    },
    **{
        f"find_the_bug.spot.{name}": _FromGallery(name, "spot", zh) for name, zh in _ZH_SPOT.items()
    },
}
