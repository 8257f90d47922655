"""Messages of the page "The fast path" (and the navigation section of the pages beyond chapter 3)."""

MESSAGES = {
    "nav.beyond": {"en": "Beyond chapter 3", "zh": "第 3 章之后"},
    "page.fast_path.title": {"en": "The fast path", "zh": "快速路径"},
    "fast_path.intro": {
        "en": "The book's `MultiHeadAttention` computes attention in visible steps: scores, mask, "
        "softmax, weighted sum. PyTorch does the same in one call, "
        "`F.scaled_dot_product_attention` (SDPA), or in a whole layer, `nn.MultiheadAttention`. "
        "Here the book's class is built after `torch.manual_seed({seed})` with d_out = {d_out} "
        "and num_heads = {heads}; each path gets its weights and your tokens (T = {tokens}), "
        "and its output is compared with the class's, number for number, at dropout 0.",
        "zh": "书中的 `MultiHeadAttention` 把注意力分成看得见的几步：分数、掩码、softmax、加权求和。"
        "PyTorch 用一次调用 `F.scaled_dot_product_attention`（SDPA）或一个完整的层 "
        "`nn.MultiheadAttention` 完成同样的计算。这里书中的类在 `torch.manual_seed({seed})` 之后创建，"
        "d_out = {d_out}，num_heads = {heads}；每条路径使用它的权重和你的词元（T = {tokens}），"
        "并在 dropout 为 0 时与这个类的输出逐个数字比较。",
    },
    "fast_path.differences.header": {
        "en": "Largest difference from MultiHeadAttention's output",
        "zh": "与 MultiHeadAttention 输出的最大差异",
    },
    "fast_path.path.book": {
        "en": "the book's MultiHeadAttention",
        "zh": "书中的 MultiHeadAttention",
    },
    "fast_path.path.sdpa_is_causal": {"en": "SDPA, is_causal=True", "zh": "SDPA，is_causal=True"},
    "fast_path.path.sdpa_bool_mask": {
        "en": "SDPA, attn_mask=~mask_bool",
        "zh": "SDPA，attn_mask=~mask_bool",
    },
    "fast_path.path.nn_multihead_attention": {
        "en": "nn.MultiheadAttention layer",
        "zh": "nn.MultiheadAttention 层",
    },
    "fast_path.path.sdpa_book_mask": {
        "en": "SDPA, attn_mask=mask_bool (the slip)",
        "zh": "SDPA，attn_mask=mask_bool（失误）",
    },
    "fast_path.same": {"en": "float rounding: the same result", "zh": "浮点舍入：结果相同"},
    "fast_path.differs": {"en": "another result", "zh": "不同的结果"},
    "fast_path.differences.text": {
        "en": "Below {limit} the outputs differ only in the last bits of float32: the same sums "
        "added in another order. The slip gives SDPA the book's mask unchanged; SDPA reads "
        "`True` as *attend*, so every query sees exactly the keys the book hides — its own "
        "future — and none of its past.",
        "zh": "小于 {limit} 的差异只在 float32 的最后几位：同样的加法换了顺序。失误是把书中的掩码原样"
        "交给 SDPA；SDPA 把 `True` 读作“关注”，于是每个查询恰好看到书中隐藏的键——它自己的"
        "未来——而看不到它的过去。",
    },
    "fast_path.outputs.header": {
        "en": "MultiHeadAttention's output and the slip's",
        "zh": "MultiHeadAttention 的输出与失误的输出",
    },
    "fast_path.outputs.book": {
        "en": "The book's printed output (MultiHeadAttention, seed 123, num_heads = 2; compared "
        "now)",
        "zh": "书中打印的输出（MultiHeadAttention，种子 123，num_heads = 2；刚刚比较过）",
    },
    "fast_path.outputs.run": {
        "en": "MultiHeadAttention's output: this run, seed {seed}, num_heads = {heads}, "
        "d_out = {d_out}",
        "zh": "MultiHeadAttention 的输出：本次运行，种子 {seed}，num_heads = {heads}，d_out = {d_out}",
    },
    "fast_path.outputs.blind": {
        "en": "**“{token}” (row {number}) sees no key at all.** Read as True = attend, the book's "
        "mask lets a query see only the keys after it, and the last one has none. SDPA returns "
        "a context of zeros for such a row (checked on this run), so its output is "
        "`out_proj`'s bias alone: [{bias}].",
        "zh": "**“{token}”（第 {number} 行）一个键也看不到。** 把书中的掩码读作 True = 关注时，"
        "一个查询只能看到它后面的键，而最后一个查询后面没有键。SDPA 对这样的行返回全 0 的上下文"
        "（已在本次运行中核对），所以它的输出只是 `out_proj` 的偏置：[{bias}]。",
    },
    "fast_path.outputs.blind_other": {
        "en": "**“{token}” (row {number}) sees no key at all.** Read as True = attend, the book's "
        "mask lets a query see only the keys after it, and the last one has none. SDPA gives "
        "this row [{row}] here.",
        "zh": "**“{token}”（第 {number} 行）一个键也看不到。** 把书中的掩码读作 True = 关注时，"
        "一个查询只能看到它后面的键，而最后一个查询后面没有键。SDPA 在这里给出这一行 [{row}]。",
    },
    "fast_path.outputs.slip": {
        "en": "SDPA with the book's mask unchanged",
        "zh": "把书中掩码原样交给 SDPA",
    },
    "fast_path.value.context": {"en": "context", "zh": "上下文"},
    "fast_path.masks.header": {
        "en": "One boolean mask, two meanings",
        "zh": "同一个布尔掩码，两种含义",
    },
    "fast_path.masks.hide": {
        "en": "The book and `nn.MultiheadAttention` take `mask_bool` (`True` above the diagonal) "
        "and hide a key where it is `True`. Grey: the key is hidden; light: the query attends "
        "to it.",
        "zh": "书中代码和 `nn.MultiheadAttention` 接收 `mask_bool`（对角线以上为 `True`），在 `True` "
        "处隐藏键。灰色：键被隐藏；浅色：查询关注这个键。",
    },
    "fast_path.masks.attend": {
        "en": "SDPA attends where its mask is `True`, so it gets `~mask_bool`: the same grey and "
        "light. Give SDPA `mask_bool` itself and grey and light swap: the slip.",
        "zh": "SDPA 在其掩码为 `True` 处关注，所以它得到的是 `~mask_bool`：灰色和浅色不变。把 "
        "`mask_bool` 本身交给 SDPA，灰色和浅色就会对调：这就是失误。",
    },
    "fast_path.masks.book": {
        "en": "The book: `masked_fill_(mask_bool, -inf)`, True = hide",
        "zh": "书中：`masked_fill_(mask_bool, -inf)`，True = 隐藏",
    },
    "fast_path.masks.nn": {
        "en": "`nn.MultiheadAttention(attn_mask=mask_bool)`, True = hide",
        "zh": "`nn.MultiheadAttention(attn_mask=mask_bool)`，True = 隐藏",
    },
    "fast_path.masks.sdpa": {
        "en": "SDPA: `attn_mask=~mask_bool`, True = attend",
        "zh": "SDPA：`attn_mask=~mask_bool`，True = 关注",
    },
    "fast_path.masks.hidden": {"en": "hidden", "zh": "隐藏"},
    "fast_path.masks.attended": {"en": "attended", "zh": "关注"},
    "fast_path.code.header": {
        "en": "Each path's code beside the book's",
        "zh": "每条路径的代码与书中代码对照",
    },
    "fast_path.code.book": {
        "en": "The book's `MultiHeadAttention.forward`",
        "zh": "书中的 `MultiHeadAttention.forward`",
    },
    "fast_path.code.path": {
        "en": "The path: the book's projections and head split (`split_heads`), one call, the "
        "book's merge and `out_proj` (`merge_heads`)",
        "zh": "这条路径：书中的投影与分头（`split_heads`），一次调用，书中的合并与 `out_proj`"
        "（`merge_heads`）",
    },
    "fast_path.code.header_walk": {
        "en": "The book's code, then each path's",
        "zh": "先看书中的代码，再看每条路径的代码",
    },
    "fast_path.code.book_part": {
        "en": "The book's `MultiHeadAttention.forward`, lines {first}–{last} of {total}",
        "zh": "书中的 `MultiHeadAttention.forward`，第 {first}–{last} 行，共 {total} 行",
    },
    "fast_path.code.path_named": {
        "en": "{name}: the book's projections and head split (`split_heads`), one call, the "
        "book's merge and `out_proj` (`merge_heads`)",
        "zh": "{name}：书中的投影与分头（`split_heads`），一次调用，书中的合并与 `out_proj`"
        "（`merge_heads`）",
    },
    "fast_path.code.nn_named": {
        "en": "{name}: the weights of the book's class copied into one PyTorch layer",
        "zh": "{name}：把书中这个类的权重复制进一个 PyTorch 层",
    },
    "fast_path.code.nn_note": {
        "en": "With d_in ≠ d_out, `nn.MultiheadAttention` needs a query already d_out wide: its "
        "query projection is the identity and the book's `W_query` projects first. Its keys and "
        "values take `kdim = vdim = d_in`.",
        "zh": "当 d_in ≠ d_out 时，`nn.MultiheadAttention` 要求查询的宽度已经是 d_out："
        "它的查询投影设为单位矩阵，先由书中的 `W_query` 投影。键和值使用 `kdim = vdim = d_in`。",
    },
    "fast_path.dropout.header": {"en": "And with dropout?", "zh": "有 dropout 时呢？"},
    "fast_path.dropout.text": {
        "en": "With dropout > 0 the paths are not compared here, and equality is not to be "
        "expected. SDPA and `nn.MultiheadAttention` take no `generator=`: they draw their "
        "dropout mask from torch's global generator, which this app never touches. On a GPU "
        "SDPA's fused kernels draw the keep-mask inside the kernel, block by block, in another "
        "order and shape than `nn.Dropout`'s one `(b, h, T, T)` draw after the softmax, so the "
        "same seed drops other weights (PyTorch issue #149726, closed as expected behaviour). "
        "On a CPU, SDPA has no fused kernel with dropout and falls back to its math kernel, "
        "which does draw one `(b, h, T, T)` mask after the softmax.",
        "zh": "dropout > 0 时这里不比较各条路径，也不应期待相等。SDPA 和 `nn.MultiheadAttention` "
        "不接受 `generator=`：它们从 torch 的全局随机数生成器抽取 dropout 掩码，而本应用从不触碰它。"
        "在 GPU 上，SDPA 的融合内核在内核内部逐块抽取保留掩码，顺序和形状都不同于 `nn.Dropout` "
        "在 softmax 之后一次抽取的 `(b, h, T, T)`，所以同一个种子会丢弃别的权重（PyTorch issue "
        "#149726，被确认为预期行为）。在 CPU 上，SDPA 没有支持 dropout 的融合内核，会退回到 math "
        "内核，它确实在 softmax 之后抽取一个 `(b, h, T, T)` 掩码。",
    },
    "fast_path.measure.header": {
        "en": "Time and memory against the number of tokens",
        "zh": "时间与内存随词元数的变化",
    },
    "fast_path.measure.text": {
        "en": "Measured on this server on demand: `MultiHeadAttention(64, 64, T, 0.0, 2)` and "
        "each path on one sequence of {sizes:token|tokens}, the best of several runs, at most {budget} s "
        "in all (sizes the budget does not reach are skipped). Peak memory: the tensors the path "
        "allocates while it runs, as torch's dispatcher sees them (a fused kernel's own scratch "
        "space is not counted).",
        "zh": "按需在本服务器上测量：`MultiHeadAttention(64, 64, T, 0.0, 2)` 和每条路径在一条 "
        "{sizes} 个词元的序列上运行，取多次运行中最好的一次，总共最多 {budget} 秒（预算内来不及的"
        "规模会跳过）。峰值内存：路径运行时分配的张量，以 torch 调度器所见为准（融合内核自己的临时"
        "空间不计入）。",
    },
    "fast_path.measure.button": {"en": "Measure on this server", "zh": "在本服务器上测量"},
    "fast_path.measure.running": {
        "en": "Measuring (at most {budget} s)…",
        "zh": "测量中（最多 {budget} 秒）…",
    },
    "fast_path.measure.time": {
        "en": "time per forward pass (ms)",
        "zh": "每次前向传播的时间（毫秒）",
    },
    "fast_path.measure.memory": {"en": "peak memory (MiB)", "zh": "峰值内存（MiB）"},
    "fast_path.measure.tokens": {"en": "tokens", "zh": "词元数"},
    "fast_path.measure.skipped": {
        "en": "Skipped (the time budget ran out): {sizes:token|tokens}.",
        "zh": "已跳过（时间预算用完）：{sizes} 个词元。",
    },
    "fast_path.measure.machine": {
        "en": "Measured on {machine}, torch {torch}, torch threads: {threads}. The book's path keeps "
        "`(b, h, T, T)` scores and weights; SDPA with `is_causal` never builds them.",
        "zh": "测量环境：{machine}，torch {torch}，torch 线程数：{threads}。书中的路径保留 `(b, h, T, T)` "
        "的分数和权重；使用 `is_causal` 的 SDPA 从不构建它们。",
    },
    "fast_path.measure.table_corner": {"en": "path ↓ · tokens →", "zh": "路径 ↓ · 词元数 →"},
    "fast_path.book_table.header": {"en": "The book's recorded timings", "zh": "书中记录的计时"},
    "fast_path.book_table.text": {
        "en": "From the book's bonus notebook ([mha-implementations.ipynb]({url}), sections 10.1 "
        "and 10.2): forward pass in ms, batch 8 × 1,024 tokens × 768 features, 12 heads, "
        "`%timeit`; its rows 2, 5, 6 and 8 (`nn.MultiheadAttention` with `need_weights=False`, "
        "as here).",
        "zh": "出自本书的附加 notebook（[mha-implementations.ipynb]({url})，第 10.1 和 10.2 节）："
        "前向传播的毫秒数，批量 8 × 1,024 个词元 × 768 个特征，12 个头，`%timeit`；取其第 2、5、6、8 行"
        "（`nn.MultiheadAttention` 使用 `need_weights=False`，与这里相同）。",
    },
    "fast_path.book_table.cpu": {
        "en": "M3 MacBook Air CPU, PyTorch 2.4.0",
        "zh": "M3 MacBook Air CPU，PyTorch 2.4.0",
    },
    "fast_path.book_table.gpu": {
        "en": "Nvidia A100, PyTorch 2.6.0",
        "zh": "Nvidia A100，PyTorch 2.6.0",
    },
    "fast_path.tab.paths": {"en": "Three paths and the slip", "zh": "三条路径与失误"},
    "fast_path.tab.masks": {"en": "Mask conventions", "zh": "掩码约定"},
    "fast_path.tab.code": {"en": "The code", "zh": "代码"},
    "fast_path.tab.dropout": {"en": "Dropout", "zh": "有 dropout 时"},
    "fast_path.tab.timings": {"en": "Time and memory", "zh": "时间与内存"},
}
