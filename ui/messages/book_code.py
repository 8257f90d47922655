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
}
