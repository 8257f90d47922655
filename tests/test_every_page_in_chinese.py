"""Every page in Chinese, without a browser: it runs, shows its Chinese title and sidebar.

The browser walk (``tests/e2e/test_navigation.py``) opens every page by its sidebar link once,
in English after the language switch. What each page shows in Chinese is checked here, page by
page, with a link's settings in the URL (``lang=zh``, a seed, a dropout and a sentence): the
sidebar shows them in its widgets, labelled in Chinese, wherever the page has those widgets.
"""

from __future__ import annotations

import re

from tests.apptest_support import SETTINGS_PAGES, run_page
from tests.cases import subcases
from ui.frame import PAGE_SPECS
from ui.i18n import t

CJK = re.compile(r"[\u4e00-\u9fff]")
QUERY = {"lang": "zh", "seed": "7", "dropout": "0.5", "text": "the cat sat"}


@subcases("name", [spec.name for spec in PAGE_SPECS])
def test_every_page_runs_in_chinese_with_its_title_and_sidebar(name: str) -> None:
    at = run_page(name, QUERY)
    assert not at.exception, [str(e.value)[:500] for e in at.exception]
    title = t(f"page.{name}.title", lang="zh")
    assert CJK.search(title), title
    assert [element.value for element in at.title][:1] == [title]
    sidebar = at.sidebar
    language = [box.value for box in sidebar.selectbox if box.label == t("sidebar.lang", lang="zh")]
    assert language == ["zh"], [box.label for box in sidebar.selectbox]
    shown = {
        "seed": [w.value for w in sidebar.number_input if w.label == t("sidebar.seed", lang="zh")],
        "dropout": [w.value for w in sidebar.slider if w.label == t("sidebar.dropout", lang="zh")],
        "text": [w.value for w in sidebar.text_input if w.label == t("sidebar.text", lang="zh")],
    }
    wanted = {"seed": 7, "dropout": 0.5, "text": "the cat sat"}
    for key, values in shown.items():
        if name in SETTINGS_PAGES:
            assert values, (name, key, "not in the sidebar")
        assert values in ([], [wanted[key]]), (name, key, values)
