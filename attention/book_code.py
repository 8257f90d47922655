"""The book's code as data: the statements of a class in ``attention/modules.py``, found by anchors.

A page shows the lines that ran, read from the class itself. An *anchor* is a piece of a
statement's text; a statement over several lines is returned whole::

    find_statement(CausalAttention, "torch.softmax(").text
    # 'attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)'
    marked_source(CausalAttention, "softmax").text   # the class, its softmax line marked ▶
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass
from functools import cache

from .modules import CausalAttention, MultiHeadAttention
from .steps import STEPS

__all__ = [
    "MARKER",
    "MULTI_HEAD_ANCHORS",
    "STEP_ANCHORS",
    "MarkedSource",
    "Statement",
    "find_statement",
    "marked_source",
    "statements",
]

MARKER = "▶"  # written at the start of a marked line, in place of its first indentation

# The statements of ``CausalAttention`` that compute each step, by step name: each step of
# ``attention.steps.STEPS`` declares its own anchors.
STEP_ANCHORS: dict[str, tuple[str, ...]] = {step.name: step.anchors for step in STEPS}

# The statements of ``MultiHeadAttention`` for its stages (the Multi-head page).
MULTI_HEAD_ANCHORS: dict[str, tuple[str, ...]] = {
    "split": ("keys = keys.view(", "values = values.view(", "queries = queries.view("),
    "transpose": ("keys = keys.transpose(1, 2)", "queries = queries.transpose(1, 2)"),
    "mask": ("mask_bool = self.mask.bool()", "attn_scores.masked_fill_(mask_bool"),
    "weights": ("torch.softmax(", "attn_weights = self.dropout(attn_weights)"),
    "join": ("(attn_weights @ values).transpose(1, 2)", "context_vec.contiguous().view("),
    "out_proj": ("self.out_proj = nn.Linear", "context_vec = self.out_proj(context_vec)"),
}


@dataclass(frozen=True)
class Statement:
    """One statement of a class's source: its text (dedented) and its lines in modules.py."""

    first_line: int  # 1-based, in the class's source file
    last_line: int
    text: str


@dataclass(frozen=True)
class MarkedSource:
    """A class's source with some lines marked: what a page shows beside a step."""

    text: str  # the class without its docstring, marked lines starting with MARKER
    first_line: int  # the file's line number of the class's first line
    marked_lines: tuple[int, ...]  # file line numbers of the marked lines


@cache
def _source(cls: type) -> tuple[tuple[str, ...], int]:
    lines, first_line = inspect.getsourcelines(cls)
    return tuple(line.rstrip("\n") for line in lines), first_line


@cache
def statements(cls: type) -> tuple[Statement, ...]:
    """Every simple statement of ``cls``'s methods (a compound one's body, not its header), in order."""
    lines, first_line = _source(cls)
    tree = ast.parse(textwrap.dedent("\n".join(lines)))
    found: list[Statement] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            found.append(_statement(lines, first_line, node.lineno, node.lineno))  # its def line
        elif isinstance(node, ast.stmt) and not isinstance(node, ast.ClassDef):
            end = node.end_lineno or node.lineno
            found.append(_statement(lines, first_line, node.lineno, end))
    return tuple(sorted(found, key=lambda s: s.first_line))


def _statement(lines: tuple[str, ...], first_line: int, start: int, end: int) -> Statement:
    text = textwrap.dedent("\n".join(lines[start - 1 : end]))
    return Statement(first_line + start - 1, first_line + end - 1, text)


def find_statement(cls: type, anchor: str) -> Statement:
    """The first statement of ``cls`` whose text contains ``anchor``; LookupError when none does."""
    for statement in statements(cls):
        if anchor in statement.text:
            return statement
    raise LookupError(f"No statement of {cls.__name__} contains {anchor!r}.")


@cache
def marked_source(cls: type, step: str) -> MarkedSource:
    """``cls``'s source with the statements of ``step`` marked (``STEP_ANCHORS`` or, for
    ``MultiHeadAttention``, ``MULTI_HEAD_ANCHORS``)."""
    anchors = (MULTI_HEAD_ANCHORS if cls is MultiHeadAttention else STEP_ANCHORS)[step]
    lines, first_line = _source(cls)
    marked: set[int] = set()
    for anchor in anchors:
        statement = find_statement(cls, anchor)
        marked.update(range(statement.first_line, statement.last_line + 1))
    docstring = _docstring_lines(cls)
    shown = []
    for number, line in enumerate(lines, start=first_line):
        if number in docstring:
            continue  # the class's docstring: the page explains in its own words
        if number in marked and line.startswith("  "):
            line = MARKER + " " + line[2:]  # the indentation keeps its width
        shown.append(line)
    return MarkedSource("\n".join(shown), first_line, tuple(sorted(marked)))


def _docstring_lines(cls: type) -> range:
    """The file line numbers of ``cls``'s docstring (empty when it has none)."""
    lines, first_line = _source(cls)
    body = ast.parse(textwrap.dedent("\n".join(lines))).body[0].body  # type: ignore[attr-defined]
    first = body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
        return range(first_line + first.lineno - 1, first_line + (first.end_lineno or 0))
    return range(0)


def book_line(anchor: str, cls: type = CausalAttention) -> str:
    """The text of the statement of the book's ``cls`` that contains ``anchor``."""
    return find_statement(cls, anchor).text
