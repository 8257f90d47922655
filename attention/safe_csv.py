"""CSV text that is safe to open in a spreadsheet and reads back exactly as it was written.

Every CSV the app writes is built by :func:`safe_csv_text`. A spreadsheet runs a cell that starts
with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return as a formula (OWASP: CSV injection),
so a text cell that starts with one of :data:`FORMULA_STARTS` (after apostrophes and spaces)
gets one leading ``'``: ``=1+1`` → ``'=1+1``; ``a=b`` stays. Numbers are written by the app
itself and never guarded. :func:`from_csv_safe` removes exactly that ``'``, so
``from_csv_safe(csv_safe(text)) == text`` and a downloaded table uploads as the same table.
"""

from __future__ import annotations

import csv
import io
import numbers
from collections.abc import Callable, Iterable, Sequence

__all__ = [
    "CSV_ENCODING",
    "FORMULA_STARTS",
    "GUARD",
    "csv_bytes",
    "csv_safe",
    "from_csv_safe",
    "safe_csv_text",
]

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n")  # what makes a spreadsheet read a formula
GUARD = "'"  # the leading apostrophe that makes a spreadsheet read a cell as text
_SKIPPED_BEFORE_A_FORMULA = GUARD + " "  # `' =1` and ` =1` still reach the formula parser
CSV_ENCODING = "utf-8-sig"  # a byte-order mark, so that spreadsheets read Chinese tokens right

CsvCell = str | float | int | bool


def _starts_a_formula(text: str) -> bool:
    return text.lstrip(_SKIPPED_BEFORE_A_FORMULA).startswith(FORMULA_STARTS)


def csv_safe(text: object) -> str:
    """``text`` made harmless for spreadsheets: a leading ``'`` if it could start a formula."""
    text = str(text)
    return GUARD + text if _starts_a_formula(text) else text


def from_csv_safe(text: str) -> str:
    """The text :func:`csv_safe` was given: its guard apostrophe removed, nothing else."""
    if text.startswith(GUARD) and _starts_a_formula(text[1:]):
        return text[1:]
    return text


def _cell_text(cell: CsvCell, number_text: Callable[[float], str]) -> str:
    if isinstance(cell, bool):
        return "1" if cell else "0"
    if isinstance(cell, numbers.Integral):
        return str(int(cell))
    if isinstance(cell, numbers.Real):
        return number_text(float(cell))
    return csv_safe(cell)


def safe_csv_text(
    rows: Iterable[Sequence[CsvCell]], number_text: Callable[[float], str] = repr
) -> str:
    """Rows of cells as CSV text (``\\n`` line ends): text cells through :func:`csv_safe`, floats by
    ``number_text``, quoting by the ``csv`` module.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in rows:
        writer.writerow([_cell_text(cell, number_text) for cell in row])
    return buffer.getvalue()


def csv_bytes(text: str) -> bytes:
    """CSV text as the bytes of a file: UTF-8 with a byte-order mark (for spreadsheets)."""
    return text.encode(CSV_ENCODING)
