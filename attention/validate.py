"""Input checks that turn bad values into messages a learner understands.

Every check raises :class:`AttentionInputError` (a ``ValueError``) before torch sees the value
and before anything large is allocated (a shape before a copy). A message shows the value through
:func:`describe`, so it stays a line long whatever was passed. Limits, and why:

- ``MAX_TOKENS = 4096``: a common context length; the ``(T, T)`` scores hold 16.7 million
numbers.
- ``MAX_ABS_VALUE = 1e6``: larger embeddings could overflow float32 in ``q·k`` after two
  projections; real embeddings are of order 1.
- ``MAX_WIDTH = 4096``: the largest ``d_in``/``d_out``, so that weights stay small.
- ``MAX_ATTENTION_CELLS = 2**26``: ``batch × heads × T × T`` of one attention matrix; a trace
holds
  a handful, about a gigabyte at most.
"""

from __future__ import annotations

import math
import numbers
import reprlib
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
    """A value the attention layer cannot work with, explained in plain (English) words.

    ``field`` names the setting at fault; ``row``, ``column`` and ``batch`` (0-based) a bad
    cell, so an interface can point at it. A problem a user of the app can meet also has a
    stable ``code`` (``"text_not_utf8"``) and the values its message names (``params``), so the
    interface can say it in the user's language (``ui/input_errors.py``).
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


class _ShortRepr(reprlib.Repr):
    """``reprlib`` with small limits that never writes a huge whole number or a tensor in full."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel, self.maxstring, self.maxother = 2, 24, 60
        self.maxlist = self.maxtuple = self.maxset = self.maxfrozenset = self.maxdeque = 4
        self.maxdict = 3

    def repr_int(self, x: int, level: int) -> str:
        return _describe_int(x)

    def repr_instance(self, x: Any, level: int) -> str:
        if isinstance(x, torch.Tensor | np.ndarray) or not _plain_repr(x):
            return f"<{describe(x)}>"
        return super().repr_instance(x, level)


_SHORT_REPR = _ShortRepr()


def _describe_int(number: int) -> str:
    """A whole number, or its size when it is too long to read (``str`` fails past 4300 digits)."""
    bits = int(number).bit_length()
    if bits > 128:
        return f"a whole number of {bits:,} bits (about {int(bits * math.log10(2)):,} digits)"
    return str(int(number))


def _plain_repr(value: Any) -> bool:
    """Whether ``repr(value)`` is short by construction: numbers, ``None``, torch's small types,
    and objects that keep ``object``'s own ``repr`` (``<object object at 0x…>``)."""
    return (
        value is None
        or isinstance(value, numbers.Number | torch.dtype | torch.device | range | type)
        or type(value).__repr__ is object.__repr__
    )


def describe(value: Any, limit: int = 80) -> str:
    """``value`` as a message shows it: as Python writes it if short, else by type and size ("a list
    of 10,000,000 items: [0, 1, 2, 3, ...]"); never written out whole (its ``repr`` could cost
    as much memory as the value, and ``str`` of an int over 4300 digits raises).
    """
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, numbers.Integral):
        return _describe_int(int(value))
    if isinstance(value, torch.Tensor):
        if value.is_nested:
            return f"a nested tensor of dtype {value.dtype}"
        return f"a tensor of shape {tuple(value.shape)} and dtype {value.dtype}"
    if isinstance(value, np.ndarray):
        return f"a NumPy array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, str | bytes):
        if len(value) <= limit:
            return repr(value)
        gap = "…" if isinstance(value, str) else b"..."
        return f"{value[: limit // 2] + gap + value[-8:]!r} ({len(value):,} characters)"
    try:
        text = _SHORT_REPR.repr(value)
    except Exception:  # a broken __repr__ of the caller's object: say what it is instead
        text = ""
    size = len(value) if isinstance(value, list | tuple | dict | set | frozenset) else None
    if size is not None and (size > 4 or len(text) > limit):
        shown = f": {text}" if len(text) <= limit else ""
        return f"a {type(value).__name__} of {size:,} items{shown}"
    if text and len(text) <= limit and (_plain_repr(value) or size is not None):
        return text
    name = getattr(value, "__qualname__", None) if callable(value) else None
    if isinstance(name, str):
        return f"the {type(value).__name__} {name[:limit]}"
    return f"a value of type {type(value).__name__[:limit]}"


def check_int(name: str, value: Any, low: int, high: int, what: str) -> int:
    """Return ``value`` as an ``int`` if it is a whole number in ``[low, high]``; else raise."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if not _is_integer(value):
        raise AttentionInputError(
            f"{name} must be a whole number ({what}), got {describe(value)}.", field=name
        )
    value = int(value)
    if not low <= value <= high:
        raise AttentionInputError(
            f"{name} must be between {low} and {high} ({what}), got {describe(value)}.", field=name
        )
    return value


def check_seed(seed: Any) -> int:
    """A seed for ``torch.manual_seed``: a whole number with ``0 <= seed < 2**64``."""
    if not (_is_integer(seed) or isinstance(seed, float) and seed.is_integer()):  # NaN, ±inf too
        raise AttentionInputError(
            f"seed must be a whole number from 0 to 2**64 - 1, got {describe(seed)}.", field="seed"
        )
    seed = int(seed)
    if seed < 0:
        raise AttentionInputError(f"seed must not be negative, got {describe(seed)}.", field="seed")
    if seed > MAX_SEED:
        raise AttentionInputError(
            f"seed must be smaller than 2**64 (torch keeps 64 bits of it), got {describe(seed)}.",
            field="seed",
        )
    return seed


def check_real(name: str, value: Any, what: str = "a number") -> float:
    """``value`` as a ``float`` if it is a real number (NaN and ±inf included: ranges are the
    caller's); a whole number too large for a float is refused, as is ``True``/``False``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise AttentionInputError(f"{name} must be {what}, got {describe(value)}.", field=name)
    try:
        return float(value)
    except OverflowError:
        raise AttentionInputError(
            f"{name} must be {what}, got {describe(value)} (too large for a float).", field=name
        ) from None


def check_dropout(dropout: Any) -> float:
    """A dropout probability: a real number in ``[0, 1]`` (0 keeps everything, 1 drops all)."""
    dropout = check_real("dropout", dropout, "a number between 0 and 1")
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
    raise AttentionInputError(f"{name} must be True or False, got {describe(value)}.", field=name)


def check_variant(variant: Any) -> str:
    """``"fused"`` (the book's ``MultiHeadAttention``) or ``"wrapper"`` (independent heads)."""
    return check_choice("variant", variant, VARIANTS)


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


def _check_tensor_kind(
    tensor: torch.Tensor, what: str = "Embeddings", field: str = "inputs"
) -> None:
    """Refuse tensors without plain real values (meta, sparse, nested, quantized, complex, boolean):
    the trace reads every value and multiplies them with float32 weights.
    """
    given = f"got a tensor of dtype {tensor.dtype}"
    if tensor.is_nested:
        raise AttentionInputError(
            f"{what} must be a tensor with the same number of tokens in every sequence; got a "
            "nested tensor (sequences of different lengths). Trace each sequence on its own, or "
            "pad them to one length.",
            field=field,
        )
    if tensor.layout != torch.strided:
        raise AttentionInputError(
            f"{what} must be a dense tensor; got a sparse tensor (layout {tensor.layout}). "
            "Call .to_dense() on it first.",
            field=field,
        )
    if tensor.device.type == "meta":
        raise AttentionInputError(
            f"{what} must have values; got a tensor on the 'meta' device (shape "
            f"{tuple(tensor.shape)}, no values). Create it on the CPU, e.g. torch.randn(6, 3).",
            field=field,
        )
    if tensor.is_quantized:
        raise AttentionInputError(
            f"{what} must be floating-point or integer numbers; {given} (quantized). "
            "Call .dequantize() on it first.",
            field=field,
        )
    if tensor.is_complex():
        raise AttentionInputError(
            f"{what} must be real numbers, not complex; {given}. Use its .real part (or "
            ".abs()) if that is what you mean.",
            field=field,
        )
    if tensor.dtype == torch.bool:
        raise AttentionInputError(
            f"{what} must be numbers, not True/False values; {given}. Convert it with "
            ".float() if 0 and 1 are what you mean.",
            field=field,
        )
    if not (tensor.dtype.is_floating_point or _is_integer_dtype(tensor.dtype)):
        raise AttentionInputError(
            f"{what} must be floating-point or integer numbers; {given}.", field=field
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
            f"{describe(inputs)}; expected {EXPECTED_INPUTS}. (To embed words, see "
            "attention.examples.embed_words.)",
            field="inputs",
        )
    if isinstance(inputs, Sequence):
        if isinstance(inputs, list | tuple):
            _check_input_shape(_leading_shape(inputs))  # before every cell is walked
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
        _check_input_shape(())  # one number has 0 axes: refused, saying so
    if hasattr(inputs, "__array__"):  # NumPy arrays, pandas tables, …
        array = np.asarray(inputs)
        if array.dtype.kind in "biufcO":
            _check_input_shape(array.shape)  # before the copy (a broadcast view may be huge)
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
        f"{describe(inputs)}.",
        field="inputs",
    )


def _check_input_shape(shape: tuple[int, ...]) -> None:
    """Refuse a wrong rank, an empty input or one too large, from its shape alone: before any copy,
    so a small view claiming a huge shape (``expand``, ``broadcast_to``) allocates nothing.
    """
    if len(shape) not in (2, 3):
        raise AttentionInputError(
            "Embeddings must have 2 axes (tokens, d_in) or 3 axes (batch, tokens, d_in); "
            f"got {len(shape)} axes with shape {shape}.",
            field="inputs",
        )
    batch, num_tokens, d_in = shape if len(shape) == 3 else (1, *shape)
    if batch == 0 or num_tokens == 0 or d_in == 0:
        raise AttentionInputError(
            f"Embeddings are empty (shape {(batch, num_tokens, d_in)}): give at least one token "
            "with at least one value.",
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
    if batch * num_tokens * d_in > MAX_ATTENTION_CELLS:
        raise AttentionInputError(
            f"Embeddings of shape {(batch, num_tokens, d_in)} hold {batch * num_tokens * d_in:,} "
            f"numbers; at most {MAX_ATTENTION_CELLS:,}. Use fewer batch items.",
            field="inputs",
        )


def _leading_shape(inputs: Sequence[Any]) -> tuple[int, ...]:
    """The shape of nested lists along their first items (4 levels at most: enough to refuse);
    ragged lists are found when torch reads them.
    """
    shape: list[int] = []
    item: Any = inputs
    while isinstance(item, list | tuple) and len(shape) < 4:
        shape.append(len(item))
        item = item[0] if len(item) else None
    return tuple(shape)


def to_input_tensor(inputs: Any) -> torch.Tensor:
    """Check embeddings and return them as a float32 tensor ``(b, T, d_in)``.

    Accepts a tensor, a NumPy array or nested lists, ``(T, d_in)`` (a batch of one) or
    ``(b, T, d_in)``. Refuses, naming the row and column, text, NaN, ±inf and values beyond
    ``±MAX_ABS_VALUE``; and, from the shape before any copy, an empty input, a wrong rank or too
    many numbers; and, saying what was given, ``None``, strings, other objects and odd tensors.
    """
    tensor = _as_tensor(inputs)
    _check_tensor_kind(tensor)
    _check_input_shape(tuple(tensor.shape))
    tensor = tensor.detach().to(device="cpu", dtype=torch.float64)
    if tensor.dim() == 2:
        tensor = tensor.unsqueeze(0)  # one sequence is a batch of one: (1, T, d_in)

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
                raise _cell_error(f"{describe(value, 40)} is not a number.", index)
            raise AttentionInputError(f"{describe(value, 40)} is not a number.", field="inputs")
        if isinstance(value, numbers.Integral) and abs(value) > MAX_ABS_VALUE:
            shown = f"{float(value):g}" if abs(value) < 10**300 else "a number with over 300 digits"
            message = f"{shown} is too large; values must lie within ±{MAX_ABS_VALUE:g}."
            if len(index) in (2, 3):
                raise _cell_error(message, index)
            raise AttentionInputError(message, field="inputs")
        return value

    return walk(inputs, ())


def check_attention_size(batch: int, num_heads: int, num_tokens: int, *, traces: int = 1) -> None:
    """Refuse a trace whose attention matrices would not fit comfortably in memory; ``traces``: how
    many traces' worth the caller holds at once (:func:`attention.bugs.compare_bug` holds four).
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


def check_scores(attn_scores: Any, d_k: Any) -> tuple[torch.Tensor, int]:
    """Raw scores ``(…, T, T)`` (finite, square; whole numbers become float32) and the key width
    ``d_k ≥ 1`` (the scores are divided by ``√d_k``), as the masking functions need.
    """
    if isinstance(attn_scores, np.ndarray) and attn_scores.dtype.kind in "biuf":
        _check_scores_shape(attn_scores.shape)  # before the copy
        attn_scores = torch.from_numpy(attn_scores.astype(attn_scores.dtype.newbyteorder("=")))
    if not isinstance(attn_scores, torch.Tensor):
        raise AttentionInputError(
            "attn_scores must be a tensor of raw scores (…, T, T), such as trace.attn_scores[0]; "
            f"got {describe(attn_scores)}.",
            field="attn_scores",
        )
    _check_tensor_kind(attn_scores, "attn_scores", "attn_scores")
    _check_scores_shape(attn_scores.shape)
    d_k = check_int("d_k", d_k, 1, MAX_WIDTH, "the width of each key vector")
    if not attn_scores.dtype.is_floating_point:
        attn_scores = attn_scores.to(torch.float32)
    if not bool(torch.isfinite(attn_scores).all()):
        raise AttentionInputError(
            "attn_scores hold NaN or infinite values; raw scores q·k are finite numbers (the "
            "masking functions write the −∞ themselves).",
            field="attn_scores",
        )
    return attn_scores, d_k


def _check_scores_shape(shape: tuple[int, ...]) -> None:
    """``(…, T, T)`` with ``1 ≤ T ≤ MAX_TOKENS`` and at most ``MAX_ATTENTION_CELLS`` numbers."""
    shape = tuple(shape)
    if not (
        len(shape) >= 2
        and shape[-1] == shape[-2]
        and 1 <= shape[-1] <= MAX_TOKENS
        and 1 <= math.prod(shape) <= MAX_ATTENTION_CELLS
    ):
        raise AttentionInputError(
            f"attn_scores must be square in its last two axes (…, T, T) with 1 to {MAX_TOKENS} "
            f"tokens and at most {MAX_ATTENTION_CELLS:,} numbers; got shape {shape}.",
            field="attn_scores",
        )


def check_choice(name: str, value: Any, choices: Sequence[str], also: str = "") -> str:
    """``value`` if it is one of the names ``choices``; else an error listing them."""
    if isinstance(value, str) and value in choices:
        return value
    listed = ", ".join(repr(choice) for choice in choices)
    raise AttentionInputError(
        f"{name} must be one of {listed}{also}; got {describe(value)}.", field=name
    )


def check_module_size(
    d_in: Any, d_out: int, num_heads: int, context_length: int, variant: str
) -> int:
    """``d_in`` checked; refuses a layer whose causal masks (per head: wrapper) are too large."""
    d_in = check_int("d_in", d_in, 1, MAX_WIDTH, "the number of values per token")
    copies = (
        num_heads if variant == "wrapper" else 1
    )  # the wrapper holds one CausalAttention a head
    masks = copies * context_length * context_length
    if masks > MAX_ATTENTION_CELLS:
        raise AttentionInputError(
            f"This layer is too large to build: {copies} causal mask(s) of context_length² = "
            f"{context_length}² make {masks:,} numbers (at most {MAX_ATTENTION_CELLS:,}). Use a "
            "shorter context_length or fewer heads.",
            field="context_length",
        )
    return d_in


def check_generator(generator: Any) -> None:
    """``None`` or a CPU ``torch.Generator`` (the module's weights are drawn from it)."""
    if generator is not None and not (
        isinstance(generator, torch.Generator) and generator.device.type == "cpu"
    ):
        raise AttentionInputError(
            f"generator must be a CPU torch.Generator or None; got {describe(generator)}.",
            field="generator",
        )


def check_traced_input(x: Any) -> torch.Tensor:
    """A ``(b, T, d_in)`` tensor for :func:`attention.trace.run_traced_forward`, neither copied nor
    detached (the backward pass follows it); whole numbers become float32.
    """
    if not isinstance(x, torch.Tensor):
        raise AttentionInputError(
            "x must be a tensor (batch, tokens, d_in), e.g. to_input_tensor(embeddings); got "
            f"{describe(x)}.",
            field="inputs",
        )
    _check_tensor_kind(x)
    if x.dim() != 3:
        raise AttentionInputError(
            f"x must have 3 axes (batch, tokens, d_in); got shape {tuple(x.shape)}. For one "
            "sequence (tokens, d_in), use x.unsqueeze(0) or to_input_tensor.",
            field="inputs",
        )
    _check_input_shape(tuple(x.shape))
    if x.device.type != "cpu" or x.dtype != torch.float32:
        x = x.to(device="cpu", dtype=torch.float32)  # the book's layers are float32 on the CPU
    if not bool(torch.isfinite(x.detach()).all()) or bool((x.detach().abs() > MAX_ABS_VALUE).any()):
        raise AttentionInputError(
            f"x holds NaN, infinite or too large values (at most ±{MAX_ABS_VALUE:g}); "
            "to_input_tensor(x) names the first one.",
            field="inputs",
        )
    return x


def check_float32_module(module: Any) -> None:
    """A ``torch.nn.Module`` whose parameters and buffers are float32 on the CPU, as the book's (a
    ``module.double()`` would fail inside torch with a dtype error).
    """
    if not isinstance(module, torch.nn.Module):
        raise AttentionInputError(
            "module must be one of the book's attention classes (CausalAttention, "
            f"MultiHeadAttention, MultiHeadAttentionWrapper); got {describe(module)}.",
            field="module",
        )
    for name, tensor in (*module.named_parameters(), *module.named_buffers()):
        if tensor.dtype.is_floating_point and (
            tensor.dtype != torch.float32 or tensor.device.type != "cpu"
        ):
            raise AttentionInputError(
                f"The module's {name[:60]} is {tensor.dtype} on {tensor.device.type}; the trace "
                "runs the book's float32 layers on the CPU. Trace module.float().cpu() instead.",
                field="module",
            )


def check_instance(name: str, value: Any, kind: type, hint: str = "") -> None:
    """Refuse ``value`` unless it is a ``kind`` (``hint`` says where one comes from)."""
    if not isinstance(value, kind):
        raise AttentionInputError(
            f"{name} must be {'an' if kind.__name__[0] in 'AEIOU' else 'a'} {kind.__name__}"
            f"{hint}; got {describe(value)}.",
            field=name,
        )


def check_labels(labels: Any, count: int, name: str = "tokens") -> list[str]:
    """One text label per token: a list or tuple of ``count`` strings (numbers are written out)."""
    if isinstance(labels, str | bytes) or not isinstance(labels, Sequence):
        raise AttentionInputError(
            f"{name} must be a list of {count} labels, one per token; got {describe(labels)}.",
            field=name,
        )
    if len(labels) != count:
        raise AttentionInputError(
            f"{name} must hold one label per token ({count}); got {len(labels):,} labels.",
            field=name,
        )
    for index, label in enumerate(labels):
        if isinstance(label, bool) or not isinstance(label, str | numbers.Real):
            raise AttentionInputError(
                f"{name}[{index}] must be text; got {describe(label, 40)}.", field=name
            )
    return [
        label
        if isinstance(label, str)
        else _describe_int(label)
        if _is_integer(label)
        else str(label)
        for label in labels
    ]


def check_target(target: Any) -> torch.Tensor | None:
    """None, or a float32 tensor of finite numbers for the squared distance; its shape is checked
    before the copy, its fit to the output once the output exists.
    """
    if target is None:
        return None
    if isinstance(target, torch.Tensor):
        _check_tensor_kind(target, "The target", "target")
        shape = tuple(target.shape)
    elif isinstance(target, np.ndarray):
        shape = target.shape
    elif isinstance(target, list | tuple):
        shape = _leading_shape(target)
    else:
        shape = ()
        check_real("target", target, "numbers (a context vector)")
    too_wide = len(shape) >= 1 and shape[-1] > MAX_WIDTH  # d_out
    too_long = len(shape) >= 2 and shape[-2] > MAX_TOKENS  # tokens
    if len(shape) > 3 or too_wide or too_long or math.prod(shape) > MAX_ATTENTION_CELLS:
        raise AttentionInputError(
            f"The target must be a context vector (d_out,), one per token (T, d_out) or "
            f"(b, T, d_out); got {describe(target)}.",
            field="target",
        )
    try:
        tensor = torch.as_tensor(target, dtype=torch.float32)
    except (TypeError, ValueError, RuntimeError, OverflowError):
        raise AttentionInputError(
            f"The target must be numbers, got {describe(target)}.", field="target"
        ) from None
    if not bool(torch.isfinite(tensor).all()) or bool((tensor.abs() > MAX_ABS_VALUE).any()):
        raise AttentionInputError(
            f"Every number of the target must be finite and at most {MAX_ABS_VALUE:g} in size.",
            field="target",
            code="target_not_finite",
            params={"maximum": MAX_ABS_VALUE},
        )
    return tensor


def guard_loss_function(loss: Any) -> Any:
    """A learner's loss function whose failure becomes an ``AttentionInputError`` naming the
    exception (it keeps its name: the trace records it).
    """

    def guarded(output: torch.Tensor) -> Any:
        try:
            return loss(output)
        except AttentionInputError:
            raise
        except Exception as error:  # the learner's code: any failure is reported in words
            raise AttentionInputError(
                f"The loss function raised {type(error).__name__}: {describe(str(error), 120)}",
                field="loss",
            ) from error

    name = getattr(loss, "__name__", "custom")
    guarded.__name__ = name if isinstance(name, str) else "custom"
    return guarded


def check_words(words: Any, limit: int | None = MAX_TOKENS) -> list[str]:
    """A list or tuple of strings (tokens), at most ``limit`` of them; a single string is refused
    (it would be read letter by letter: split it first, e.g. ``text.split()``)."""
    if isinstance(words, str | bytes) or not isinstance(words, Sequence):
        raise AttentionInputError(
            f"words must be a list of strings (e.g. text.split()); got {describe(words)}.",
            field="words",
        )
    if limit is not None and len(words) > limit:
        raise AttentionInputError(
            f"Too many tokens: {len(words):,} words; at most {limit} are supported.",
            field="words",
        )
    for index, word in enumerate(words):
        if not isinstance(word, str):
            raise AttentionInputError(
                f"words[{index}] must be a string; got {describe(word, 40)}.", field="words"
            )
    return list(words)


def check_tensor(name: str, value: Any) -> torch.Tensor:
    """A dense tensor of real numbers (booleans too: masks are tensors of True/False)."""
    if not isinstance(value, torch.Tensor):
        raise AttentionInputError(f"{name} must be a tensor; got {describe(value)}.", field=name)
    if value.dtype != torch.bool:
        _check_tensor_kind(value, name, name)
    elif value.layout != torch.strided or value.device.type == "meta" or value.is_nested:
        raise AttentionInputError(f"{name} must be a dense tensor with values.", field=name)
    return value


def check_list(name: str, value: Any, most: int, what: str) -> Sequence[Any]:
    """``value`` if it is a list (or tuple) of 1 to ``most`` items, else a named refusal."""
    if (
        isinstance(value, str | bytes)
        or not isinstance(value, Sequence)
        or not 0 < len(value) <= most
    ):
        raise AttentionInputError(
            f"{name} must be a list of 1 to {most} {what}; got {describe(value)}.", field=name
        )
    return value
