"""CSV text that is safe to open in a spreadsheet and reads back exactly as it was written.

Every CSV file Attention Lab writes (the embedding table of the Embeddings page, every matrix of
the export zip) is built by :func:`safe_csv_text`, so the rule below holds everywhere.

Why a guard
    A spreadsheet reads a cell that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return as a *formula* (CSV or formula injection, OWASP). A token typed as
    ``=HYPERLINK("http://example.com","click")`` would become a live link in the downloaded file,
    and older spreadsheets run commands from such cells. OWASP's advice: start such a cell with a
    single quote ``'``, which spreadsheets show as text.

The rule
    - A **text** cell (a token, a row or column label) gets one leading ``'`` when, after any
      leading apostrophes and spaces, it starts with one of :data:`FORMULA_STARTS`:
      ``=1+1`` → ``'=1+1``, ``@cmd`` → ``'@cmd``, ``-5`` → ``'-5``; ``a=b`` and ``猫`` stay.
    - A **number** cell is written by the caller's ``number_text`` (the shortest text that reads
      back as the same number, ``-0.45``); a number never starts a formula, so it is never
      guarded. Booleans become ``1``/``0``. Numbers are always numbers the app formatted itself,
      never user text (a hidden score is the fixed word ``-inf``).

Reading back
    :func:`from_csv_safe` removes exactly the apostrophe that :func:`csv_safe` added, so
    ``from_csv_safe(csv_safe(text)) == text`` for every text, including a label that really
    starts with ``'`` (``'=x`` is written ``''=x`` and read back as ``'=x``). The Embeddings upload
    reads tokens this way, so a downloaded table uploads as the same table.
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
    """Rows of cells as CSV text (``\\n`` line ends): text cells guarded, numbers as numbers.

    ``number_text`` writes each float (for example the shortest text that reads back as the same
    float32); text cells go through :func:`csv_safe`. Quoting of commas, quotes and line breaks
    is the ``csv`` module's.
    """
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    for row in rows:
        writer.writerow([_cell_text(cell, number_text) for cell in row])
    return buffer.getvalue()


def csv_bytes(text: str) -> bytes:
    """CSV text as the bytes of a file: UTF-8 with a byte-order mark (for spreadsheets)."""
    return text.encode(CSV_ENCODING)
