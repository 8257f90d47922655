"""Messages of the shared display helpers."""

MESSAGES = {
    "show.numbers": {"en": "Numbers as a table", "zh": "以表格显示数值"},
}
