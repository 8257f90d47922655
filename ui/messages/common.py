"""Messages shared by every page: the frame, the sidebar, the table, URL and upload problems."""

MESSAGES = {
    # frame
    "nav.learn": {"en": "Learn", "zh": "学习"},
    "nav.explore": {"en": "Explore", "zh": "探索"},
    # sidebar
    "sidebar.lang": {"en": "Language", "zh": "语言"},
    "sidebar.text": {"en": "Sentence (tokens split on spaces)", "zh": "句子（按空格切分词元）"},
    "sidebar.text_help": {
        "en": "Each word becomes a token. The book's words keep the book's embeddings; any other "
        "word gets reproducible values. Edit single values on the Embeddings page.",
        "zh": "每个词是一个词元。书中的词保留书中的嵌入向量；其他词得到可复现的数值。"
        "在“嵌入向量”页面可以编辑单个数值。",
    },
    "sidebar.seed": {"en": "Seed (torch.manual_seed)", "zh": "随机种子（torch.manual_seed）"},
    "sidebar.seed_help": {
        "en": "Fixes the random weights W_query, W_key, W_value and the dropout mask. "
        "123 is the book's seed.",
        "zh": "固定随机权重 W_query、W_key、W_value 以及 dropout 掩码。123 是书中的种子。",
    },
    "sidebar.dropout": {"en": "Dropout rate p", "zh": "Dropout 比率 p"},
    "sidebar.dropout_help": {
        "en": "Each attention weight is dropped (set to 0) with probability p; kept weights are "
        "multiplied by 1/(1−p). Only in training mode.",
        "zh": "每个注意力权重以概率 p 被丢弃（置 0）；保留的权重乘以 1/(1−p)。仅在训练模式下生效。",
    },
    "sidebar.train": {"en": "Training mode (module.train())", "zh": "训练模式（module.train()）"},
    "sidebar.train_help": {
        "en": "Dropout acts only in training mode, as in PyTorch. Off = module.eval().",
        "zh": "与 PyTorch 一样，dropout 只在训练模式下生效。关闭 = module.eval()。",
    },
    "sidebar.d_out": {"en": "Output width d_out", "zh": "输出维度 d_out"},
    "sidebar.d_out_help": {
        "en": "Width of the query, key and value vectors (and of each context vector).",
        "zh": "查询、键、值向量（以及每个上下文向量）的维度。",
    },
    "sidebar.qkv_bias": {
        "en": "Bias in W_query, W_key, W_value (qkv_bias)",
        "zh": "W_query、W_key、W_value 带偏置（qkv_bias）",
    },
    "sidebar.qkv_bias_help": {
        "en": "nn.Linear(d_in, d_out, bias=qkv_bias): adds a trainable bias to each projection.",
        "zh": "nn.Linear(d_in, d_out, bias=qkv_bias)：为每个投影加上可训练的偏置。",
    },
    "sidebar.heads": {"en": "Number of heads (Multi-head page)", "zh": "头数（多头注意力页面）"},
    "sidebar.heads_help": {
        "en": "Used on the Multi-head page; the other pages show one CausalAttention head.",
        "zh": "用于多头注意力页面；其他页面展示单个 CausalAttention 头。",
    },
    "sidebar.batch": {
        "en": "Batch size (copies of the sentence)",
        "zh": "批次大小（句子的副本数）",
    },
    "sidebar.batch_help": {
        "en": "The book stacks its sentence twice: batch = torch.stack((inputs, inputs)), shape "
        "(2, 6, 3). The layer runs on every copy; the pages show copy 0. With dropout each copy "
        "draws its own mask.",
        "zh": "书中把句子堆叠两次：batch = torch.stack((inputs, inputs))，形状为 (2, 6, 3)。"
        "该层在每个副本上运行；各页面显示第 0 个副本。有 dropout 时每个副本各自抽取掩码。",
    },
    "sidebar.window": {"en": "Sliding window (0 = off)", "zh": "滑动窗口（0 = 关闭）"},
    "sidebar.window_help": {
        "en": "Each token sees only itself and the tokens before it, at most window − 1 of them: the mask also hides "
        "keys that are window or more tokens back. 0: the book's causal mask.",
        "zh": "每个词元只看到它自己和它前面的 window − 1 个词元：掩码还会隐藏向前 window 个及更远的键。"
        "0：书中的因果掩码。",
    },
    "sidebar.palette": {"en": "Colours", "zh": "配色"},
    "sidebar.palette.default": {"en": "Standard", "zh": "标准"},
    "sidebar.palette.colorblind": {"en": "Colour-blind safe", "zh": "色盲友好"},
    # one vocabulary and one rounding (viz/vocabulary.py), explained once
    "glossary.line": {
        "en": "Names on every page: x1, x2, … are the features of an embedding; q1, k1, v1, … "
        "those of a query, key and value vector; z1, z2, … those of a context vector (the book's "
        "z). Numbers are rounded to {decimals:decimal|decimals}; a chart's hover shows {hover}.",
        "zh": "各页面统一的名称：x1、x2、… 是嵌入向量的分量；q1、k1、v1、… 是查询、键、值向量的分量；"
        "z1、z2、… 是上下文向量的分量（书中记作 z）。数字保留 {decimals} 位小数；"
        "图表的悬停提示显示 {hover} 位。",
    },
    # the embedding table
    "table.token_help": {"en": "The token's label (no spaces).", "zh": "词元的标签（不含空格）。"},
    "table.value_help": {
        "en": "One component of the token's embedding vector.",
        "zh": "词元嵌入向量的一个分量。",
    },
    "table.problem": {
        "en": "{detail} The results below still show the last valid table.",
        "zh": "{detail} 下面的结果仍然显示上一个有效的表格。",
    },
    "table.new_token": {"en": "token{n}", "zh": "词元{n}"},
    "table.stale_notice": {
        "en": "The embedding table being edited has an error, so every number shown here is "
        "still computed from the last valid table ({tokens:token|tokens}: “{sentence}”). Fix the "
        "table to update them.",
        "zh": "正在编辑的嵌入表格有错误，所以这里显示的所有数字仍然来自上一个有效的表格"
        "（{tokens} 个词元：“{sentence}”）。修正表格后数字才会更新。",
    },
    "table.stale_link": {
        "en": "Fix the table on the Embeddings page",
        "zh": "到“嵌入向量”页面修正表格",
    },
    "table.no_rows": {
        "en": "The table has no rows: add at least one token.",
        "zh": "表格没有行：请至少添加一个词元。",
    },
    "table.no_columns": {"en": "The table has no value columns.", "zh": "表格没有数值列。"},
    "table.too_many_rows": {
        "en": "Too many tokens: {rows}; at most {limit}.",
        "zh": "词元过多：{rows} 个；最多 {limit} 个。",
    },
    "table.too_many_columns": {
        "en": "Too many columns: {columns}; at most {limit}.",
        "zh": "列数过多：{columns}；最多 {limit}。",
    },
    "table.empty_token": {
        "en": "Row {row}: the token label is empty.",
        "zh": "第 {row} 行：词元标签为空。",
    },
    "table.space_in_token": {
        "en": "Row {row}: the token “{token}” contains a space; a token is one word.",
        "zh": "第 {row} 行：词元“{token}”包含空格；一个词元是一个词。",
    },
    "table.long_token": {
        "en": "Row {row}: the token is longer than 100 characters.",
        "zh": "第 {row} 行：词元超过 100 个字符。",
    },
    "table.empty_cell": {
        "en": "Row {row} (“{token}”), column {column}: the cell is empty.",
        "zh": "第 {row} 行（“{token}”），{column} 列：单元格为空。",
    },
    "table.not_a_number": {
        "en": "Row {row} (“{token}”), column {column}: “{text}” is not a number.",
        "zh": "第 {row} 行（“{token}”），{column} 列：“{text}”不是数字。",
    },
    "table.not_finite": {
        "en": "Row {row} (“{token}”), column {column}: “{text}” is not a finite number (NaN and infinity cannot be used).",
        "zh": "第 {row} 行（“{token}”），{column} 列：“{text}”不是有限数（不能使用 NaN 或无穷大）。",
    },
    "table.too_large": {
        "en": "Row {row} (“{token}”), column {column}: {text} is too large; values must lie within ±{limit} so that attention scores fit in float32.",
        "zh": "第 {row} 行（“{token}”），{column} 列：{text} 太大；数值必须在 ±{limit} 以内，注意力分数才能用 float32 表示。",
    },
    # sentence
    "text.empty": {
        "en": "The sentence is empty: type at least one word.",
        "zh": "句子为空：请至少输入一个词。",
    },
    "text.too_many_words": {
        "en": "The sentence has {words:word|words}; at most {limit:token|tokens} are supported.",
        "zh": "句子有 {words} 个词；最多支持 {limit} 个词元。",
    },
    "text.too_long_chars": {
        "en": "The sentence has {chars:character|characters}; at most {limit}.",
        "zh": "句子有 {chars} 个字符；最多 {limit} 个。",
    },
    # URL
    "url.not_integer": {
        "en": "Link: “{name}={value}” is not a whole number; the default is used instead.",
        "zh": "链接：“{name}={value}”不是整数；已改用默认值。",
    },
    "url.not_number": {
        "en": "Link: “{name}={value}” is not a number; the default is used instead.",
        "zh": "链接：“{name}={value}”不是数字；已改用默认值。",
    },
    "url.out_of_range": {
        "en": "Link: “{name}={value}” is outside {low} to {high}; the default is used instead.",
        "zh": "链接：“{name}={value}”超出 {low} 到 {high} 的范围；已改用默认值。",
    },
    "url.not_bool": {
        "en": "Link: “{name}={value}” should be true or false; the default is used instead.",
        "zh": "链接：“{name}={value}”应为 true 或 false；已改用默认值。",
    },
    "url.not_choice": {
        "en": "Link: “{name}={value}” is not one of {choices}; the default is used instead.",
        "zh": "链接：“{name}={value}”不是 {choices} 之一；已改用默认值。",
    },
    "url.bad_param": {
        "en": "Link: “{name}” cannot be used: {detail} The default is used instead.",
        "zh": "链接：“{name}”无法使用：{detail} 已改用默认值。",
    },
    "url.rounded": {
        "en": "Link: “{name}={value}” was rounded to {used} (the control moves in steps of "
        "{step}).",
        "zh": "链接：“{name}={value}”已舍入为 {used}（该控件的步长为 {step}）。",
    },
    "url.unknown": {
        "en": "Link: the parameter “{name}” is unknown and was ignored.",
        "zh": "链接：未知参数“{name}”，已忽略。",
    },
    "url.unknown_many": {
        "en": "Link: {count:,|parameter|parameters} are unknown and were ignored: {names}.",
        "zh": "链接：{count:,} 个未知参数，已忽略：{names}。",
    },
    "url.too_many_fields": {
        "en": "Link: it has {count:,|parameter|parameters}, more than the {limit:,} the server reads, so "
        "none of them was used and the page shows its defaults. Links the app writes have a few "
        "dozen at most.",
        "zh": "链接：它有 {count:,} 个参数，超过服务器读取的上限 {limit:,} 个，因此一个也没有使用，"
        "页面显示的是默认值。本应用写出的链接最多只有几十个参数。",
    },
    "url.table_left_out": {
        "en": "This table is too large for a link ({chars:,|character|characters}; links of at most "
        "{limit:,} open everywhere): the address leaves it out. To share it, download it as a "
        "CSV file (page Reproducibility or Embeddings).",
        "zh": "这个表格太大，放不进链接（{chars:,} 个字符；最多 {limit:,} 个字符的链接才能在各处打开）："
        "地址栏里的链接不含它。要分享它，请把它下载为 CSV 文件（“可复现性”或“嵌入向量”页面）。",
    },
    "url.emb_rows": {
        "en": "it has {rows:row|rows} but the sentence has {words:word|words}.",
        "zh": "它有 {rows} 行，但句子有 {words} 个词。",
    },
    "url.emb_ragged": {
        "en": "row {row} has {got:value|values}, the first row has {expected}.",
        "zh": "第 {row} 行有 {got} 个数值，第一行有 {expected} 个。",
    },
    # uploads
    "upload.too_large": {
        "en": "The file is {size:byte|bytes}; at most {limit:byte|bytes} are accepted.",
        "zh": "文件大小为 {size} 字节；最多接受 {limit} 字节。",
    },
    "upload.binary": {"en": "The file is not a text CSV file.", "zh": "该文件不是文本 CSV 文件。"},
    "upload.not_utf8": {"en": "The file is not UTF-8 text.", "zh": "该文件不是 UTF-8 文本。"},
    "upload.bad_csv": {
        "en": "The file is not valid CSV ({detail}).",
        "zh": "该文件不是有效的 CSV（{detail}）。",
    },
    "upload.empty": {"en": "The file is empty.", "zh": "文件为空。"},
    "upload.header": {
        "en": "The first line must be the header token,x1,x2,… (found “{header}”).",
        "zh": "第一行必须是表头 token,x1,x2,…（实际为“{header}”）。",
    },
    "upload.ragged": {
        "en": "Data row {row} has {got:cell|cells}; the header has {expected}.",
        "zh": "第 {row} 个数据行有 {got} 个单元格；表头有 {expected} 个。",
    },
    # errors from the core
    "error.attention": {
        "en": "These settings cannot be computed: {detail}",
        "zh": "无法按这些设置计算：{detail}",
    },
}
