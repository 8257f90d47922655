"""Messages of the shared display helpers."""

MESSAGES = {
    "show.changed_cell": {
        "en": "changed by the last edit or setting change",
        "zh": "被上一次编辑或设置改动改变了",
    },
    "show.changed_legend": {
        "en": "Outlined cells: what the last edit or setting change moved in this matrix.",
        "zh": "带边框的单元格：上一次编辑或设置改动在这个矩阵里改变的数。",
    },
    "show.scroll_hint": {
        "en": "← The table is wider than the screen: swipe or scroll it sideways →",
        "zh": "← 表格比屏幕宽：左右滑动或滚动查看 →",
    },
    "show.table_alt": {
        "en": "{name}: a {rows} × {cols} table of numbers, coloured by value",
        "zh": "{name}：{rows} × {cols} 的数值表，按数值着色",
    },
    "show.image_alt": {
        "en": "{name}: a {rows} × {cols} matrix drawn as a picture, coloured by value",
        "zh": "{name}：{rows} × {cols} 的矩阵，绘制为按数值着色的图像",
    },
    "show.image_png": {"en": "⤓ Download as PNG", "zh": "⤓ 下载 PNG"},
    "show.table_csv": {"en": "⤓ Download as CSV", "zh": "⤓ 下载 CSV"},
    "show.chart_svg": {"en": "⤓ Download as SVG", "zh": "⤓ 下载 SVG"},
    "show.chart_reset": {"en": "Reset view", "zh": "复位视角"},
    "show.legend_alt": {
        "en": "colour legend of {name}: sample values on the scale, then the special cells",
        "zh": "{name} 的颜色图例：色标上的取样值，然后是特殊单元格",
    },
}
