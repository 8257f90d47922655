"""Messages of large matrices (pictures, zoom windows) and the random-tokens generator."""

MESSAGES = {
    # the picture of a large matrix (ui.show.show_matrix)
    "scale.image_note": {
        "en": (
            "{rows} × {cols:number|numbers} drawn as a {height} × {width}-pixel image ({pixel}); grey "
            "= masked ({masked}). {hover}; exact values: «{zoom}» below."
        ),
        "zh": (
            "{rows} × {cols} 个数值绘制为 {height} × {width} 像素的图像（{pixel}）；灰色 = 被掩码"
            "（{masked}）。{hover}；精确数值见下方「{zoom}」。"
        ),
    },
    "scale.hover_cell": {"en": "Hover shows a cell's value", "zh": "悬停显示一个单元格的数值"},
    "scale.hover_block": {
        "en": "Hover shows a block's mean, min and max",
        "zh": "悬停显示一个区块的均值、最小值和最大值",
    },
    "scale.pixel_one": {"en": "one pixel per cell", "zh": "每个单元格一个像素"},
    "scale.pixel_mean": {
        "en": "each pixel is the mean of {fr} × {fc:cell|cells}",
        "zh": "每个像素是 {fr} × {fc} 个单元格的平均值",
    },
    "scale.hover.rows": {"en": "rows", "zh": "行"},
    "scale.hover.columns": {"en": "columns", "zh": "列"},
    "scale.hover.mean": {"en": "mean", "zh": "均值"},
    "scale.hover.min": {"en": "min", "zh": "最小值"},
    "scale.hover.max": {"en": "max", "zh": "最大值"},
    "scale.hover.masked": {"en": "masked (−∞) cells", "zh": "被掩码（−∞）的单元格"},
    # words of any heatmap's hover (ui.show.figure_words)
    "figure.row": {"en": "row", "zh": "行"},
    "figure.column": {"en": "column", "zh": "列"},
    "figure.masked": {"en": "masked", "zh": "被掩码"},
    # the zoom window (exact values of a window of a large matrix)
    "scale.zoom.title": {
        "en": "Exact values: zoom into a window of the matrix",
        "zh": "精确数值：放大查看矩阵的一个窗口",
    },
    "scale.zoom.first_row": {"en": "First row", "zh": "起始行"},
    "scale.zoom.first_col": {"en": "First column", "zh": "起始列"},
    "scale.zoom.size": {"en": "Window size", "zh": "窗口大小"},
    "scale.zoom.help": {
        "en": "Positions count from 1, like the axis ticks. The window shows at most {limit} × "
        "{limit:cell|cells}, with the same colour scale as the whole matrix.",
        "zh": "位置从 1 开始计数，与坐标轴刻度一致。窗口最多显示 {limit} × {limit} 个单元格，"
        "颜色刻度与整个矩阵相同。",
    },
    "scale.zoom.caption": {
        "en": "Rows {r0}–{r1} and columns {c0}–{c1} of {rows} × {cols}; labels are «position · "
        "token».",
        "zh": "{rows} × {cols} 中的第 {r0}–{r1} 行、第 {c0}–{c1} 列；标签为「位置 · 词元」。",
    },
    # the random-tokens generator (sidebar)
    "scale.random.title": {"en": "Random tokens (long sequences)", "zh": "随机词元（长序列）"},
    "scale.random.count": {"en": "Number of tokens", "zh": "词元数量"},
    "scale.random.count_help": {
        "en": "Replaces the sentence by this many made-up words (the same words for the same "
        "number and seed). Up to {limit:token|tokens}: GPT-2's context is 1024, many models use 4096. "
        "context_length follows the number of tokens.",
        "zh": "用这么多个编造的词替换句子（数量和种子相同则词相同）。最多 {limit} 个词元：GPT-2 的"
        "上下文长度为 1024，许多模型使用 4096。context_length 随词元数量变化。",
    },
    "scale.random.generate": {"en": "Generate", "zh": "生成"},
    "scale.random.done": {
        "en": "The sentence now has {count} random tokens.",
        "zh": "句子现在有 {count} 个随机词元。",
    },
}
