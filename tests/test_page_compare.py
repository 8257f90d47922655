"""Compare A/B page: B starts as A, B's controls change B, the differences are the traces'."""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS
from tests.apptest_support import HARNESS, matrix_tables, page_text, run_page
from viz.vocabulary import DECIMALS, cell_texts, context_labels


def _weights(**changes: object) -> np.ndarray:
    cfg = AttentionConfig(**changes)  # type: ignore[arg-type]
    return trace_attention(BOOK_EMBEDDINGS, cfg).dropped_weights[0].double().numpy()


def _context(**changes: object) -> np.ndarray:
    cfg = AttentionConfig(**changes)  # type: ignore[arg-type]
    return trace_attention(BOOK_EMBEDDINGS, cfg).context[0].double().numpy()


VIEW_KEY = "compare_view"  # the lazy tabs (weights, context vectors): value = open tab's label


def _open(at: AppTest, view: str) -> AppTest:
    """Open the tab "weights" or "context" (only the open tab runs and sends its charts)."""
    at.session_state[VIEW_KEY] = at.tabs[("weights", "context").index(view)].label
    return at.run()


def _shown(at: AppTest, key: str) -> list[list[str]]:
    """The cell texts of matrix table ``key``, its tab opened first."""
    _open(at, "context" if key.startswith("compare_context") else "weights")
    return matrix_tables(at)[key].to_numpy().tolist()


def _written(values: np.ndarray | float, shape: tuple[int, int] = (6, 6)) -> list[list[str]]:
    """``values`` (float64) as the page writes them in a matrix table (4 decimals, typographic −).

    The page gets the same float32 trace values and the differences in float64
    (``attention.differences``), so its texts equal these exactly.
    """
    return cell_texts(np.broadcast_to(np.asarray(values, dtype=np.float64), shape), None, DECIMALS)


def _metric(at: AppTest, label_start: str) -> str:
    return next(m.value for m in at.metric if m.label.startswith(label_start))


@pytest.fixture(scope="module")
def default_run() -> AppTest:
    return run_page("compare")


def test_b_starts_as_a_copy_of_the_sidebar(default_run: AppTest) -> None:
    at = default_run
    assert not at.exception
    assert at.session_state["compare_b_store"] == {
        "seed": 123,
        "dropout": 0.0,
        "train": True,
        "qkv_bias": False,
        "d_out": 2,
    }
    assert at.number_input(key="compare_b_seed").value == 123
    assert "B has the same settings as A" in page_text(at)
    assert _metric(at, "largest |B − A| of the weights") == "0.0000"
    assert _shown(at, "compare_weights_a") == _written(_weights())
    assert _shown(at, "compare_weights_diff") == _written(0.0)  # every cell "0.0000"
    # the book's context vectors for seed 123 (REFERENCE.md)
    assert _shown(at, "compare_context_a")[0] == ["−0.4519", "0.2216"]


def test_changing_b_seed_changes_the_difference() -> None:
    at = run_page("compare", {"seed": "7"})
    at.number_input(key="compare_b_seed").set_value(8).run()
    assert not at.exception
    expected = _weights(seed=8) - _weights(seed=7)
    assert _shown(at, "compare_weights_b") == _written(_weights(seed=8))
    assert _shown(at, "compare_weights_diff") == _written(expected)
    assert _metric(at, "largest |B − A| of the weights") == f"{np.abs(expected).max():.4f}"
    context_diff = _context(seed=8) - _context(seed=7)
    assert _shown(at, "compare_context_diff") == _written(context_diff, context_diff.shape)
    assert "B differs from A in: Seed (torch.manual_seed)." in page_text(at)
    assert at.session_state["compare_b_store"]["seed"] == 8


def test_dropout_preset_turns_dropout_on_in_b() -> None:
    at = run_page("compare")
    at.button(key="compare_preset_dropout").click().run()
    assert not at.exception
    assert at.slider(key="compare_b_dropout").value == 0.5
    assert _shown(at, "compare_weights_b") == _written(_weights(dropout=0.5))
    assert _shown(at, "compare_weights_diff") == _written(_weights(dropout=0.5) - _weights())
    # and back: B = A
    at.button(key="compare_preset_copy").click().run()
    assert at.slider(key="compare_b_dropout").value == 0.0
    assert _shown(at, "compare_weights_diff") == _written(0.0)


def test_seed_and_bias_presets_change_one_setting() -> None:
    at = run_page("compare", {"seed": "5"})
    at.button(key="compare_preset_seed").click().run()
    assert at.session_state["compare_b_store"]["seed"] == 6
    at.button(key="compare_preset_bias").click().run()
    store = at.session_state["compare_b_store"]
    assert (store["seed"], store["qkv_bias"]) == (5, True)
    assert _shown(at, "compare_weights_b") == _written(_weights(seed=5, qkv_bias=True))


def test_different_widths_are_shown_side_by_side_not_subtracted() -> None:
    at = run_page("compare")
    at.slider(key="compare_b_d_out").set_value(3).run()
    assert not at.exception
    _open(at, "context")
    assert any("cannot be subtracted" in w.value for w in at.warning)
    tables = matrix_tables(at)
    assert "compare_context_diff" not in tables and not at.get("plotly_chart")
    assert tables["compare_context_b"].shape == (6, 3)
    assert _shown(at, "compare_context_b") == _written(_context(d_out=3), (6, 3))


def test_b_controls_are_restored_from_the_store_after_leaving_the_page() -> None:
    # Streamlit drops an undrawn widget's state when another page runs; the store survives.
    at = AppTest.from_file(HARNESS, default_timeout=60)
    at.session_state["harness_page"] = "compare"
    stored = {"seed": 99, "dropout": 0.25, "train": True, "qkv_bias": True, "d_out": 2}
    at.session_state["compare_b_store"] = stored
    at.run()
    assert not at.exception
    assert at.number_input(key="compare_b_seed").value == 99
    assert at.checkbox(key="compare_b_qkv_bias").value is True
    expected = _weights(seed=99, dropout=0.25, qkv_bias=True)
    assert _shown(at, "compare_weights_b") == _written(expected)


def test_compare_page_in_chinese() -> None:
    at = run_page("compare", {"lang": "zh"})
    assert not at.exception
    assert any(m.label == "权重的最大 |B − A|" for m in at.metric)
    text = page_text(at) + page_text(_open(at, "context"))
    assert "A/B 对比" in text and "哪些设置不同" in text and "上下文向量" in text


def test_b_settings_round_trip_through_the_share_link() -> None:
    query = {"seed": "7", "b_seed": "8", "b_dropout": "0.5", "b_qkv_bias": "true"}
    at = run_page("compare", query)
    assert not at.exception and not at.warning
    assert at.number_input(key="compare_b_seed").value == 8
    assert at.slider(key="compare_b_dropout").value == 0.5
    assert at.checkbox(key="compare_b_qkv_bias").value is True
    assert _shown(at, "compare_weights_b") == _written(_weights(seed=8, dropout=0.5, qkv_bias=True))
    assert _shown(at, "compare_weights_a") == _written(_weights(seed=7))
    assert dict(at.query_params) == query  # the link written back is the link read
    # B's controls write the link: a new B seed, then B = A again (no b_ parameter left)
    at.number_input(key="compare_b_seed").set_value(9).run()
    assert at.query_params["b_seed"] == "9"
    at.button(key="compare_preset_copy").click().run()
    assert dict(at.query_params) == {"seed": "7"}


def test_context_columns_are_named_as_on_the_step_page() -> None:
    at = _open(run_page("compare", {"b_d_out": "3"}), "context")
    shown = matrix_tables(at)
    assert list(shown["compare_context_a"].columns) == context_labels(2) == ["z1", "z2"]
    assert list(shown["compare_context_b"].columns) == ["z1", "z2", "z3"]
    step = run_page("step")
    assert list(step.table[0].value.columns) == context_labels(2)


def test_only_the_open_tab_sends_its_heatmaps() -> None:
    """First paint: A's, B's and B − A's weights; the context vectors only once their tab opens.

    Each small matrix is a coloured table (``ui.show.show_matrix``): no Plotly chart is left.
    """
    at = run_page("compare")
    assert set(matrix_tables(at)) == {
        "compare_weights_a",
        "compare_weights_b",
        "compare_weights_diff",
    }
    assert not at.get("plotly_chart")
    _open(at, "context")
    assert set(matrix_tables(at)) == {
        "compare_context_a",
        "compare_context_b",
        "compare_context_diff",
    }
    assert not at.get("plotly_chart")


def test_the_settings_table_speaks_chinese_in_the_chinese_ui() -> None:
    """Names and switch values are the sidebar's labels and 是/否, not seed/train/True."""
    at = run_page("compare", {"lang": "zh", "b_train": "0", "b_seed": "9"})
    assert not at.exception
    table = next(t.value for t in at.table if "是否不同" in t.value.columns)
    cells = " ".join(table.index.astype(str)) + " " + " ".join(table.to_numpy().ravel().astype(str))
    for english in ("seed", "dropout", "train", "True", "False"):
        assert english not in cells.split(), english
    assert "随机种子（torch.manual_seed）" in table.index
    row = table.loc["训练模式（module.train()）"]
    assert list(row) == ["是", "否", "≠ 不同"]


def test_presenting_different_widths_the_difference_screen_shows_a_beside_b() -> None:
    """B − A cannot be drawn when the widths differ: its screen shows what the warning says."""
    at = run_page("compare", {"b_d_out": "3", "present": "1", "step": "contexts"})
    at.button(key="present_next").click().run()  # the contexts' second screen: the difference's
    assert not at.exception
    assert any("cannot be subtracted" in w.value for w in at.warning)
    tables = matrix_tables(at)
    assert {"compare_context_a", "compare_context_b"} <= set(tables)
    assert "compare_context_diff" not in tables
    assert tables["compare_context_b"].shape == (6, 3)
