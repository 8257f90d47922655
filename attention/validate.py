"""Input checks that turn bad values into messages a learner understands.

Every check raises :class:`AttentionInputError` (a ``ValueError``) *before* torch sees the value, so a
user never meets a raw torch error. The error carries where the problem is (``row``/``column`` of a
cell, or the ``field`` of a setting) so that a user interface can point at it.

Limits, and why:

- ``MAX_TOKENS = 4096``: a common context length of current models; the ``(T, T)`` score matrix
  already holds 16.7 million numbers at that size.
- ``MAX_ABS_VALUE = 1e6``: an embedding value larger than this could make a score ``q·k`` overflow
  float32 (max about 3.4e38) once it has gone through two projections and a dot product; real
  embeddings are of order 1.
- ``MAX_WIDTH = 4096``: the largest ``d_in``/``d_out`` accepted, so that weights stay small.
- ``MAX_ATTENTION_CELLS = 2**26``: ``batch × heads × T × T``, the size of one attention matrix of
  a trace; a trace holds a handful of them, so this keeps one trace around a gigabyte at most.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import torch

MAX_TOKENS = 4096
MAX_ABS_VALUE = 1e6
MAX_WIDTH = 4096
MAX_HEADS = 64
MAX_SEED = 2**64 - 1
MAX_ATTENTION_CELLS = 2**26
VARIANTS = ("fused", "wrapper")


class AttentionInputError(ValueError):
    """A value the attention layer cannot work with, explained in plain words.

    The message is English. A problem a user of the app can run into also has a ``code`` (such as
    ``"text_not_utf8"``) and the values its message names (``params``, such as ``{"byte": 3}``),
    so that an interface can say the same in the user's language (``ui/input_errors.py``).

    Attributes:
        message: the explanation, in English.
        field: the name of the setting at fault (``"dropout"``, ``"seed"``, ``"inputs"``, …).
        row: for a bad cell, the 0-based token index (``None`` otherwise).
        column: for a bad cell, the 0-based feature index (``None`` otherwise).
        batch: for a bad cell of a 3-D input, the 0-based batch index (``None`` otherwise).
        code: what went wrong, as a stable name (``None`` for a mistake only code can make).
        params: the values the message is made of, by name (empty without a ``code``).
    """

    def __init__(
        self,
        message: str,
        *,
        field: str | None = None,
        row: int | None = None,
        column: int | None = None,
        batch: int | None = None,
        code: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.row = row
        self.column = column
        self.batch = batch
        self.code = code
        self.params: dict[str, Any] = dict(params or {})


def _is_integer(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def check_int(name: str, value: Any, low: int, high: int, what: str) -> int:
    """Return ``value`` as an ``int`` if it is a whole number in ``[low, high]``; else raise."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not _is_integer(value):
        raise AttentionInputError(
            f"{name} must be a whole number ({what}), got {value!r}.", field=name
        )
    value = int(value)
    if not low <= value <= high:
        raise AttentionInputError(
            f"{name} must be between {low} and {high} ({what}), got {value}.", field=name
        )
    return value


def check_seed(seed: Any) -> int:
    """A seed for ``torch.manual_seed``: a whole number with ``0 <= seed < 2**64``."""
    if isinstance(seed, float) and not seed.is_integer():
        raise AttentionInputError(
            f"seed must be a whole number from 0 to 2**64 - 1, got {seed!r}.", field="seed"
        )
    if isinstance(seed, float) and not math.isfinite(seed):
        raise AttentionInputError(
            f"seed must be a finite whole number, got {seed!r}.", field="seed"
        )
    if not (_is_integer(seed) or isinstance(seed, float)):
        raise AttentionInputError(
            f"seed must be a whole number from 0 to 2**64 - 1, got {seed!r}.", field="seed"
        )
    seed = int(seed)
    if seed < 0:
        raise AttentionInputError(f"seed must not be negative, got {seed}.", field="seed")
    if seed > MAX_SEED:
        raise AttentionInputError(
            f"seed must be smaller than 2**64 (torch keeps 64 bits of it), got {seed}.",
            field="seed",
        )
    return seed


def check_dropout(dropout: Any) -> float:
    """A dropout probability: a real number in ``[0, 1]`` (0 keeps everything, 1 drops all)."""
    if isinstance(dropout, bool) or not isinstance(dropout, numbers.Real):
        raise AttentionInputError(
            f"dropout must be a number between 0 and 1, got {dropout!r}.", field="dropout"
        )
    dropout = float(dropout)
    if math.isnan(dropout) or not 0.0 <= dropout <= 1.0:
        raise AttentionInputError(
            f"dropout is a probability and must be between 0 and 1, got {dropout}.",
            field="dropout",
        )
    return dropout


def check_bool(name: str, value: Any) -> bool:
    """A yes/no setting: ``True`` or ``False`` (also numpy/torch booleans)."""
    if isinstance(value, bool):
        return value
    if type(value).__name__ in ("bool_", "bool") and value in (0, 1):
        return bool(value)
    raise AttentionInputError(f"{name} must be True or False, got {value!r}.", field=name)


def check_variant(variant: Any) -> str:
    """``"fused"`` (the book's ``MultiHeadAttention``) or ``"wrapper"`` (independent heads)."""
    if variant not in VARIANTS:
        raise AttentionInputError(
            f"variant must be one of {', '.join(repr(v) for v in VARIANTS)}, got {variant!r}.",
            field="variant",
        )
    return str(variant)


def _first_bad_index(mask: torch.Tensor) -> tuple[int, ...]:
    return tuple(int(i) for i in mask.nonzero()[0].tolist())


def _cell_error(message: str, index: tuple[int, ...]) -> AttentionInputError:
    if len(index) == 3:
        batch, row, column = index
        where = f"row {row + 1}, column {column + 1}" + (
            f" (batch item {batch + 1})" if batch else ""
        )
    else:
        batch, (row, column) = None, index
        where = f"row {row + 1}, column {column + 1}"
    return AttentionInputError(
        f"Embedding {where}: {message}", field="inputs", row=row, column=column, batch=batch
    )


def _describe(value: float) -> str:
    if math.isnan(value):
        return "NaN (not a number)"
    if math.isinf(value):
        return "infinite" if value > 0 else "minus infinity"
    return repr(value)


EXPECTED_INPUTS = (
    "a tensor, a NumPy array or nested lists of real numbers, of shape (tokens, d_in) or "
    "(batch, tokens, d_in)"
)


def _shown(value: Any, limit: int = 60) -> str:
    """A short ``repr`` for a message (a 4096-word string must not fill the screen)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 5]}…{text[-4:]}"


def _check_tensor_kind(tensor: torch.Tensor) -> None:
    """Refuse tensors that hold no plain real numbers: meta, sparse, nested, quantized, complex…

    The trace needs an ordinary (strided, "dense") tensor of real numbers whose values exist: it
    reads every value to check it, and the book's layers multiply it with float32 weights.
    """
    given = f"got a tensor of dtype {tensor.dtype}"
    if tensor.is_nested:
        raise AttentionInputError(
            "Embeddings must be a tensor with the same number of tokens in every sequence; got a "
            "nested tensor (sequences of different lengths). Trace each sequence on its own, or "
            "pad them to one length.",
            field="inputs",
        )
    if tensor.layout != torch.strided:
        raise AttentionInputError(
            f"Embeddings must be a dense tensor; got a sparse tensor (layout {tensor.layout}). "
            "Call .to_dense() on it first.",
            field="inputs",
        )
    if tensor.device.type == "meta":
        raise AttentionInputError(
            f"Embeddings must have values; got a tensor on the 'meta' device (shape "
            f"{tuple(tensor.shape)}, no values). Create it on the CPU, e.g. torch.randn(6, 3).",
            field="inputs",
        )
    if tensor.is_quantized:
        raise AttentionInputError(
            f"Embeddings must be floating-point or integer numbers; {given} (quantized). "
            "Call .dequantize() on it first.",
            field="inputs",
        )
    if tensor.is_complex():
        raise AttentionInputError(
            f"Embeddings must be real numbers, not complex; {given}. Use its .real part (or "
            ".abs()) if that is what you mean.",
            field="inputs",
        )
    if tensor.dtype == torch.bool:
        raise AttentionInputError(
            f"Embeddings must be numbers, not True/False values; {given}. Convert it with "
            ".float() if 0 and 1 are what you mean.",
            field="inputs",
        )
    if not (tensor.dtype.is_floating_point or _is_integer_dtype(tensor.dtype)):
        raise AttentionInputError(
            f"Embeddings must be floating-point or integer numbers; {given}.", field="inputs"
        )


def _is_integer_dtype(dtype: torch.dtype) -> bool:
    try:
        torch.iinfo(dtype)
    except TypeError:
        return False
    return True


def _as_tensor(inputs: Any) -> torch.Tensor:
    """Turn a tensor, NumPy array or nested lists into a tensor, or say what was given instead."""
    if isinstance(inputs, torch.Tensor):
        return inputs
    if inputs is None:
        raise AttentionInputError(
            f"Embeddings are missing: got None; expected {EXPECTED_INPUTS}.", field="inputs"
        )
    if isinstance(inputs, str | bytes):
        raise AttentionInputError(
            f"Embeddings must be numbers, not text: got the {type(inputs).__name__} "
            f"{_shown(inputs)}; expected {EXPECTED_INPUTS}. (To embed words, see "
            "attention.examples.embed_words.)",
            field="inputs",
        )
    if isinstance(inputs, Sequence):
        try:
            return torch.as_tensor(_as_numeric(inputs), dtype=torch.float64)
        except AttentionInputError:
            raise
        except (TypeError, ValueError, RuntimeError, OverflowError) as error:
            raise AttentionInputError(
                "Embeddings must be a table of numbers with the same number of values in every "
                f"row ({error}).",
                field="inputs",
            ) from None
    if isinstance(inputs, numbers.Real) and not isinstance(inputs, bool):
        return torch.as_tensor(float(inputs), dtype=torch.float64)  # 0 axes: named below
    if hasattr(inputs, "__array__"):  # NumPy arrays, pandas tables, …
        array = np.asarray(inputs)
        if array.dtype.kind in "biufc":  # bool, integers, floats, complex: checked as a tensor
            return torch.from_numpy(array.astype(array.dtype.newbyteorder("="), copy=True))
        if array.dtype.kind in "US":
            raise AttentionInputError(
                f"Embeddings must be numbers, not text: got a NumPy array of strings "
                f"({array.dtype}); expected {EXPECTED_INPUTS}.",
                field="inputs",
            )
        if array.dtype.kind == "O" and array.ndim > 0:
            return _as_tensor(array.tolist())  # objects: checked cell by cell, as lists are
        raise AttentionInputError(
            f"Embeddings must be numbers; got a NumPy array of {array.dtype}.", field="inputs"
        )
    raise AttentionInputError(
        f"Embeddings must be {EXPECTED_INPUTS}; got a value of type {type(inputs).__name__}: "
        f"{_shown(inputs)}.",
        field="inputs",
    )


def to_input_tensor(inputs: Any) -> torch.Tensor:
    """Check embeddings and return them as a float32 tensor of shape ``(b, T, d_in)``.

    Accepts a tensor, a NumPy array or nested lists, of shape ``(T, d_in)`` (one sequence, made a
    batch of one) or ``(b, T, d_in)``. Rejects, with the row and column named: text, NaN, ±inf and
    values beyond ``±MAX_ABS_VALUE``; and empty input, a wrong rank or more than ``MAX_TOKENS``.
    Rejects, saying what was given: ``None``, a string, other objects, and tensors without plain
    real values (meta, sparse, nested, quantized, complex, boolean).
    """
    tensor = _as_tensor(inputs)
    _check_tensor_kind(tensor)
    tensor = tensor.detach().to(device="cpu", dtype=torch.float64)

    if tensor.dim() not in (2, 3):
        raise AttentionInputError(
            "Embeddings must have 2 axes (tokens, d_in) or 3 axes (batch, tokens, d_in); "
            f"got {tensor.dim()} axes with shape {tuple(tensor.shape)}.",
            field="inputs",
        )
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)  # one sequence is a batch of one: (1, T, d_in)
    batch, num_tokens, d_in = tensor.shape
    if batch == 0 or num_tokens == 0 or d_in == 0:
        raise AttentionInputError(
            f"Embeddings are empty (shape {tuple(tensor.shape)}): give at least one token with "
            "at least one value.",
            field="inputs",
        )
    if num_tokens > MAX_TOKENS:
        raise AttentionInputError(
            f"Too many tokens: {num_tokens}; at most {MAX_TOKENS} are supported.", field="inputs"
        )
    if d_in > MAX_WIDTH:
        raise AttentionInputError(
            f"Too many values per token (d_in = {d_in}); at most {MAX_WIDTH}.", field="inputs"
        )

    finite = torch.isfinite(tensor)
    if not bool(finite.all()):
        index = _first_bad_index(~finite)
        value = float(tensor[index].item())
        raise _cell_error(f"{_describe(value)} is not a usable number.", index)
    too_large = tensor.abs() > MAX_ABS_VALUE
    if bool(too_large.any()):
        index = _first_bad_index(too_large)
        value = float(tensor[index].item())
        raise _cell_error(
            f"{value:g} is too large; values must lie within ±{MAX_ABS_VALUE:g} so that "
            "attention scores fit in float32.",
            index,
        )
    return tensor.to(torch.float32)


def _as_numeric(inputs: Any) -> Any:
    """Walk nested lists and name the first cell that is not a number (text, None, …)."""
    if isinstance(inputs, str | bytes):
        raise AttentionInputError("Embeddings must be numbers, not text.", field="inputs")
    if not isinstance(inputs, Sequence):
        return inputs  # NumPy arrays and scalars go to torch as they are

    def walk(value: Any, index: tuple[int, ...]) -> Any:
        if isinstance(value, Sequence) and not isinstance(value, str | bytes):
            return [walk(item, (*index, i)) for i, item in enumerate(value)]
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            if len(index) in (2, 3):
                raise _cell_error(f"{value!r} is not a number.", index)
            raise AttentionInputError(f"{value!r} is not a number.", field="inputs")
        if isinstance(value, numbers.Integral) and abs(value) > MAX_ABS_VALUE:
            shown = f"{float(value):g}" if abs(value) < 10**300 else "a number with over 300 digits"
            message = f"{shown} is too large; values must lie within ±{MAX_ABS_VALUE:g}."
            if len(index) in (2, 3):
                raise _cell_error(message, index)
            raise AttentionInputError(message, field="inputs")
        return value

    return walk(inputs, ())


def check_attention_size(batch: int, num_heads: int, num_tokens: int, *, traces: int = 1) -> None:
    """Refuse a trace whose attention matrices would not fit comfortably in memory.

    ``traces``: how many traces' worth of attention matrices the caller holds at once (a trace
    holds one; :func:`attention.bugs.compare_bug` holds the book's and the bug's steps beside the
    passes of its checks), so every caller keeps to the memory of one trace at the limit.
    """
    cells = batch * num_heads * num_tokens * num_tokens
    maximum = MAX_ATTENTION_CELLS // max(1, traces)
    if cells > maximum:
        raise AttentionInputError(
            f"This is too large to trace: batch × heads × tokens² = {batch} × {num_heads} × "
            f"{num_tokens}² = {cells:,} attention weights (at most {maximum:,}). "
            "Use fewer heads, tokens or batch items.",
            field="inputs",
            code="too_large_to_trace",
            params={
                "batch": batch,
                "heads": num_heads,
                "tokens": num_tokens,
                "cells": cells,
                "maximum": maximum,
            },
        )
