"""The Export page in the app frame (AppTest): downloads, preview, and the reproduce script."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.export import SNIPPET_FILE_NAMES, reproduce_snippet, trace_csv_file
from tests.apptest_support import page_text, run_page
from ui.table_state import table_for_words


def python_code(at: AppTest) -> str:
    """The reproduce script shown on the page (the last code block), with its final newline."""
    return at.code[-1].value.rstrip("\n") + "\n"


def preview(at: AppTest) -> str:
    """The CSV preview (the first code block), with its final newline."""
    return at.code[0].value.rstrip("\n") + "\n"


def test_default_view_offers_three_downloads_and_the_books_script() -> None:
    at = run_page("export")
    assert not at.exception
    keys = [button.key for button in at.get("download_button")]
    assert keys == ["export_zip", "export_json", "export_py"]
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig())
    assert python_code(at) == reproduce_snippet(trace, BOOK_TOKENS, style="book")
    text = page_text(at)
    assert "6 tokens · d_in = 3 · seed 123" in text
    assert "-0.4519" in text.replace("−", "-") and "-0.1081" in text.replace("−", "-")


def test_preview_shows_the_chosen_csv() -> None:
    at = run_page("export", {"dropout": "0.5", "seed": "7"})
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(seed=7, dropout=0.5))
    assert at.selectbox(key="export_preview").value == "attn_weights.csv"
    assert preview(at) == trace_csv_file(trace, BOOK_TOKENS, "attn_weights.csv")
    at.selectbox(key="export_preview").set_value("dropout_mask.csv").run()
    assert not at.exception
    assert preview(at) == trace_csv_file(trace, BOOK_TOKENS, "dropout_mask.csv")


def test_settings_from_the_url_reach_the_script() -> None:
    at = run_page("export", {"seed": "7", "dropout": "0.25", "train": "false", "qkv_bias": "true"})
    assert not at.exception
    code = python_code(at)
    for line in ("seed = 7", "dropout = 0.25", "qkv_bias = True", "ca.eval()"):
        assert line in code


def test_trace_style_script() -> None:
    at = run_page("export")
    at.radio(key="export_style").set_value("trace").run()
    assert not at.exception
    code = python_code(at)
    assert "trace = trace_attention(inputs, cfg)" in code
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig())
    assert code == reproduce_snippet(trace, BOOK_TOKENS, style="trace")


def test_the_downloaded_script_follows_the_style() -> None:
    """The file served changes with the style (its URL is a hash of the bytes and the name)."""
    at = run_page("export", {"dropout": "0.5"})
    served = {}
    for style in ("book", "trace", "book"):
        at.radio(key="export_style").set_value(style).run()
        assert not at.exception
        button = at.download_button(key="export_py")
        assert SNIPPET_FILE_NAMES[style] in button.help
        served.setdefault(style, button.proto.url)
        assert button.proto.url == served[style]  # the same style serves the same file again
    assert served["book"] != served["trace"]
    assert served["book"].endswith(".py") and served["trace"].endswith(".py")
    assert "Needs only PyTorch" in at.download_button(key="export_py").help


def test_multi_head_layers_when_the_sidebar_has_several_heads() -> None:
    at = run_page("export", {"heads": "2", "d_out": "4"})
    assert not at.exception
    radio = at.radio(key="export_layer")
    assert radio.value == "single"
    radio.set_value("fused").run()
    assert not at.exception
    assert "mha = MultiHeadAttention(" in python_code(at)
    assert "attn_weights_head1.csv" in at.selectbox(key="export_preview").options
    at.radio(key="export_layer").set_value("wrapper").run()
    assert "MultiHeadAttentionWrapper(" in python_code(at)
    # back to one head in the sidebar: the page falls back to CausalAttention
    at.slider(key="heads").set_value(1).run()
    assert not at.exception
    assert "ca = CausalAttention(" in python_code(at)


def test_fused_heads_that_do_not_divide_d_out_show_an_error_not_a_crash() -> None:
    at = run_page("export", {"heads": "3", "d_out": "4"})
    at.radio(key="export_layer").set_value("fused").run()
    assert not at.exception
    assert at.error, "the page should explain why d_out cannot be split into 3 heads"


def test_user_tokens_stay_text_and_are_guarded_in_the_csv() -> None:
    at = run_page("export", {"text": "=cmd() <b>bold</b> @x"})
    assert not at.exception
    shown = preview(at)
    assert "'=cmd()" in shown and "'@x" in shown and "<b>bold</b>" in shown
    table = table_for_words(["=cmd()", "<b>bold</b>", "@x"])
    assert f"tokens = {list(table.tokens)!r}" in python_code(at)


def test_page_in_chinese() -> None:
    at = run_page("export", {"lang": "zh"})
    assert not at.exception
    assert at.title[0].value == "导出与复现"
    assert at.get("download_button")[0].label.startswith("所有矩阵")


def test_long_sequences_offer_only_the_script() -> None:
    words = " ".join(f"w{i}" for i in range(600))  # 600² cells > MAX_EXPORT_CELLS
    at = run_page("export", {"text": words})
    assert not at.exception
    keys = [button.key for button in at.get("download_button")]
    assert keys == ["export_py"]
    assert any("attention cells" in info.value for info in at.info)
    assert any("too long to show" in info.value for info in at.info)
    assert len(at.dataframe) == 1  # the expected output scrolls instead of a 600-row table
