"""Messages of the shared display helpers."""

MESSAGES = {
    "show.numbers": {"en": "Numbers as a table", "zh": "以表格显示数值"},
    "show.table_alt": {
        "en": "{name}: a {rows} × {cols} table of numbers, coloured by value",
        "zh": "{name}：{rows} × {cols} 的数值表，按数值着色",
    },
    "show.table_csv": {"en": "⤓ Download as CSV", "zh": "⤓ 下载 CSV"},
    "show.legend_alt": {
        "en": "colour legend of {name}: sample values on the scale, then the special cells",
        "zh": "{name} 的颜色图例：色标上的取样值，然后是特殊单元格",
    },
}
