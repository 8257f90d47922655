"""Take a trace home: every matrix as CSV, the whole trace as JSON, and a script that reproduces it.

::

    export_zip(trace, BOOK_TOKENS)          # bytes of a zip: one CSV per matrix, README, JSON, .py
    trace_json(trace, BOOK_TOKENS)          # the trace as JSON text
    reproduce_snippet(trace, BOOK_TOKENS)   # Python that prints the same context vectors

CSV: one file per matrix (per head with several), row labels first, numbers as the shortest
decimal that reads back as the same float32, hidden scores ``-inf``, masks ``1``/``0``. Token
labels are user text, so a label a spreadsheet would run as a formula gets a leading ``'``
(:mod:`attention.safe_csv`).

The snippet defines the book's class itself (``style="book"``: runs in any folder with only
PyTorch) or calls ``attention.trace_attention`` (``style="trace"``); both print the context
vectors, then the same numbers at full precision as a JSON line (the tests compare them bitwise).
"""

from __future__ import annotations

import functools
import inspect
import io
import json
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import torch
import torch.nn as nn

from .examples import unique_labels
from .modules import CausalAttention, MultiHeadAttention, MultiHeadAttentionWrapper
from .safe_csv import CSV_ENCODING, safe_csv_text
from .steps import FIELDS, Field
from .trace import AttentionTrace
from .validate import (
    AttentionInputError,
    check_choice,
    check_instance,
    check_real,
    check_tensor,
    describe,
)

__all__ = [
    "MAX_EXPORT_CELLS",
    "PACKAGE_INSTALL",
    "PACKAGE_INSTALL_WHERE",
    "SNIPPET_FILE_NAMES",
    "SNIPPET_STYLES",
    "attention_cells",
    "csv_field",
    "csv_file_names",
    "export_files",
    "export_zip",
    "exportable",
    "float32_text",
    "matrix_csv",
    "reproduce_snippet",
    "trace_csv_file",
    "trace_csv_files",
    "trace_json",
    "trace_json_dict",
]

SNIPPET_STYLES = ("book", "trace")  # the book's recipe, or attention.trace_attention
SNIPPET_FILE_NAMES = {"book": "reproduce_attention.py", "trace": "reproduce_attention_trace.py"}
# how a user installs the package (README.md says the same): a sentence, then the command
PACKAGE_INSTALL_WHERE = "in the Attention Lab folder (the one that holds pyproject.toml), run"
PACKAGE_INSTALL = ("pip install .",)
PACKAGE_NEEDED = (
    "Needs the Attention Lab package `attention` (and PyTorch). Install it once:",
    PACKAGE_INSTALL_WHERE,
    *(f"    {line}" for line in PACKAGE_INSTALL),
)
ZIP_DATE = (2024, 1, 1, 0, 0, 0)  # fixed file dates: the same trace always gives the same zip
JSON_FORMAT = "attention-lab-trace"
MAX_EXPORT_CELLS = 2**18  # heads × T × T: about 30 MB of CSV text; larger views get only the .py


def _check_trace(trace: Any) -> AttentionTrace:
    check_instance("trace", trace, AttentionTrace, " (from trace_attention)")
    return trace


def _check_environment(environment: Any) -> None:
    if environment is not None:
        check_instance("environment", environment, Mapping, " (e.g. environment_info())")


def _check_gradients(gradients: Any) -> None:
    from .gradients import GradientTrace  # imported here: gradients imports this module's peers

    if gradients is not None:
        check_instance("gradients", gradients, GradientTrace, " (from trace_gradients)")


def attention_cells(trace: AttentionTrace) -> int:
    """How many cells one attention matrix of the trace has, over all heads: ``h × T × T``."""
    _check_trace(trace)
    return trace.config.num_heads * trace.num_tokens**2


def exportable(trace: AttentionTrace) -> bool:
    """False when CSV/JSON files of this trace would be too large to offer as a download."""
    return attention_cells(trace) <= MAX_EXPORT_CELLS


# --- numbers and labels -------------------------------------------------------------------------


def float32_text(value: float) -> str:
    """The shortest decimal that reads back as the same float32 (``0.43``, not ``0.4300000071``);
    the exact float64 text where that would round twice; ``-inf``/``inf``/``nan``.
    """
    number = check_real("value", value)
    if not np.isfinite(number):
        return "nan" if np.isnan(number) else ("-inf" if number < 0 else "inf")
    single = np.float32(number)
    text = str(single)  # numpy's shortest repr that round-trips *as float32*
    if np.float32(float(text)) != single:  # Python reads a float64 first: check the detour
        text = repr(float(single))  # exact: every float32 is a float64
    return text


def _check_matrix(values: Any, row_labels: Any, col_labels: Any) -> Any:
    """``values`` as rows, one row label per row and one column label per value; a tensor's or an
    array's shape is checked before its values are copied out."""
    for name, labels in (("row_labels", row_labels), ("col_labels", col_labels)):
        if isinstance(labels, str | bytes) or not isinstance(labels, Sequence):
            raise AttentionInputError(
                f"{name} must be a list of labels; got {describe(labels)}.", field=name
            )
    if isinstance(values, torch.Tensor | np.ndarray):
        if isinstance(values, torch.Tensor):
            check_tensor("values", values)
        if values.ndim != 2 or values.shape[1] != len(col_labels):
            raise AttentionInputError(
                f"values must be a matrix of {len(col_labels)} columns; got {describe(values)}.",
                field="values",
            )
    elif not isinstance(values, list | tuple):
        raise AttentionInputError(
            f"values must be a matrix (a tensor or a list of rows); got {describe(values)}.",
            field="values",
        )
    if len(values) != len(row_labels):
        raise AttentionInputError(f"{len(values)} rows but {len(row_labels)} row labels")
    matrix = values.tolist() if isinstance(values, torch.Tensor | np.ndarray) else values
    for row in matrix:
        if isinstance(row, str | bytes) or not isinstance(row, Sequence):
            raise AttentionInputError(f"a row must be a list of values; got {describe(row)}.")
        if len(row) != len(col_labels):
            raise AttentionInputError(
                f"a row has {len(row)} values but there are {len(col_labels)} columns"
            )
    return matrix


def matrix_csv(
    values: torch.Tensor | np.ndarray | Sequence[Sequence[Any]],
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    corner: str = "",
) -> str:
    """A 2-D matrix as CSV text: header ``corner,col…``, then ``row_label,value…`` per row (labels
    guarded by :func:`attention.safe_csv.csv_safe`, booleans as ``1``/``0``).
    """
    matrix = _check_matrix(values, row_labels, col_labels)
    if not isinstance(corner, str):
        raise AttentionInputError(f"corner must be text; got {describe(corner)}.", field="corner")
    header = [str(corner), *(str(label) for label in col_labels)]
    body = ([str(label), *row] for label, row in zip(row_labels, matrix, strict=True))
    return safe_csv_text([header, *body], number_text=float32_text)


# --- which matrix gets which labels ---------------------------------------------------------------


def _names(prefix: str, count: int) -> list[str]:
    """Column names ``q1 … q{count}``: the components of a vector, as the book numbers them."""
    return [f"{prefix}{i + 1}" for i in range(count)]


# In the order a forward pass produces them, as attention.steps lists them (README.txt too).
_FIELDS: dict[str, Field] = {field.name: field for field in FIELDS}
README_LINES: dict[str, str] = {name: field.readme for name, field in _FIELDS.items()}


def _check_tokens(trace: AttentionTrace, tokens: Sequence[str]) -> list[str]:
    """The labels of one sequence; a batch must be copies of it (the book's ``torch.stack``):
    the files describe batch item 0 and the script stacks the same sequence again."""
    _check_trace(trace)
    if isinstance(tokens, str | bytes) or not isinstance(tokens, Sequence):
        raise AttentionInputError(
            f"tokens must be a list of {trace.num_tokens} labels; got {describe(tokens)}.",
            field="tokens",
        )
    if not all(torch.equal(item, trace.inputs[0]) for item in trace.inputs[1:]):
        raise AttentionInputError(
            f"the export describes one sequence, as a batch of one or of copies of it; this "
            f"trace's batch of {trace.inputs.shape[0]} holds different sequences"
        )
    if len(tokens) != trace.num_tokens:
        raise AttentionInputError(
            f"{len(tokens):,} token labels for {trace.num_tokens} tokens", field="tokens"
        )
    return [str(token) for token in tokens]


def _fields_to_export(trace: AttentionTrace) -> list[str]:
    names = [name for name in _FIELDS if getattr(trace, name, None) is not None]
    if trace.W_out is None:  # one head, or the wrapper: output is the context itself
        names.remove("output")
    return names


def _labels(kind: str, tokens: list[str], count: int) -> list[str]:
    if kind == "tokens":
        return unique_labels(tokens)
    return _names({"features": "x", "context": "z"}[kind], count) if kind != "bias" else ["bias"]


def _matrices(
    trace: AttentionTrace, name: str, tensor: torch.Tensor | None = None
) -> list[tuple[str, torch.Tensor]]:
    """``(file stem, 2-D matrix)`` pairs for one field: batch row 0, one matrix per head (``tensor``
    replaces the field, e.g. by its gradient).
    """
    tensor = (getattr(trace, name) if tensor is None else tensor).detach()
    if _FIELDS[name].rows == "bias":
        tensor = tensor.unsqueeze(-2)  # (…, 1, d): a bias is one row
    if name == "mask":
        return [(name, tensor)]
    if _FIELDS[name].rows == "tokens":
        tensor = tensor[0]  # the batch of one
    per_head = tensor.dim() == 3  # (h, rows, cols): steps of several heads, wrapper weights
    if per_head:
        return [(f"{name}_head{h + 1}", tensor[h]) for h in range(tensor.shape[0])]
    return [(name, tensor)]


def _csv_plan(trace: AttentionTrace) -> Iterator[tuple[str, str, torch.Tensor]]:
    """``(file name, field name, 2-D matrix)`` for every CSV file, in the order of the pass."""
    for name in _fields_to_export(trace):
        for stem, matrix in _matrices(trace, name):
            yield f"{stem}.csv", name, matrix


def _csv_text(name: str, matrix: torch.Tensor, labels: list[str]) -> str:
    layout = _FIELDS[name]
    rows, cols = matrix.shape[-2], matrix.shape[-1]
    row_labels = _labels(layout.rows, labels, rows)
    col_labels = unique_labels(labels) if layout.cols == "tokens" else _names(layout.cols, cols)
    return matrix_csv(matrix, row_labels, col_labels, layout.corner)


def csv_file_names(trace: AttentionTrace) -> list[str]:
    """The names of the CSV files of :func:`trace_csv_files`, without writing them (cheap)."""
    _check_trace(trace)
    return [file_name for file_name, _, _ in _csv_plan(trace)]


def csv_field(file_name: str) -> str:
    """The trace field a CSV file holds: ``attn_weights_head2.csv`` → ``attn_weights``."""
    check_instance("file_name", file_name, str)
    stem = file_name.removesuffix(".csv")
    head = stem.rfind("_head")
    return stem[:head] if head > 0 and stem[head + 5 :].isdigit() else stem


def trace_csv_file(trace: AttentionTrace, tokens: Sequence[str], file_name: str) -> str:
    """One CSV file of :func:`trace_csv_files` (e.g. for a preview), by its name."""
    check_instance("file_name", file_name, str)
    labels = _check_tokens(trace, tokens)
    for candidate, name, matrix in _csv_plan(trace):
        if candidate == file_name:
            return _csv_text(name, matrix, labels)
    raise AttentionInputError(
        f"No CSV file {describe(file_name, 40)} in this export; see csv_file_names(trace).",
        field="file_name",
    )


def trace_csv_files(trace: AttentionTrace, tokens: Sequence[str]) -> dict[str, str]:
    """Every matrix of the trace as CSV text, by file name, in the order of the forward pass
    (``dropout_mask`` only when dropout acts; per-head matrices get ``_head1`` … in their names).
    """
    labels = _check_tokens(trace, tokens)
    return {
        file_name: _csv_text(name, matrix, labels) for file_name, name, matrix in _csv_plan(trace)
    }


# --- JSON ----------------------------------------------------------------------------------------


def trace_json_dict(
    trace: AttentionTrace, tokens: Sequence[str], environment: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``trace.to_dict()`` plus the tokens, the settings, the torch version and ``environment`` when
    given (JSON-ready; ``null`` stands for −∞).
    """
    labels = _check_tokens(trace, tokens)
    _check_environment(environment)
    result: dict[str, Any] = {
        "format": JSON_FORMAT,
        "format_version": 1,
        "tokens": labels,
        "torch_version": torch.__version__,
        "settings": trace.config.to_dict(),
        "null_means": "-inf (a hidden score above the diagonal)",
    }
    if environment is not None:
        result["environment"] = dict(environment)
    result.update(trace.to_dict())
    return result


def trace_json(
    trace: AttentionTrace, tokens: Sequence[str], environment: dict[str, Any] | None = None
) -> str:
    """The trace as compact, strict JSON text (no NaN/Infinity: −∞ is ``null``)."""
    return json.dumps(
        trace_json_dict(trace, tokens, environment),
        ensure_ascii=False,
        allow_nan=False,
        separators=(",", ":"),
    )


# --- the "reproduce this" snippet ----------------------------------------------------------------


def _tensor_literal(matrix: torch.Tensor, indent: str = "        ") -> str:
    rows = [", ".join(float32_text(v) for v in row) for row in matrix.tolist()]
    return "\n".join(f"{indent}[{row}]," for row in rows)


def _book_classes(trace: AttentionTrace) -> tuple[type[nn.Module], ...]:
    """The book's classes the recipe needs, in the order the script defines them."""
    cfg = trace.config
    if cfg.num_heads == 1:
        return (CausalAttention,)
    if cfg.variant == "fused":
        return (MultiHeadAttention,)
    return (CausalAttention, MultiHeadAttentionWrapper)  # the wrapper builds CausalAttention heads


@functools.cache
def _class_source(cls: type[nn.Module]) -> str:
    """A class's code exactly as :mod:`attention.modules` writes it (one copy of the book)."""
    return inspect.getsource(cls).rstrip("\n")


def _module_lines(trace: AttentionTrace) -> tuple[str, list[str]]:
    """The variable name and the lines that build the module, as the book writes them."""
    cfg = trace.config
    if cfg.num_heads == 1:
        return "ca", ["ca = CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)"]
    cls = _book_classes(trace)[-1].__name__
    return (
        "mha",
        [
            f"num_heads = {cfg.num_heads}",
            f"mha = {cls}(d_in, d_out, context_length, dropout, num_heads, qkv_bias)",
        ],
    )


def package_imports(imports: Sequence[str], *more: str) -> list[str]:
    """A script's ``imports`` of the package; without it, a message that says how to install it
    (then the string literals ``more``)."""
    return [
        "try:",
        *(f"    {line}" for line in imports),
        "except ModuleNotFoundError as missing:",
        '    if missing.name != "attention":',
        "        raise",
        "    raise SystemExit(",
        '        "This script needs the Attention Lab package `attention`. Install it once:\\n"',
        f"        {(PACKAGE_INSTALL_WHERE + chr(10))!r}",
        *(f"        {('    ' + line + chr(10))!r}" for line in PACKAGE_INSTALL),
        *(f"        {literal}" for literal in more),
        "    ) from None",
    ]


def _snippet_header(style: str) -> list[str]:
    """The docstring of the script: what it needs, how to run it, what it prints."""
    file_name = SNIPPET_FILE_NAMES[style]
    if style == "book":
        needs = [
            f"Needs only PyTorch (made with torch {torch.__version__}; another version may differ",
            "in the last digits). It defines the book's class itself, as chapter 3 of",
            '"Build a Large Language Model (From Scratch)" does, so it runs in any folder:',
        ]
    else:
        needs = [*PACKAGE_NEEDED, "then run this file in any folder:"]
    return [
        '"""Reproduce an Attention Lab view: the same inputs and settings, the same numbers.',
        "",
        *needs,
        f"    python {file_name}",
        "It prints the context vectors, then the same numbers at full precision as JSON.",
        '"""',
        "",
        "import json",
        "",
        "import torch",
    ]


def _book_body(trace: AttentionTrace, num_tokens: int) -> tuple[list[str], list[str]]:
    """The book's recipe: its classes (before the data), then seed, build, mode, call."""
    cfg = trace.config
    module, build = _module_lines(trace)
    classes = ["import torch.nn as nn", ""]
    for cls in _book_classes(trace):
        comment = f"# {cls.__name__}: the book's class, as chapter 3 writes it"
        classes += ["", comment, _class_source(cls), "", ""]
    if cfg.training:
        mode = f"{module}.train()  # training mode: dropout acts"
    else:
        mode = f"{module}.eval()  # evaluation mode: dropout does nothing"
    if cfg.context_length == num_tokens:
        context_length = "context_length = inputs.shape[0]  # the mask covers every token"
    else:
        context_length = f"context_length = {cfg.context_length}"
    recipe = [
        f"seed = {cfg.seed}",
        "d_in = inputs.shape[1]",
        f"d_out = {cfg.d_out}",
        context_length,
        f"dropout = {cfg.dropout!r}",
        f"qkv_bias = {cfg.qkv_bias!r}",
        *build[:-1],
        "",
        "torch.manual_seed(seed)  # fixes the weights and the dropout mask",
        build[-1],
        mode,
        "with torch.no_grad():",
        f"    context_vecs = {module}({_batch_expression(trace, 'inputs.unsqueeze(0)')})",
        "",
    ]
    return classes, _batch_lines(trace) + recipe


def _batch_lines(trace: AttentionTrace) -> list[str]:
    """With a batch of ``b`` copies: the book's ``batch = torch.stack((inputs, inputs))`` (b = 2)."""
    size = int(trace.inputs.shape[0])
    if size == 1:
        return []
    copies = ", ".join(["inputs"] * size)
    return [f"batch = torch.stack(({copies}))  # ({size}, T, d_in): {size} copies", ""]


def _batch_expression(trace: AttentionTrace, one: str) -> str:
    """What the layer is called on: ``batch``, or ``one`` for a batch of one."""
    return "batch" if trace.inputs.shape[0] > 1 else one


def _trace_body(trace: AttentionTrace, num_tokens: int) -> tuple[list[str], list[str]]:
    """``attention.trace_attention`` with the same settings (a clear message without the package)."""
    cfg = trace.config
    settings = ["d_out", "dropout", "seed", "qkv_bias", "training", "num_heads", "variant"]
    settings += ["context_length"] if cfg.context_length != num_tokens else []
    settings += ["window"] if cfg.window is not None else []
    imports = [
        "",
        *package_imports(
            ["from attention import AttentionConfig, trace_attention"],
            '"or use the book-style script of the Export page, which needs only PyTorch."',
        ),
        "",
    ]
    recipe = [
        "cfg = AttentionConfig(",
        *(f"    {name}={getattr(cfg, name)!r}," for name in settings),
        ")",
        f"trace = trace_attention({_batch_expression(trace, 'inputs')}, cfg)  # every step: "
        "trace.attn_weights, trace.context…",
        "context_vecs = trace.output  # (b, T, ·): the layer's output",
        "",
    ]
    return imports, _batch_lines(trace) + recipe


def reproduce_snippet(trace: AttentionTrace, tokens: Sequence[str], style: str = "book") -> str:
    """A Python script that recomputes this trace's output and prints it, then the same numbers as
    one JSON line: the book's recipe with its class (``style="book"``, only PyTorch needed) or
    ``attention.trace_attention`` (``"trace"``). Save it as ``SNIPPET_FILE_NAMES[style]``.
    """
    check_choice("style", style, SNIPPET_STYLES)
    if style == "book" and _check_trace(trace).config.window is not None:
        raise AttentionInputError("The book's classes have no sliding window: use style='trace'.")
    labels = _check_tokens(trace, tokens)
    inputs = trace.inputs[0]  # (T, d_in)
    num_tokens, d_in = inputs.shape
    data = [
        f"tokens = {labels!r}  # the row labels",
        "inputs = torch.tensor(",
        "    [",
        _tensor_literal(inputs),
        "    ],",
        "    dtype=torch.float32,",
        f")  # (T, d_in) = ({num_tokens}, {d_in}): one embedding vector per token",
        "",
    ]
    build = _book_body if style == "book" else _trace_body
    definitions, recipe = build(trace, num_tokens)
    footer = [
        "print(context_vecs)",
        "print(json.dumps(context_vecs[0].tolist()))  # full precision, for comparing"
        if trace.inputs.shape[0] == 1
        else "print(json.dumps(context_vecs.tolist()))  # every batch item, full precision",
    ]
    return "\n".join(_snippet_header(style) + definitions + data + recipe + footer) + "\n"


# --- everything in one zip -----------------------------------------------------------------------


def _readme(trace: AttentionTrace, files: Sequence[str], gradients: Any = None) -> str:
    cfg = trace.config
    lines = [
        "Attention Lab export",
        "====================",
        "",
        f"settings: seed={cfg.seed}, d_out={cfg.d_out}, dropout={cfg.dropout}, "
        f"training={cfg.training}, qkv_bias={cfg.qkv_bias}, num_heads={cfg.num_heads}"
        + (f", variant={cfg.variant}" if cfg.num_heads > 1 else ""),
        f"torch {torch.__version__}; tokens: {trace.num_tokens}, d_in: {trace.d_in}, d_k: {trace.d_k}",
        *([f"sliding window: {cfg.window} tokens"] if cfg.window is not None else []),
        *(
            [f"batch: {trace.inputs.shape[0]} copies; the CSV files hold batch item 0"]
            if trace.inputs.shape[0] > 1
            else []
        ),
        "",
        "Each CSV: first column = row labels, first row = column labels.",
        "Numbers read back as the same float32 values; -inf marks a hidden score.",
        "A label starting with = + - @ (or a tab) is written with a leading ' (a spreadsheet",
        "formula guard); read it back by removing that one apostrophe.",
        "",
        "Files, in the order of the forward pass:",
    ]
    for name in files:
        lines.append(f"  {name:<28} {README_LINES.get(csv_field(name), '')}")
    lines.append("  trace.json                   the whole trace (null = -inf), tokens, settings")
    if script_style(trace) == "book":
        lines += [
            "  reproduce_attention.py       the book's recipe (needs only PyTorch): prints the same",
            "                               context vectors",
        ]
    else:
        lines += [
            f"  {SNIPPET_FILE_NAMES['trace']}  attention.trace_attention with the window (the",
            "                               book's classes have none): the same context vectors",
        ]
    if gradients is not None:
        lines += [
            f"  gradients/d_<file>.csv       d loss / d that step, loss = {gradients.loss_name} "
            f"(= {gradients.loss:.6g});",
            "                               0 where the mask hid a score or dropout dropped a weight",
        ]
    return "\n".join(lines) + "\n"


def gradient_csv_files(
    trace: AttentionTrace, gradients: Any, tokens: Sequence[str]
) -> dict[str, str]:
    """``gradients/d_<file>.csv``: d loss / d field for every exported step that has a gradient,
    with the labels of its step's file.
    """
    labels = _check_tokens(trace, tokens)
    files: dict[str, str] = {}
    for name in _fields_to_export(trace):
        grad = getattr(gradients, name, None)
        if not isinstance(grad, torch.Tensor):
            continue  # the mask and the dropout mask have no gradient
        for stem, matrix in _matrices(trace, name, grad):
            files[f"gradients/d_{stem}.csv"] = _csv_text(name, matrix, labels)
    return files


def export_gradients(trace: AttentionTrace) -> Any:
    """The backward pass of ``trace`` (loss = the sum of the output), or None where it is too large
    (``MAX_GRADIENT_CELLS``): the zip then holds the forward pass only.
    """
    from .gradients import trace_gradients  # the backward pass is only built when asked for

    try:
        gradients = trace_gradients(trace.inputs, trace.config, loss="sum")
    except AttentionInputError:
        return None
    return gradients  # its trace is bitwise ``trace`` (tests/test_gradients.py pins it)


def export_files(
    trace: AttentionTrace,
    tokens: Sequence[str],
    environment: dict[str, Any] | None = None,
    gradients: Any = None,
) -> dict[str, str]:
    """Every file of the export by name (CSVs, README.txt, trace.json, reproduce_attention.py, and
    ``gradients/`` CSVs when ``gradients`` is given).
    """
    _check_environment(environment)
    _check_gradients(gradients)
    files = trace_csv_files(trace, tokens)
    grad_files = {} if gradients is None else gradient_csv_files(trace, gradients, tokens)
    result = {"README.txt": _readme(trace, list(files), gradients)}
    result.update(files)
    result.update(grad_files)
    result["trace.json"] = trace_json(trace, tokens, environment)
    style = script_style(trace)
    result[SNIPPET_FILE_NAMES[style]] = reproduce_snippet(trace, tokens, style)
    return result


def script_style(trace: AttentionTrace) -> str:
    """The export's script: the book's recipe, or ``trace_attention`` for a sliding window
    (the book's classes have none)."""
    return "book" if _check_trace(trace).config.window is None else "trace"


def export_zip(
    trace: AttentionTrace,
    tokens: Sequence[str],
    environment: dict[str, Any] | None = None,
    gradients: Any = None,
) -> bytes:
    """One zip of :func:`export_files` (CSVs with a UTF-8 byte-order mark); the same trace always
    gives the same bytes (fixed dates and order).
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, text in export_files(trace, tokens, environment, gradients).items():
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            encoding = CSV_ENCODING if name.endswith(".csv") else "utf-8"
            archive.writestr(info, text.encode(encoding))
    return buffer.getvalue()
