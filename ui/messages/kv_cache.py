"""Messages of the page "The KV cache"."""

MESSAGES = {
    "page.kv_cache.title": {"en": "The KV cache", "zh": "KV 缓存"},
    "kv_cache.intro": {
        "en": "A GPT writes one token at a time. Without a cache, every new token sends the whole "
        "text through the model again, though the keys and values of the earlier tokens have not "
        "changed: a token only attends to itself and the tokens before it. A **KV cache** keeps "
        "each layer's keys and values; each new token computes only its own query, key and "
        "value, adds one row to the cache, and its query meets every cached key.",
        "zh": "GPT 一次写一个词元。没有缓存时，每个新词元都要让整段文本再次通过模型，尽管前面词元的键和"
        "值并没有变：一个词元只关注它自己和它之前的词元。**KV 缓存**保存每一层的键和值；每个新词元只"
        "计算它自己的查询、键和值，给缓存添加一行，它的查询再与所有缓存的键相遇。",
    },
    "kv_cache.growth.header": {
        "en": "The cache grows one row per token",
        "zh": "缓存每个词元增长一行",
    },
    "kv_cache.growth.text": {
        "en": "The book's `MultiHeadAttention` (seed {seed}, d_out = {d_out}, num_heads = {heads}) "
        "gets your tokens one at a time. After token {n} (“{token}”) the cache holds {n:row|rows} of "
        "keys and {n} of values; the new query's weights spread over those {n:key|keys} only.",
        "zh": "书中的 `MultiHeadAttention`（种子 {seed}，d_out = {d_out}，{heads} 个头）每次接收你的"
        "一个词元。第 {n} 个词元（“{token}”）之后，缓存有 {n} 行键和 {n} 行值；新查询的权重只分布在"
        "这 {n} 个键上。",
    },
    "kv_cache.growth.text_one": {
        "en": "The book's `MultiHeadAttention` (seed {seed}, d_out = {d_out}, num_heads = {heads}) "
        "gets your tokens one at a time. After token 1 (“{token}”) the cache holds 1 row of "
        "keys and 1 of values; the new query's weights go to that one key only.",
        "zh": "书中的 `MultiHeadAttention`（种子 {seed}，d_out = {d_out}，{heads} 个头）每次接收你的"
        "一个词元。第 1 个词元（“{token}”）之后，缓存有 1 行键和 1 行值；新查询的权重只落在这一个键上。",
    },
    "kv_cache.growth.cut": {
        "en": "The cache is shown on the first {shown} of your {tokens:token|tokens}.",
        "zh": "缓存只展示你的 {tokens} 个词元中的前 {shown} 个。",
    },
    "kv_cache.growth.slider": {"en": "Tokens fed so far", "zh": "已输入的词元数"},
    "kv_cache.growth.keys": {"en": "Cached keys", "zh": "缓存的键"},
    "kv_cache.growth.values": {"en": "Cached values", "zh": "缓存的值"},
    "kv_cache.growth.weights": {
        "en": "The new query's attention weights",
        "zh": "新查询的注意力权重",
    },
    "kv_cache.growth.metric": {
        "en": "difference from the full forward pass (row {n})",
        "zh": "与完整前向传播的差异（第 {n} 行）",
    },
    "kv_cache.growth.metric_help": {
        "en": "The cached step's output row against the same row of one forward pass over all "
        "tokens: the same numbers.",
        "zh": "缓存步骤的输出行与一次处理全部词元的前向传播的同一行对比：数字相同。",
    },
    "kv_cache.growth.output": {"en": "Output row of token {n}", "zh": "第 {n} 个词元的输出行"},
    "kv_cache.growth.short": {
        "en": "After token {n} (“{token}”) the cache holds {n:row|rows} of keys and of values; the "
        "new query meets those {n:key|keys}.",
        "zh": "第 {n} 个词元（“{token}”）之后，缓存有 {n} 行键和 {n} 行值；新查询与这 {n} 个键相遇。",
    },
    "kv_cache.growth.lead": {"en": "**{header}.** {text}", "zh": "**{header}**。{text}"},
    "kv_cache.growth.short_one": {
        "en": "After token 1 (“{token}”) the cache holds 1 row of keys and 1 of values; the new "
        "query meets that one key.",
        "zh": "第 1 个词元（“{token}”）之后，缓存有 1 行键和 1 行值；新查询与这一个键相遇。",
    },
    "kv_cache.growth.keys_last": {
        "en": "Cached keys: the last {shown} of {n:row|rows}",
        "zh": "缓存的键：{n} 行中的最后 {shown} 行",
    },
    "kv_cache.growth.values_last": {
        "en": "Cached values: the last {shown} of {n:row|rows}",
        "zh": "缓存的值：{n} 行中的最后 {shown} 行",
    },
    "kv_cache.growth.output_compact": {
        "en": "Output of token {n} vs the full pass: {difference}",
        "zh": "第 {n} 个词元的输出与完整前向传播相差 {difference}",
    },
    "kv_cache.growth.cached_row": {"en": "with the cache", "zh": "使用缓存"},
    "kv_cache.growth.full_row": {"en": "full forward pass", "zh": "完整前向传播"},
    "kv_cache.axis.output": {"en": "output feature", "zh": "输出特征"},
    "kv_cache.value.output": {"en": "output", "zh": "输出"},
    "kv_cache.tab.growth": {"en": "The cache grows", "zh": "缓存增长"},
    "kv_cache.tab.slice": {"en": "The mask slice", "zh": "掩码切片"},
    "kv_cache.tab.generate": {"en": "Generating", "zh": "生成"},
    "kv_cache.tab.time": {"en": "Time per token", "zh": "每词元时间"},
    "kv_cache.tab.memory": {"en": "Memory", "zh": "内存"},
    "kv_cache.slice.one_token": {
        "en": "The mask slice needs at least 2 tokens: one cached, one new. Add a token to the "
        "table.",
        "zh": "掩码切片至少需要 2 个词元：一个已缓存，一个新的。请在表格中再添加一个词元。",
    },
    "kv_cache.slice.gallery": {
        "en": "The same slip is in the bug gallery (Find the bug: “KV cache: the mask sliced from "
        "row 0”), step by step beside the book's layer through the same cache.",
        "zh": "同样的失误也在 bug 图鉴里（找出 bug：“KV 缓存：掩码从第 0 行切片”），"
        "与经过同一缓存的书中层逐步对照。",
    },
    "kv_cache.axis.token": {"en": "cached token", "zh": "缓存的词元"},
    "kv_cache.axis.feature": {"en": "head.feature", "zh": "头.特征"},
    "kv_cache.axis.head": {"en": "head", "zh": "头"},
    "kv_cache.axis.key": {"en": "key", "zh": "键"},
    "kv_cache.head": {"en": "head {h}", "zh": "头 {h}"},
    "kv_cache.value.weight": {"en": "weight", "zh": "权重"},
    "kv_cache.slice.header": {
        "en": "The mask when 1 query meets n keys",
        "zh": "1 个查询遇到 n 个键时的掩码",
    },
    "kv_cache.slice.text": {
        "en": "With a cache, the new token is the only query, at position n = {n}, and there are "
        "{n:key|keys}. Its mask is row n−1 of the causal mask, `mask[n-1:n, :n]`: nothing hidden "
        "(no key is in its future), so a single query needs no mask at all. Slicing from row 0, "
        "`mask[:num_tokens_Q, :num_tokens_K]`, gives it the mask of the *first* token: it sees "
        "only “{first}”. A learner's pull request to the book's KV-cache code (PR #697) was "
        "about this shape: the old slice `mask[:num_tokens, :num_tokens]` is `(1, 1)` for one "
        "new token: it hides nothing, right by luck for one query.",
        "zh": "有缓存时，新词元是唯一的查询，位于位置 n = {n}，共有 {n} 个键。它的掩码是因果掩码的第 n−1 "
        "行 `mask[n-1:n, :n]`：什么都不隐藏（没有键在它的未来），所以单个查询根本不需要掩码。"
        "如果从第 0 行切片，`mask[:num_tokens_Q, :num_tokens_K]`，它得到的是*第一个*词元的掩码："
        "只能看到“{first}”。一位读者给本书 KV 缓存代码提交的 PR #697 讨论的正是这个形状：旧的切片 "
        "`mask[:num_tokens, :num_tokens]` 在只有一个新词元时是 `(1, 1)`：什么都不隐藏，"
        "对单个查询来说碰巧正确。",
    },
    "kv_cache.slice.right_output": {"en": "output, right slice", "zh": "输出，正确切片"},
    "kv_cache.slice.slip_output": {"en": "output, the slip", "zh": "输出，失误"},
    "kv_cache.slice.metric": {
        "en": "largest difference, slip vs right",
        "zh": "最大差异：失误 vs 正确",
    },
    "kv_cache.slice.query_of": {"en": "the query of “{token}”", "zh": "“{token}”的查询"},
    "kv_cache.slice.right_row": {"en": "right: mask[n-1:n, :n]", "zh": "正确：mask[n-1:n, :n]"},
    "kv_cache.slice.slip_row": {"en": "the slip: mask[:1, :n]", "zh": "失误：mask[:1, :n]"},
    "kv_cache.slice.hidden": {"en": "hidden", "zh": "隐藏"},
    "kv_cache.slice.visible": {"en": "visible", "zh": "可见"},
    "kv_cache.generate.header": {
        "en": "A tiny GPT writing, with and without the cache",
        "zh": "一个小 GPT 写字：有缓存与无缓存",
    },
    "kv_cache.generate.text": {
        "en": "The tiny GPT of the “Train it” page (the text task: {layers:layer|layers} of the book's "
        "`MultiHeadAttention`, {heads:head|heads}, width {width}, a {context}-character context) "
        "with fresh, untrained weights (seed {seed}) continues the prompt greedily, one "
        "character at a time — gibberish, since nothing was trained; what matters is that both "
        "ways write the same characters.",
        "zh": "“动手训练”中的小 GPT（文本任务：{layers} 层书中的 `MultiHeadAttention`，{heads} 个头，"
        "宽度 {width}，{context} 个字符的上下文），使用全新的未训练权重（种子 {seed}），贪心地一次一个"
        "字符续写提示——因为没有训练，写出来的是乱码；重要的是两种方式写出相同的字符。",
    },
    "kv_cache.generate.count": {"en": "New characters", "zh": "新字符数"},
    "kv_cache.generate.prompt": {"en": "Prompt", "zh": "提示"},
    "kv_cache.generate.with": {"en": "With the cache", "zh": "有缓存"},
    "kv_cache.generate.without": {"en": "Without the cache", "zh": "无缓存"},
    "kv_cache.generate.same": {
        "en": "The same {count:character|characters} both ways.",
        "zh": "两种方式写出的 {count} 个字符完全相同。",
    },
    "kv_cache.generate.differ": {
        "en": "The two ways differ — this should not happen.",
        "zh": "两种方式结果不同——这不应该发生。",
    },
    "kv_cache.time.header": {"en": "Time per token", "zh": "每个词元的时间"},
    "kv_cache.time.text": {
        "en": "Measured on this server on demand: {count} new characters after the prompt, both "
        "ways, the best of up to 5 runs within {budget} s. Without the cache, token t runs t "
        "tokens through every layer; with it, one.",
        "zh": "按需在本服务器上测量：在提示之后生成 {count} 个新字符，两种方式，在 {budget} 秒内最多 5 "
        "次运行中取最好的一次。没有缓存时，第 t 个词元要让 t 个词元通过每一层；有缓存时只需一个。",
    },
    "kv_cache.time.button": {"en": "Measure on this server", "zh": "在本服务器上测量"},
    "kv_cache.time.running": {
        "en": "Measuring (at most {budget} s)…",
        "zh": "测量中（最多 {budget} 秒）…",
    },
    "kv_cache.time.with": {"en": "ms per token, with the cache", "zh": "每词元毫秒数，有缓存"},
    "kv_cache.time.without": {"en": "ms per token, without", "zh": "每词元毫秒数，无缓存"},
    "kv_cache.time.ratio": {"en": "without ÷ with", "zh": "无缓存 ÷ 有缓存"},
    "kv_cache.time.caption": {
        "en": "{runs:run|runs}, {threads:thread|threads}{stopped}.",
        "zh": "{runs} 次运行，{threads} 个线程{stopped}。",
    },
    "kv_cache.time.stopped": {"en": "; stopped by the time budget", "zh": "；因时间预算停止"},
    "kv_cache.memory.header": {"en": "What the cache costs in memory", "zh": "缓存占用多少内存"},
    "kv_cache.memory.text": {
        "en": "Every layer keeps a key and a value for every token: 2 × batch b × layers L × "
        "tokens T × K/V width × bytes per number. Grouped-query attention (GQA) lets several query heads "
        "share one K/V head: with h_kv K/V heads for h query heads, the K/V width is "
        "d_model × h_kv / h, and the cache shrinks by the same factor.",
        "zh": "每一层为每个词元保存一个键和一个值：2 × 批量 b × 层数 L × 词元数 T × K/V 宽度 × "
        "每个数的字节数。"
        "分组查询注意力（GQA）让多个查询头共享一个 K/V 头：若有 h_kv 个 K/V 头、h 个查询头，"
        "K/V 宽度为 d_model × h_kv / h，缓存按同样的比例缩小。",
    },
    "kv_cache.memory.layers": {"en": "layers", "zh": "层数"},
    "kv_cache.memory.tokens": {"en": "tokens", "zh": "词元数"},
    "kv_cache.memory.d_model": {"en": "width d_model", "zh": "宽度 d_model"},
    "kv_cache.memory.heads": {"en": "query heads", "zh": "查询头数"},
    "kv_cache.memory.kv_heads": {"en": "K/V heads", "zh": "K/V 头数"},
    "kv_cache.memory.bytes": {"en": "bytes per number", "zh": "每个数的字节数"},
    "kv_cache.memory.batch": {"en": "batch", "zh": "批量"},
    "kv_cache.memory.result": {"en": "cache size", "zh": "缓存大小"},
    "kv_cache.memory.examples": {
        "en": "Examples: the chapter's layer (1 layer, 6 tokens, d_out 2, fp32); GPT-2 124M (12 "
        "layers, 12 heads, d_model 768, 1,024 tokens, fp32), as it is and with grouped-query "
        "attention (4 K/V heads) or multi-query attention (1 K/V head).",
        "zh": "示例：本章的层（1 层，6 个词元，d_out 2，fp32）；GPT-2 124M（12 层，12 个头，d_model "
        "768，1,024 个词元，fp32），原样、使用分组查询注意力（4 个 K/V 头）或多查询注意力（1 个 "
        "K/V 头）。",
    },
    "kv_cache.memory.in_mib": {"en": "= {size}", "zh": "= {size}"},
    "kv_cache.memory.col_bytes": {"en": "bytes", "zh": "字节"},
    "kv_cache.memory.col_size": {"en": "size", "zh": "大小"},
    "kv_cache.memory.corner": {"en": "model ↓", "zh": "模型 ↓"},
    "kv_cache.memory.chapter": {"en": "the chapter's layer", "zh": "本章的层"},
    "kv_cache.memory.gpt2": {"en": "GPT-2 124M", "zh": "GPT-2 124M 模型"},
    "kv_cache.memory.gqa4": {"en": "GPT-2, 4 K/V heads", "zh": "GPT-2，4 个 K/V 头"},
    "kv_cache.memory.mqa": {"en": "GPT-2, 1 K/V head", "zh": "GPT-2，1 个 K/V 头"},
    "kv_cache.no_dropout": {
        "en": "Dropout p = {p} and training mode do not act on this page: a cache serves "
        "generation, so the layer here runs as at inference, in eval mode with dropout off "
        "(`MultiHeadAttention(…, dropout=0.0, …).eval()`), and every weight is kept.",
        "zh": "Dropout p = {p} 和训练模式在本页不起作用：缓存用于生成，所以这里的层像推理时一样运行，"
        "处于 eval 模式且关闭 dropout（`MultiHeadAttention(…, dropout=0.0, …).eval()`），"
        "每个权重都保留。",
    },
}
