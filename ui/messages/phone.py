"""What a phone shows besides the sidebar: the step page's dropout presets in the page."""

from __future__ import annotations

MESSAGES = {
    "phone.dropout_presets": {
        "en": "Dropout rate p (also in the sidebar): off, a usual rate, the book's rate",
        "zh": "Dropout 比率 p（侧边栏中也有）：关闭、常用值、书中的比率",
    }
}
