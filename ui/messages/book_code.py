"""Messages of the book's code shown beside a step (``ui/book_code.py``)."""

MESSAGES = {
    "book_code.expander": {
        "en": "The book's code: the lines of {cls} that compute this",
        "zh": "书中的代码：{cls} 中计算这一步的语句",
    },
    "book_code.caption": {
        "en": "{cls} as attention/modules.py writes it; {marker} marks lines {lines}.",
        "zh": "attention/modules.py 中的 {cls}；{marker} 标出第 {lines} 行。",
    },
    "book_code.multi_head.expander": {
        "en": "The book's code: MultiHeadAttention, stage by stage",
        "zh": "书中的代码：MultiHeadAttention，逐个阶段",
    },
    "book_code.stage.choose": {"en": "Stage", "zh": "阶段"},
    "book_code.stage.split": {"en": "Split into heads (view)", "zh": "拆分成多个头（view）"},
    "book_code.stage.transpose": {"en": "Heads first (transpose)", "zh": "头放到前面（transpose）"},
    "book_code.stage.mask": {"en": "Causal mask, every head", "zh": "每个头的因果掩码"},
    "book_code.stage.weights": {"en": "Softmax and dropout", "zh": "softmax 与 dropout"},
    "book_code.stage.join": {
        "en": "Join the heads (contiguous view)",
        "zh": "合并各头（contiguous view）",
    },
    "book_code.stage.out_proj": {"en": "out_proj", "zh": "输出投影 out_proj"},
}
