"""Every matrix goes through one renderer: ``ui.show.show_matrix`` and its one component.

At 6 × 6 the component gets a coloured table of the numbers, at 64 × 64 and 1024 × 1024 a picture
(one colour per cell, or per block of cells); each is one element in its matrix's container,
its legend inside, and no Plotly heatmap is drawn for any of them, nor anywhere in the product.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.apptest_support import matrix_components

ROOT = Path(__file__).resolve().parents[1]
SIZES = (6, 64, 1024)


def _three_sizes() -> None:
    """A scores matrix (future keys masked) at each size, drawn as a page draws it."""
    import numpy as np

    from ui.show import figure_words, show_matrix
    from viz.matrix import MatrixView

    for count in (6, 64, 1024):
        generator = np.random.default_rng(count)
        labels = tuple(f"t{i}" for i in range(count))
        view = MatrixView(
            values=generator.normal(size=(count, count)),
            row_labels=labels,
            col_labels=labels,
            palette="colorblind",
            hidden=np.triu(np.ones((count, count), dtype=bool), k=1),
            value_name="score",
        )
        show_matrix(view, figure_words(), key=f"scores_{count}")


def test_one_component_draws_a_matrix_at_6_64_and_1024_tokens() -> None:
    at = AppTest.from_function(_three_sizes, default_timeout=120).run()
    assert not at.exception, [str(error.value) for error in at.exception]
    drawn = matrix_components(at)  # asserts one component element per matrix container
    assert sorted(drawn) == sorted(f"scores_{count}" for count in SIZES)
    small, middle, large = (drawn[f"scores_{count}"] for count in SIZES)
    assert small["table"] and not small.get("image")  # numbers to read, on their colours
    assert len(small["table"]["cells"]) == 6 and small["table"]["cells"][0][5]["text"] == "−∞"
    for picture, count, block in ((middle, 64, [1, 1]), (large, 1024, [32, 32])):
        image = picture["image"]
        assert not picture.get("table") and (image["rows"], image["cols"]) == (count, count)
        assert image["source"].startswith("data:image/png;base64,")
        assert image["block"] == block  # each cell's value on hover, else a block's statistics
    for picture in drawn.values():  # the same legend row: the scale, then the masked cells
        assert picture["legend"]["cells"][0][0]["text"] == "score"
        assert picture["legend"]["cells"][0][-1]["text"] == "−∞: masked"
    assert not at.get("plotly_chart")


def test_no_product_module_builds_or_draws_a_plotly_figure() -> None:
    """Every matrix, the Train page's attention maps too, goes through ``show_matrix``: no product
    module imports Plotly's figure side (``plotly.colors``, the colour scales, is all it uses),
    builds a heatmap or calls ``st.plotly_chart``."""
    drawing = re.compile(r"go\.Heatmap\(|px\.imshow\(|matrix_figure\(|plotly_chart\(")
    paths = [ROOT / "app.py", ROOT / "lab.py"] + [
        path
        for folder in ("attention", "ui", "viz", "pages")
        for path in (ROOT / folder).rglob("*.py")
    ]
    assert len(paths) > 50
    found = []
    for path in sorted(paths):
        source = path.read_text(encoding="utf-8")
        modules = {
            alias.name if isinstance(node, ast.Import) else f"{node.module}.{alias.name}"
            for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        }
        figure_side = [
            m for m in modules if m.startswith("plotly") and not m.startswith("plotly.colors")
        ]
        if figure_side or drawing.search(source):
            found.append((str(path.relative_to(ROOT)), figure_side))
    assert found == [], found
