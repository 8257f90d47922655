"""Bad values raise ``AttentionInputError`` (a ``ValueError``) naming the value, never a torch error."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
import torch

from attention import MAX_TOKENS, AttentionConfig, AttentionInputError, trace_attention
from attention.validate import to_input_tensor
from tests.book_recipe import BOOK_BATCH
from tests.cases import subcases


def _book_rows() -> list[list[float]]:
    return BOOK_BATCH[0].tolist()


def _raises(inputs: Any, cfg: AttentionConfig | None = None) -> AttentionInputError:
    """Run a trace that must fail and return the error (exactly AttentionInputError)."""
    with pytest.raises(AttentionInputError) as caught:
        trace_attention(inputs, cfg)
    error = caught.value
    assert type(error) is AttentionInputError
    assert str(error) == error.message and error.message.strip()
    return error


def test_attention_input_error_is_a_value_error() -> None:
    assert issubclass(AttentionInputError, ValueError)


# --- cells -------------------------------------------------------------------------------------


def test_nan_cell_is_named_by_one_based_row_and_column() -> None:
    inputs = BOOK_BATCH[0].clone()
    inputs[1, 2] = math.nan
    error = _raises(inputs)
    assert (error.row, error.column, error.field) == (1, 2, "inputs")
    assert "row 2, column 3" in str(error)
    assert "NaN" in str(error)


def test_nan_cell_in_nested_lists_is_named_too() -> None:
    rows = _book_rows()
    rows[4][0] = float("nan")
    error = _raises(rows)
    assert (error.row, error.column) == (4, 0)
    assert "row 5, column 1" in str(error)


def test_positive_infinity_cell_is_rejected() -> None:
    inputs = BOOK_BATCH[0].clone()
    inputs[0, 1] = math.inf
    error = _raises(inputs)
    assert (error.row, error.column) == (0, 1)
    assert "row 1, column 2" in str(error) and "infinite" in str(error)


def test_negative_infinity_cell_is_rejected() -> None:
    inputs = BOOK_BATCH[0].clone()
    inputs[5, 2] = -math.inf
    error = _raises(inputs)
    assert (error.row, error.column) == (5, 2)
    assert "row 6, column 3" in str(error) and "minus infinity" in str(error)


@subcases(("value", "shown"), [(1e7, "1e+07"), (-1e7, "-1e+07"), (1e30, "1e+30")])
def test_huge_cell_is_rejected_with_its_value(value: float, shown: str) -> None:
    rows = _book_rows()
    rows[2][1] = value
    error = _raises(rows)
    assert (error.row, error.column) == (2, 1)
    assert "row 3, column 2" in str(error) and shown in str(error)


def test_value_at_the_limit_is_accepted() -> None:
    rows = _book_rows()
    rows[2][1] = 1e6
    assert torch.isfinite(trace_attention(rows).output).all()


def test_text_in_a_nested_list_cell_is_named() -> None:
    rows: list[list[Any]] = _book_rows()
    rows[3][1] = "five"
    error = _raises(rows)
    assert (error.row, error.column) == (3, 1)
    assert "row 4, column 2" in str(error) and "'five'" in str(error)


def test_none_in_a_cell_is_named() -> None:
    rows: list[list[Any]] = _book_rows()
    rows[0][0] = None
    error = _raises(rows)
    assert (error.row, error.column) == (0, 0) and "None" in str(error)


def test_bad_cell_of_a_three_dimensional_input_names_the_batch_item() -> None:
    inputs = BOOK_BATCH.clone()
    inputs[1, 3, 0] = math.nan
    error = _raises(inputs)
    assert (error.batch, error.row, error.column) == (1, 3, 0)
    assert "row 4, column 1 (batch item 2)" in str(error)


def test_plain_string_input_is_rejected() -> None:
    assert "text" in str(_raises("0.1 0.2 0.3"))


def test_ragged_rows_are_rejected() -> None:
    error = _raises([[0.1, 0.2, 0.3], [0.4, 0.5]])
    assert "same number of values" in str(error)


def test_numpy_array_of_text_is_rejected() -> None:
    _raises(np.array([["a", "b"], ["c", "d"]]))


def test_complex_tensor_is_rejected() -> None:
    assert "complex" in str(_raises(torch.ones(2, 3, dtype=torch.complex64)))


# --- what was given, and what is expected -----------------------------------------------------


@subcases("cfg", [{"d_out": 2}, "fused", 2], ids=["dict", "str", "int"])
def test_config_that_is_not_an_attention_config_is_named(cfg: Any) -> None:
    error = _raises(BOOK_BATCH, cfg)
    assert error.field == "cfg"
    assert "must be an AttentionConfig" in str(error)
    assert f"type {type(cfg).__name__}: {cfg!r}" in str(error)


def _quantized() -> torch.Tensor:
    return torch.quantize_per_tensor(BOOK_BATCH[0], 0.1, 0, torch.qint8)


def _nested() -> torch.Tensor:
    return torch.nested.nested_tensor([torch.ones(2, 3), torch.ones(4, 3)])


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch: nested and CSR tensors are "beta"
@subcases(
    ("make", "shown"),
    [
        (lambda: torch.ones(6, 3, device="meta"), "'meta' device (shape (6, 3), no values)"),
        (lambda: BOOK_BATCH[0].to_sparse(), "sparse tensor (layout torch.sparse_coo)"),
        (lambda: BOOK_BATCH[0].to_sparse_csr(), "sparse tensor (layout torch.sparse_csr)"),
        (_quantized, "dtype torch.qint8 (quantized)"),
        (lambda: BOOK_BATCH[0].to(torch.complex64), "not complex; got a tensor of dtype"),
        (lambda: np.ones((6, 3), dtype=complex), "dtype torch.complex128"),
        (lambda: torch.ones(6, 3, dtype=torch.bool), "not True/False values"),
        (_nested, "got a nested tensor"),
    ],
    ids=["meta", "coo", "csr", "quantized", "complex", "np_complex", "bool", "nested"],
)
def test_tensor_without_plain_real_values_is_named(make: Any, shown: str) -> None:
    error = _raises(make())
    assert error.field == "inputs" and shown in str(error)


@subcases(
    ("inputs", "shown"),
    [
        (None, "missing: got None; expected a tensor, a NumPy array or nested lists"),
        ("0.1 0.2", "not text: got the str '0.1 0.2'; expected a tensor"),
        ({"Your": [0.43, 0.15, 0.89]}, "; got a value of type dict: {'Your': [0.43, 0.15, 0.89]}"),
        (object(), "; got a value of type object: <object object at"),
    ],
    ids=["None", "str", "dict", "object"],
)
def test_input_that_is_not_a_table_says_what_was_given_and_expected(
    inputs: Any, shown: str
) -> None:
    error = _raises(inputs)
    assert error.field == "inputs" and shown in str(error)
    assert "(tokens, d_in) or (batch, tokens, d_in)" in str(error)


def test_a_long_text_input_is_shortened_in_the_message() -> None:
    error = _raises("word " * 4096)
    assert len(str(error)) < 400 and "not text" in str(error)


def test_integer_tensors_and_object_arrays_of_numbers_are_still_accepted() -> None:
    expected = trace_attention(torch.tensor([[1.0, 0.0, 2.0], [3.0, 1.0, 0.0]]))
    as_int = trace_attention(torch.tensor([[1, 0, 2], [3, 1, 0]]))
    as_objects = trace_attention(np.array([[1, 0.0, 2], [3, 1, 0]], dtype=object))
    assert torch.equal(as_int.output, expected.output)
    assert torch.equal(as_objects.output, expected.output)


# --- shape -------------------------------------------------------------------------------------


@subcases(
    ("inputs", "shown"),
    [
        (torch.empty(0, 3), "empty (shape (1, 0, 3))"),
        (torch.empty(2, 0, 3), "empty (shape (2, 0, 3))"),
        (torch.empty(3, 0), "empty (shape (1, 3, 0))"),
        (torch.empty(0, 6, 3), "empty (shape (0, 6, 3))"),
        ([[]], "empty (shape (1, 1, 0))"),
        ([], "shape (0,)"),
    ],
    ids=["0_tokens", "batch_0_tokens", "0_features", "0_batch", "[[]]", "[]"],
)
def test_empty_input_is_rejected_with_its_shape(inputs: Any, shown: str) -> None:
    error = _raises(inputs)
    assert error.field == "inputs" and shown in str(error)


@subcases(
    ("inputs", "axes"),
    [(torch.ones(3), 1), (torch.ones(1, 2, 6, 3), 4), (torch.tensor(1.0), 0)],
    ids=["1d", "4d", "scalar"],
)
def test_wrong_rank_is_rejected_with_the_number_of_axes(inputs: torch.Tensor, axes: int) -> None:
    error = _raises(inputs)
    assert f"got {axes} axes" in str(error)


def test_more_tokens_than_context_length_is_rejected() -> None:
    error = _raises(BOOK_BATCH, AttentionConfig(context_length=4))
    assert error.field == "context_length"
    assert "6 tokens" in str(error) and "context_length is 4" in str(error)


def test_more_than_max_tokens_is_rejected() -> None:
    error = _raises(torch.zeros(MAX_TOKENS + 1, 3))
    assert MAX_TOKENS == 4096
    assert "4097" in str(error) and "4096" in str(error)


def test_exactly_max_tokens_passes_input_checks() -> None:
    assert to_input_tensor(torch.zeros(MAX_TOKENS, 3)).shape == (1, MAX_TOKENS, 3)


def test_too_many_attention_cells_is_rejected_before_computing() -> None:
    error = _raises(torch.zeros(4, 4096, 1), AttentionConfig(num_heads=2))
    assert "too large to trace" in str(error)


# --- settings ----------------------------------------------------------------------------------


@subcases(
    ("dropout", "shown"),
    [(-0.1, "-0.1"), (1.5, "1.5"), (math.nan, "nan"), ("a", "'a'"), (True, "True"), (None, "None")],
)
def test_bad_dropout_is_rejected_and_named(dropout: Any, shown: str) -> None:
    error = _raises(BOOK_BATCH, AttentionConfig(dropout=dropout))
    assert error.field == "dropout" and shown in str(error)


@subcases(("d_out", "shown"), [(0, "got 0"), (-3, "got -3"), (2.5, "2.5"), ("2", "'2'")])
def test_bad_d_out_is_rejected_and_named(d_out: Any, shown: str) -> None:
    error = _raises(BOOK_BATCH, AttentionConfig(d_out=d_out))
    assert error.field == "d_out" and shown in str(error)


@subcases(
    ("seed", "shown"),
    [
        (-1, "-1"),
        (1.5, "1.5"),
        ("x", "'x'"),
        (2**64, str(2**64)),
        (True, "True"),
        (math.inf, "inf"),
        (math.nan, "nan"),
    ],
)
def test_bad_seed_is_rejected_and_named(seed: Any, shown: str) -> None:
    error = _raises(BOOK_BATCH, AttentionConfig(seed=seed))
    assert error.field == "seed" and shown in str(error)


@subcases("seed", [0, 2**64 - 1, 7.0, np.int64(5)])
def test_edge_seeds_are_accepted(seed: Any) -> None:
    trace = trace_attention(BOOK_BATCH, AttentionConfig(seed=seed))
    assert trace.config.seed == int(seed) and type(trace.config.seed) is int


def test_d_out_not_divisible_by_heads_is_rejected_for_the_fused_class() -> None:
    error = _raises(BOOK_BATCH, AttentionConfig(d_out=4, num_heads=3, variant="fused"))
    assert error.field == "d_out"
    assert "d_out = 4" in str(error) and "3 heads" in str(error)


def test_d_out_not_divisible_by_heads_is_allowed_for_the_wrapper() -> None:
    trace = trace_attention(BOOK_BATCH, AttentionConfig(d_out=4, num_heads=3, variant="wrapper"))
    assert trace.output.shape == (2, 6, 12)


@subcases("variant", ["nope", "", None, "Fused"])
def test_unknown_variant_is_rejected_and_named(variant: Any) -> None:
    error = _raises(BOOK_BATCH, AttentionConfig(variant=variant))
    assert error.field == "variant" and repr(variant) in str(error)


@subcases(("num_heads", "shown"), [(0, "got 0"), (-1, "got -1"), (65, "got 65")])
def test_bad_number_of_heads_is_rejected(num_heads: int, shown: str) -> None:
    error = _raises(BOOK_BATCH, AttentionConfig(num_heads=num_heads))
    assert error.field == "num_heads" and shown in str(error)


@subcases("name", ["training", "qkv_bias"])
def test_non_boolean_switches_are_rejected(name: str) -> None:
    error = _raises(BOOK_BATCH, AttentionConfig(**{name: "yes"}))
    assert error.field == name and "'yes'" in str(error)


def test_bad_context_length_is_rejected() -> None:
    error = _raises(BOOK_BATCH, AttentionConfig(context_length=0))
    assert error.field == "context_length" and "got 0" in str(error)


def test_a_checked_config_is_trusted_and_a_changed_copy_is_checked_again() -> None:
    """AttentionConfig is checked once where it enters: its checked copy passes the builders'
    checks as it is, a copy made with other values is checked again."""
    import dataclasses

    import pytest

    from attention import AttentionConfig, AttentionInputError

    checked = AttentionConfig(dropout=0.5).validated(6)
    assert checked.validated(6) is checked and checked.validated() is checked
    assert checked == AttentionConfig(dropout=0.5, context_length=6)  # the mark is no field
    with pytest.raises(AttentionInputError, match="7 tokens"):
        checked.validated(7)
    with pytest.raises(AttentionInputError, match="dropout"):
        dataclasses.replace(checked, dropout=2.0).validated()
