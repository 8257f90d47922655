"""Messages of the Reproducibility page (keys start with ``repro.``)."""

MESSAGES = {
    "repro.intro": {
        "en": "Same seed, same inputs, same settings — same numbers? On the same setup, yes, to "
        "the last bit. This page shows what the numbers depend on, checks this machine against "
        "the book, and gives you a link to share the current view.",
        "zh": "相同的随机种子、输入和设置，会得到相同的数字吗？在相同的环境下，会的，每一位都相同。"
        "本页列出结果依赖的因素，用书中的结果检验这台机器，并给出分享当前视图的链接。",
    },
    # this machine
    "repro.machine.header": {"en": "This machine", "zh": "这台机器"},
    "repro.table.fact": {"en": "what", "zh": "项目"},
    "repro.table.value": {"en": "value", "zh": "值"},
    "repro.fact.seed": {"en": "Seed (sidebar)", "zh": "随机种子（侧边栏）"},
    "repro.fact.torch_version": {"en": "PyTorch version", "zh": "PyTorch 版本"},
    "repro.fact.python_version": {"en": "Python version", "zh": "Python 版本"},
    "repro.fact.os": {"en": "Operating system", "zh": "操作系统"},
    "repro.fact.machine": {"en": "Machine (processor architecture)", "zh": "机器（处理器架构）"},
    "repro.fact.platform": {"en": "Platform", "zh": "平台"},
    "repro.fact.torch_threads": {"en": "PyTorch threads", "zh": "PyTorch 线程数"},
    "repro.fact.cpu_count": {"en": "CPU cores", "zh": "CPU 核心数"},
    "repro.fact.default_dtype": {"en": "Default float type", "zh": "默认浮点类型"},
    "repro.dropout.header": {
        "en": "Dropout masks on this machine",
        "zh": "这台机器上的 dropout 掩码",
    },
    "repro.dropout.same": {
        "en": "This machine draws the book's dropout masks: both printouts of section 3.5.2 "
        "(dropout on a 6 × 6 matrix of ones, then on the masked weights) come out as the book "
        "prints them ({count} of {count} in the table below).",
        "zh": "这台机器抽到的 dropout 掩码与书中相同：第 3.5.2 节的两个输出"
        "（对 6 × 6 全 1 矩阵做 dropout，再对掩码后的权重做 dropout）都与书中打印的一致"
        "（见下表，{count} 个中 {count} 个一致）。",
    },
    "repro.dropout.different": {
        "en": "This machine draws different dropout masks from the book's printout: "
        "cells that differ: {cells}, in {count} of section 3.5.2's printouts (table below). The weights drawn "
        "by nn.Linear still agree.",
        "zh": "这台机器抽到的 dropout 掩码与书中打印的不同：第 3.5.2 节有 {count} 个输出中共 {cells} "
        "个元素不同（见下表）。nn.Linear 生成的权重仍然一致。",
    },
    "repro.dropout.platforms": {
        "en": "The book's notebook warns that dropout outputs may look different on another "
        "operating system (PyTorch issue #121595), so this is measured on the machine that "
        "serves this page. To compare dropout masks, run the same recipe on the same machine.",
        "zh": "书的配套笔记本提醒：在其他操作系统上 dropout 的输出可能不同（PyTorch issue #121595），"
        "所以这里的结论是在提供本页面的机器上实际测得的。要比较 dropout 掩码，请在同一台机器上运行同样的代码。",
    },
    "repro.dropout.caption": {
        "en": "The book's dropout demo as this machine draws it: kept entries become 1/(1−0.5) = 2, "
        "dropped ones 0.",
        "zh": "这台机器上书中 dropout 示例的结果：保留的元素变为 1/(1−0.5) = 2，丢弃的为 0。",
    },
    "repro.dropout.expander": {
        "en": "This machine's dropout mask for seed 123",
        "zh": "这台机器在随机种子 123 下的 dropout 掩码",
    },
    # the book
    "repro.book.header": {"en": "Matches the book", "zh": "与书中结果一致"},
    "repro.book.intro": {
        "en": "Each example of chapter 3 is run again now, on this machine, and compared with the "
        "numbers the book prints (4 decimals): a value agrees when it rounds to the printed one.",
        "zh": "第 3 章的每个示例现在在这台机器上重新运行，并与书中打印的数字（4 位小数）比较："
        "四舍五入后与打印值相同即为一致。",
    },
    "repro.book.check": {"en": "example", "zh": "示例"},
    "repro.book.recipe": {"en": "code", "zh": "代码"},
    "repro.book.difference": {"en": "largest difference", "zh": "最大差值"},
    "repro.book.result": {"en": "agrees", "zh": "一致"},
    "repro.book.agrees": {"en": "✓", "zh": "✓"},
    "repro.book.differs": {"en": "✗", "zh": "✗"},
    "repro.book.all_pass": {
        "en": "All {count:example|examples} give the book's numbers on this machine.",
        "zh": "全部 {count} 个示例在这台机器上都得到了书中的数字。",
    },
    "repro.book.some_fail": {
        "en": "{failed} of {count:example|examples} differ from the book on this machine.",
        "zh": "{count} 个示例中有 {failed} 个在这台机器上与书中结果不同。",
    },
    "repro.book.numbers": {
        "en": "The book's context vectors (chapter 3, CausalAttention): printed and computed now",
        "zh": "书中的上下文向量（第 3 章，CausalAttention）：书中打印的与现在计算的",
    },
    "repro.book.printed": {"en": "printed", "zh": "书中打印"},
    "repro.book.now": {"en": "now", "zh": "现在"},
    "repro.check.causal_seed_123": {
        "en": "CausalAttention, seed 123 (the book's chapter 3 run)",
        "zh": "CausalAttention，随机种子 123（书中第 3 章的运行）",
    },
    "repro.check.self_attention_v1_seed_123": {
        "en": "SelfAttention_v1, seed 123",
        "zh": "SelfAttention_v1，随机种子 123",
    },
    "repro.check.self_attention_v2_seed_789": {
        "en": "SelfAttention_v2, seed 789",
        "zh": "SelfAttention_v2，随机种子 789",
    },
    "repro.check.masked_weights_seed_789": {
        "en": "Masked attention weights, seed 789, rows 2 and 6",
        "zh": "掩码后的注意力权重，随机种子 789，第 2 行和第 6 行",
    },
    "repro.check.wrapper_seed_123": {
        "en": "MultiHeadAttentionWrapper, 2 heads, seed 123, rows 1 and 6",
        "zh": "MultiHeadAttentionWrapper，2 个头，随机种子 123，第 1 行和第 6 行",
    },
    "repro.check.multi_head_seed_123": {
        "en": "MultiHeadAttention, 2 heads, seed 123",
        "zh": "MultiHeadAttention，2 个头，随机种子 123",
    },
    "repro.check.dropout_ones_seed_123": {
        "en": "Dropout(0.5) on a 6 × 6 matrix of ones, seed 123 (section 3.5.2)",
        "zh": "对 6 × 6 全 1 矩阵做 Dropout(0.5)，随机种子 123（第 3.5.2 节）",
    },
    "repro.check.dropout_weights_seed_123": {
        "en": "Dropout(0.5) on the masked weights, seed 123 (section 3.5.2)",
        "zh": "对掩码后的权重做 Dropout(0.5)，随机种子 123（第 3.5.2 节）",
    },
    # the current view
    "repro.current.header": {"en": "The current view is reproducible", "zh": "当前视图可以复现"},
    "repro.current.intro": {
        "en": "The trace this app shows is computed again from scratch, twice, and every tensor "
        "(weights, scores, mask, weights after dropout, context vectors) is compared bit for bit.",
        "zh": "把应用显示的计算过程从头再算两遍，并逐位比较每个张量"
        "（权重、分数、掩码、dropout 之后的权重、上下文向量）。",
    },
    "repro.current.ok": {
        "en": "Bitwise equal: all {fields:tensor|tensors} are identical in {runs:computation|computations}.",
        "zh": "逐位相同：{runs} 次计算中全部 {fields} 个张量完全一致。",
    },
    "repro.current.fail": {
        "en": "Not reproducible: these tensors differ between computations: {names}.",
        "zh": "无法复现：这些张量在几次计算之间不同：{names}。",
    },
    "repro.current.too_large": {
        "en": "This view has {cells} attention cells (tokens × tokens); it is recomputed for this "
        "check only up to {limit}. Use fewer tokens, or run the exported script twice.",
        "zh": "当前视图有 {cells} 个注意力单元（词元数 × 词元数）；本检查只对不超过 {limit} 个单元的视图"
        "重新计算。请减少词元，或者把导出的脚本运行两次。",
    },
    # the link
    "repro.link.header": {"en": "Share this view", "zh": "分享这个视图"},
    "repro.link.page": {"en": "Page the link opens", "zh": "链接打开的页面"},
    "repro.link.explain": {
        "en": "The link holds the sentence, the embeddings you edited and every setting that "
        "differs from the default. Your browser's address bar always shows the current view's "
        "link: copy it from there, or copy the line below.",
        "zh": "链接包含句子、你编辑过的嵌入向量以及所有与默认值不同的设置。浏览器地址栏始终显示"
        "当前视图的链接：可以从那里复制，也可以复制下面这一行。",
    },
    "repro.link.too_long": {
        "en": "The table is too large for a link: with it the link would be {chars:,|character|characters} "
        "long, and links longer than {limit:,} may not open. The link below holds everything but "
        "the table; send the table as a CSV file with it (upload it on the page Embeddings).",
        "zh": "表格太大，放不进链接：带上它，链接会有 {chars:,} 个字符，而超过 {limit:,} 个字符的"
        "链接可能打不开。下面的链接包含除表格以外的一切；请把表格作为 CSV 文件一并发送"
        "（在“嵌入向量”页面上传）。",
    },
    "repro.link.table_csv": {"en": "Download the table (CSV)", "zh": "下载表格（CSV）"},
    "repro.link.relative": {
        "en": "A link relative to the app's address: put the address of this app "
        "(e.g. http://localhost:8501) in front of it.",
        "zh": "这是相对于应用地址的链接：在前面加上本应用的地址（例如 http://localhost:8501）。",
    },
}
