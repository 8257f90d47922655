"""Messages of the Export page (keys start with ``export.``)."""

MESSAGES = {
    "export.intro": {
        "en": "Take the current view home: every matrix as a CSV file, the whole trace as JSON, "
        "and a short Python script that computes the same context vectors with the book's recipe.",
        "zh": "把当前视图带走：每个矩阵一个 CSV 文件，整个计算过程一个 JSON 文件，"
        "再加一段用书中方法算出相同上下文向量的 Python 脚本。",
    },
    "export.layer": {"en": "Layer to export", "zh": "要导出的注意力层"},
    "export.layer_help": {
        "en": "One CausalAttention head, as on most pages, or the multi-head classes with the "
        "number of heads chosen in the sidebar.",
        "zh": "与大多数页面一样导出单个 CausalAttention 头，或者按侧边栏中的头数导出多头注意力类。",
    },
    "export.layer.hint": {
        "en": "Exporting one CausalAttention head. Set the number of heads in the sidebar above 1 "
        "to export a multi-head layer instead.",
        "zh": "当前导出单个 CausalAttention 头。把侧边栏中的头数设为大于 1，即可导出多头注意力层。",
    },
    "export.layer.single": {"en": "CausalAttention (one head)", "zh": "CausalAttention（单头）"},
    "export.layer.fused": {
        "en": "MultiHeadAttention ({heads:head|heads})",
        "zh": "MultiHeadAttention（{heads} 个头）",
    },
    "export.layer.wrapper": {
        "en": "MultiHeadAttentionWrapper ({heads:head|heads})",
        "zh": "MultiHeadAttentionWrapper（{heads} 个头）",
    },
    "export.summary": {
        "en": "{tokens:token|tokens} · d_in = {d_in} · seed {seed} · d_out = {d_out} · dropout p = "
        "{dropout} · {mode} · qkv_bias = {bias}",
        "zh": "{tokens} 个词元 · d_in = {d_in} · 随机种子 {seed} · d_out = {d_out} · dropout p = "
        "{dropout} · {mode} · qkv_bias = {bias}",
    },
    "export.mode.eval": {"en": "evaluation mode", "zh": "评估模式"},
    "export.download.header": {"en": "Download", "zh": "下载"},
    "export.zip.label": {
        "en": "All matrices (zip of CSV files)",
        "zh": "所有矩阵（CSV 文件的 zip 压缩包）",
    },
    "export.zip.help": {
        "en": "One CSV per matrix, a README, the JSON and the Python script.",
        "zh": "每个矩阵一个 CSV，另含说明文件 README、JSON 文件和 Python 脚本。",
    },
    "export.json.label": {"en": "The whole trace (JSON)", "zh": "整个计算过程（JSON）"},
    "export.json.help": {
        "en": "Every tensor as nested lists (null = −∞), with the tokens, the settings and the "
        "torch version.",
        "zh": "每个张量都是嵌套列表（null 表示 −∞），并附带词元、设置和 torch 版本。",
    },
    "export.py.label": {"en": "Download this script (.py)", "zh": "下载这个脚本（.py）"},
    "export.py.help.book": {
        "en": "Needs only PyTorch: save it in any folder and run python {file}",
        "zh": "只需要 PyTorch：保存到任意文件夹，然后运行 python {file}",
    },
    "export.py.help.trace": {
        "en": "Needs the attention package (pip install, see the script's first lines); then run "
        "python {file} in any folder",
        "zh": "需要 attention 包（用 pip 安装，见脚本开头几行）；然后在任意文件夹中运行 python {file}",
    },
    "export.csv_notes": {
        "en": "In every CSV the first column holds the row labels (tokens for the steps, x1, x2, … "
        "for the rows of a weight matrix) and the first row the column labels. Numbers read back "
        "as exactly the float32 values the app computed; a hidden score is written -inf; in the "
        "masks 1 means hidden (mask) or kept (dropout_mask). A token that starts with = + - @ (or a "
        "tab) is written with a leading ' so that a spreadsheet does not run it as a formula.",
        "zh": "每个 CSV 的第一列是行标签（各步骤为词元，权重矩阵为 x1、x2、…），第一行是列标签。"
        "数值读回后与应用计算出的 float32 完全相同；被遮蔽的分数写作 -inf；掩码中 1 表示被遮蔽"
        "（mask）或被保留（dropout_mask）。以 = + - @（或制表符）开头的词元前面会加一个 '，"
        "以免电子表格把它当作公式执行。",
    },
    "export.files.expander": {"en": "What is in the zip", "zh": "压缩包里有什么"},
    "export.files.file": {"en": "file", "zh": "文件"},
    "export.files.contents": {"en": "contents", "zh": "内容"},
    "export.preview.label": {"en": "Preview a CSV file", "zh": "预览一个 CSV 文件"},
    "export.too_large": {
        "en": "This view has {cells} attention cells (heads × tokens × tokens); CSV and JSON "
        "downloads are offered up to {limit}. The Python script below still reproduces it.",
        "zh": "当前视图有 {cells} 个注意力单元（头数 × 词元数 × 词元数）；CSV 和 JSON 下载最多支持 "
        "{limit} 个。下面的 Python 脚本仍然可以复现它。",
    },
    "export.reproduce.header": {"en": "Reproduce this", "zh": "复现这个结果"},
    "export.reproduce.intro": {
        "en": "The script holds the exact embeddings and settings and prints the context vectors "
        "below, then the same numbers at full precision. The book's recipe needs only PyTorch: it "
        "defines the book's class itself, so it runs in any folder. The trace_attention script "
        "needs the attention package; its first lines say how to install it.",
        "zh": "脚本里写有精确的嵌入向量和设置，会打印下面的上下文向量，然后以完整精度再打印一遍。"
        "书中的方法只需要 PyTorch：脚本自己定义了书中的类，所以在任何文件夹中都能运行。"
        "trace_attention 脚本需要 attention 包，脚本开头几行写明了安装方法。",
    },
    "export.style.label": {"en": "Script style", "zh": "脚本写法"},
    "export.style.book": {
        "en": "The book's recipe (torch.manual_seed, the class, .train()/.eval())",
        "zh": "书中的方法（torch.manual_seed、注意力类、.train()/.eval()）",
    },
    "export.style.trace": {
        "en": "trace_attention (every intermediate step)",
        "zh": "trace_attention（得到每个中间步骤）",
    },
    "export.reproduce.expected": {
        "en": "What the script prints (the layer's output, one row per token)",
        "zh": "脚本打印的结果（注意力层的输出，每个词元一行）",
    },
    "export.snippet_too_long": {
        "en": "The script is {chars:character|characters} long (the embeddings of {tokens:token|tokens}): too "
        "long to show here. Download it with the button.",
        "zh": "脚本长 {chars} 个字符（{tokens} 个词元的嵌入向量），太长无法在此显示。请用按钮下载。",
    },
    # what each file holds
    "export.file.README.txt": {
        "en": "what each file holds, and the settings",
        "zh": "每个文件的说明以及设置",
    },
    "export.file.inputs": {
        "en": "the embedding vectors x, one row per token",
        "zh": "嵌入向量 x，每个词元一行",
    },
    "export.file.W_query": {
        "en": "query weights: x @ W_query = queries",
        "zh": "查询权重：x @ W_query = 查询向量",
    },
    "export.file.W_key": {
        "en": "key weights: x @ W_key = keys",
        "zh": "键权重：x @ W_key = 键向量",
    },
    "export.file.W_value": {
        "en": "value weights: x @ W_value = values",
        "zh": "值权重：x @ W_value = 值向量",
    },
    "export.file.b_query": {"en": "query bias (qkv_bias)", "zh": "查询偏置（qkv_bias）"},
    "export.file.b_key": {"en": "key bias (qkv_bias)", "zh": "键偏置（qkv_bias）"},
    "export.file.b_value": {"en": "value bias (qkv_bias)", "zh": "值偏置（qkv_bias）"},
    "export.file.queries": {"en": "query vectors q", "zh": "查询向量 q"},
    "export.file.keys": {"en": "key vectors k", "zh": "键向量 k"},
    "export.file.values": {"en": "value vectors v", "zh": "值向量 v"},
    "export.file.attn_scores": {
        "en": "attention scores q · k (rows = queries, columns = keys)",
        "zh": "注意力分数 q · k（行 = 查询，列 = 键）",
    },
    "export.file.mask": {
        "en": "the causal mask: 1 = a future token, hidden",
        "zh": "因果掩码：1 = 未来的词元，被遮蔽",
    },
    "export.file.masked_scores": {
        "en": "scores with the future set to -inf",
        "zh": "未来位置设为 -inf 的分数",
    },
    "export.file.scaled_scores": {
        "en": "masked scores divided by √d_k",
        "zh": "掩码后的分数除以 √d_k（缩放）",
    },
    "export.file.attn_weights": {
        "en": "attention weights: softmax of each row",
        "zh": "注意力权重：每一行做 softmax 归一化",
    },
    "export.file.dropout_mask": {
        "en": "dropout's keep-mask: 1 = kept, 0 = dropped",
        "zh": "dropout 的保留掩码：1 = 保留，0 = 丢弃",
    },
    "export.file.dropped_weights": {
        "en": "weights after dropout (kept ones × 1/(1−p))",
        "zh": "dropout 之后的权重（保留的乘以 1/(1−p)）",
    },
    "export.file.head_context": {"en": "each head's context vectors", "zh": "每个头的上下文向量"},
    "export.file.context": {
        "en": "context vectors z = weights @ values",
        "zh": "上下文向量 z = 权重 @ 值向量",
    },
    "export.file.W_out": {
        "en": "out_proj weights of MultiHeadAttention",
        "zh": "MultiHeadAttention 的 out_proj 权重",
    },
    "export.file.b_out": {
        "en": "out_proj bias of MultiHeadAttention",
        "zh": "MultiHeadAttention 的 out_proj 偏置",
    },
    "export.file.output": {
        "en": "the layer's output: out_proj(context)",
        "zh": "注意力层的输出：out_proj(上下文向量)",
    },
    "export.file.trace.json": {
        "en": "the whole trace (null = −∞), tokens, settings, versions",
        "zh": "整个计算过程（null = −∞）、词元、设置、版本",
    },
    "export.file.reproduce_attention.py": {
        "en": "the book's recipe (needs only PyTorch): prints the same context vectors",
        "zh": "书中的方法（只需要 PyTorch）：打印相同的上下文向量",
    },
}
