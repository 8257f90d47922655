"""Messages of the Embeddings page (``pages/embeddings.py``)."""

MESSAGES = {
    "embeddings.intro": {
        "en": "An **embedding** is a list of numbers that stands for a token: one row of the "
        "table below, one point in the plot. Attention only ever sees these numbers, never the "
        "words: change a number and every result of the layer changes; rename a token and only "
        "the labels do.",
        "zh": "**嵌入向量**是代表一个词元的一组数字：下表中的一行，图中的一个点。"
        "注意力只看得到这些数字，看不到词本身：改动一个数字，层的每个结果都会变；"
        "给词元改名，只有标签会变。",
    },
    "embeddings.table_header": {"en": "The embedding table", "zh": "嵌入向量表"},
    "embeddings.table_help": {
        "en": "Click or tap a cell twice to edit it. Add a token in the empty last row: it starts as a word "
        "(a placeholder until you type one) with that word's embedding, and follows the word you "
        "type until you type numbers of your own. Select rows on the left and press the bin icon "
        "to delete them. Type a new sentence in the sidebar's **Sentence** box to replace all "
        "tokens at once.",
        "zh": "在单元格上点击或轻点两次即可编辑。在最后的空行中添加词元：新行从一个词（未输入时为占位词）及其嵌入向量开始，"
        "并随你输入的词改变，直到你输入自己的数字为止。在左侧选中行后点击垃圾桶图标即可删除。"
        "在侧边栏的**句子**输入框中输入新句子，可一次替换所有词元。",
    },
    "embeddings.d_in": {
        "en": "Embedding size d_in (numbers per token)",
        "zh": "嵌入维度 d_in（每个词元的数字个数）",
    },
    "embeddings.d_in_help": {
        "en": "Changing it gives every token new reproducible values of this size (your edits "
        "are replaced). The book's six words keep the book's vectors at d_in = 3.",
        "zh": "修改它会为每个词元生成该维度的新的可复现数值（你的编辑会被替换）。"
        "在 d_in = 3 时，书中的六个词保留书中的向量。",
    },
    "embeddings.d_in_note": {
        "en": "Changing d_in regenerates every row (reproducible values in [0, 1), two decimals). "
        "At d_in = 3 the book's six words get the book's vectors back.",
        "zh": "修改 d_in 会重新生成每一行（[0, 1) 之间、两位小数的可复现数值）。"
        "在 d_in = 3 时，书中的六个词会恢复书中的向量。",
    },
    "embeddings.reset": {"en": "Reset to the book", "zh": "恢复为书中的例子"},
    "embeddings.reset_help": {
        "en": "“Your journey starts with one step” with the book's 3-dimensional embeddings.",
        "zh": "“Your journey starts with one step”，使用书中的 3 维嵌入向量。",
    },
    "embeddings.files_header": {"en": "Load or save the table", "zh": "加载或保存表格"},
    "embeddings.upload": {
        "en": "Upload a CSV file (at most {megabytes} MB)",
        "zh": "上传 CSV 文件（最大 {megabytes} MB）",
    },
    "embeddings.upload_help": {
        "en": "First line: token,x1,x2,… then one token per line, at most {megabytes} MB. The same format "
        "as the download, which writes a token that starts with = + - @ with a leading ' (so "
        "that a spreadsheet does not run it as a formula); the upload removes that ' again.",
        "zh": "第一行：token,x1,x2,…，之后每行一个词元，最大 {megabytes} MB。与下载的格式相同：下载时以 "
        "= + - @ 开头的词元前面会加一个 '（以免电子表格把它当作公式执行），上传时会再去掉这个 '。",
    },
    "embeddings.upload_failed": {
        "en": "The uploaded file “{name}” was not used: {detail} The table is unchanged.",
        "zh": "上传的文件“{name}”未被使用：{detail} 表格保持不变。",
    },
    "embeddings.upload_loaded": {
        "en": "Loaded the file: {rows:token|tokens} with d_in = {d_in}.",
        "zh": "已加载文件：{rows} 个词元，d_in = {d_in}。",
    },
    "embeddings.download": {"en": "Download the table as CSV", "zh": "下载表格（CSV）"},
    "embeddings.plot_header": {"en": "The embeddings as points", "zh": "嵌入向量作为点"},
    "embeddings.plot_3d_all": {
        "en": "Each token is a point at (x1, x2, x3). Drag to turn the plot.",
        "zh": "每个词元是位于 (x1, x2, x3) 的一个点。拖动可旋转图形。",
    },
    "embeddings.plot_3d_first": {
        "en": "d_in = {d_in}: the plot shows the first three numbers x1, x2, x3 of each token; "
        "the other {rest} are not drawn (hover a point to read them). Drag to turn the plot.",
        "zh": "d_in = {d_in}：图中显示每个词元的前三个数字 x1、x2、x3；"
        "其余 {rest} 个未画出（将鼠标悬停在点上可读取）。拖动可旋转图形。",
    },
    "embeddings.plot_2d": {
        "en": "d_in = 2: each token is a point at (x1, x2).",
        "zh": "d_in = 2：每个词元是位于 (x1, x2) 的一个点。",
    },
    "embeddings.plot_1d": {
        "en": "d_in = 1: each token is a single number, a point on a line.",
        "zh": "d_in = 1：每个词元只是一个数字，即直线上的一个点。",
    },
    "embeddings.plot_title": {"en": "Token embeddings", "zh": "词元嵌入向量"},
    "embeddings.plot_alt_3d": {
        "en": "{title}: {count:token|tokens} as points in 3-D, axes x1, x2, x3. Drag or use the arrow "
        "keys to turn it.",
        "zh": "{title}：{count} 个词元作为三维空间中的点，坐标轴 x1、x2、x3。拖动或使用方向键可旋转。",
    },
    "embeddings.plot_alt_2d": {
        "en": "{title}: {count:token|tokens} as points on a plane, axes x1 and x2.",
        "zh": "{title}：{count} 个词元作为平面上的点，坐标轴 x1 和 x2。",
    },
    "embeddings.plot_alt_1d": {
        "en": "{title}: {count:token|tokens} as points on a line, axis x1.",
        "zh": "{title}：{count} 个词元作为直线上的点，坐标轴 x1。",
    },
    "embeddings.next": {
        "en": "Next: the layer multiplies each row by W_query, W_key and W_value. See one query "
        "worked out by hand on the page **One query, by hand**.",
        "zh": "下一步：层把每一行分别乘以 W_query、W_key 和 W_value。"
        "在**手算一个查询**页面可以看到一个查询的完整手算过程。",
    },
}
