"""The embedding table as the user types it: parse, check and name every bad cell.

The *draft* is strings exactly as typed (nothing typed is lost, even ``"abc"``); the *committed*
table, the last fully valid draft, is what every page computes from, so a bad edit never blanks
the page. Pure Python: drafts, URL values and uploads become tables or :class:`InputProblem`
messages that say what is wrong and where.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass

from attention.safe_csv import csv_bytes, from_csv_safe, safe_csv_text
from attention.validate import MAX_ABS_VALUE
from viz.markdown_text import escape_markdown
from viz.vocabulary import input_labels

from .i18n import t
from .limits import limit

TOKEN_COLUMN = "token"
# The longest sentence or table the app takes: the core's limit unless the operator set a lower one.
MAX_TOKENS = int(limit("ATTENTION_LAB_MAX_TOKENS"))
MAX_D_IN = 64  # columns of the embedding table the app offers (the core accepts more)
MAX_UPLOAD_BYTES = 1024 * 1024


@dataclass(unsafe_hash=True)  # not frozen: Python sets __traceback__ on a raised exception
class InputProblem(Exception):
    """What is wrong with a table, as a message key of the catalogue and its values."""

    key: str
    values: tuple[tuple[str, object], ...] = ()

    @property
    def kwargs(self) -> dict[str, object]:
        return dict(self.values)


def problem(key: str, **values: object) -> InputProblem:
    return InputProblem(key, tuple(values.items()))


def message(item: InputProblem) -> str:
    """A InputProblem in the current language (nested problems are rendered too).

    Values may come from the user (a token, a cell, a URL value): they are escaped so that the
    Markdown of ``st.error``/``st.warning`` shows them literally.
    """
    values = {
        name: message(value)
        if isinstance(value, InputProblem)
        else escape_markdown(value)
        if isinstance(value, str)
        else value
        for name, value in item.kwargs.items()
    }
    return t(item.key, **values)


def shorten(text: str, limit: int = 40) -> str:
    """``text`` cut to ``limit`` characters (an ellipsis marks the cut), for quoting in a message."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class Table:
    """A valid embedding table: one label and ``d_in`` numbers per token."""

    tokens: tuple[str, ...]
    values: tuple[tuple[float, ...], ...]  # (T, d_in)

    @property
    def d_in(self) -> int:
        return len(self.values[0])

    @property
    def num_tokens(self) -> int:
        return len(self.tokens)

    def column_names(self) -> list[str]:
        return input_labels(self.d_in)

    def to_draft(self) -> list[dict[str, str]]:
        """The table as strings, one dict per row, ready for a data editor."""
        names = self.column_names()
        return [
            {TOKEN_COLUMN: token, **{n: exact_text(v) for n, v in zip(names, row, strict=True)}}
            for token, row in zip(self.tokens, self.values, strict=True)
        ]


def exact_text(value: float) -> str:
    """The shortest text that reads back as the same float (``0.43``, not ``0.4300000071``)."""
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def parse_cell(text: object) -> float | None:
    """A cell's text as a float, or None when it is not a number at all."""
    if text is None:
        return None
    if isinstance(text, int | float) and not isinstance(text, bool):
        return float(text)
    try:
        return float(str(text).strip())
    except ValueError:
        return None


def check_token(token: object, row: int) -> str:
    label = "" if token is None else str(token).strip()
    if not label or label.lower() == "nan" and not isinstance(token, str):
        raise problem("table.empty_token", row=row + 1)
    if any(ch.isspace() for ch in label):
        raise problem("table.space_in_token", row=row + 1, token=label)
    if len(label) > 100:
        raise problem("table.long_token", row=row + 1)
    return label


def check_value(text: object, row: int, column: str, token: str) -> float:
    raw = "" if text is None else str(text).strip()
    if raw == "" or raw.lower() == "none":
        raise problem("table.empty_cell", row=row + 1, column=column, token=token)
    value = parse_cell(raw)
    if value is None:
        raise problem("table.not_a_number", row=row + 1, column=column, token=token, text=raw)
    if not math.isfinite(value):
        raise problem("table.not_finite", row=row + 1, column=column, token=token, text=raw)
    if abs(value) > MAX_ABS_VALUE:
        raise problem(
            "table.too_large", row=row + 1, column=column, token=token, text=raw, limit="1e6"
        )
    return value


def table_from_rows(rows: list[dict[str, object]], columns: list[str]) -> Table:
    """Check a draft (rows of strings) and return the valid :class:`Table`.

    Raises:
        InputProblem: the first problem found, naming row (1-based), column and token.
    """
    if not rows:
        raise problem("table.no_rows")
    if len(rows) > MAX_TOKENS:
        raise problem("table.too_many_rows", rows=len(rows), limit=MAX_TOKENS)
    value_columns = [c for c in columns if c != TOKEN_COLUMN]
    if not value_columns:
        raise problem("table.no_columns")
    if len(value_columns) > MAX_D_IN:
        raise problem("table.too_many_columns", columns=len(value_columns), limit=MAX_D_IN)
    tokens: list[str] = []
    values: list[tuple[float, ...]] = []
    for index, row in enumerate(rows):
        token = check_token(row.get(TOKEN_COLUMN), index)
        tokens.append(token)
        values.append(tuple(check_value(row.get(c), index, c, token) for c in value_columns))
    return Table(tuple(tokens), tuple(values))


def table_from_text_and_emb(words: list[str], emb: str) -> Table:
    """The ``emb`` URL value (rows by ``;``, values by ``,``) with the sentence's words as labels."""
    text_rows = emb.strip().split(";")
    if text_rows and text_rows[-1].strip() == "":
        text_rows = text_rows[:-1]  # allow a trailing ";"
    if len(text_rows) != len(words):
        raise problem("url.emb_rows", rows=len(text_rows), words=len(words))
    cells = [r.split(",") for r in text_rows]
    width = len(cells[0]) if cells else 0
    for index, row in enumerate(cells):
        if len(row) != width:
            raise problem("url.emb_ragged", row=index + 1, got=len(row), expected=width)
    names = input_labels(width)
    rows = [
        {TOKEN_COLUMN: word, **dict(zip(names, row, strict=True))}
        for word, row in zip(words, cells, strict=True)
    ]
    return table_from_rows(rows, [TOKEN_COLUMN, *names])


def emb_to_text(table: Table) -> str:
    """The inverse of :func:`table_from_text_and_emb`'s ``emb`` format."""
    return ";".join(",".join(exact_text(v) for v in row) for row in table.values)


def table_to_csv(table: Table) -> str:
    """CSV with a header ``token,x1,…``: what the download button gives and the upload reads.

    Written by :func:`attention.safe_csv.safe_csv_text`: a token that could start a spreadsheet
    formula (``=HYPERLINK(…)``, ``+SUM(A1)``, ``@cmd``, ``-5``) gets a leading ``'``, which
    :func:`table_from_csv` removes again; values are the shortest text of each float.
    """
    header = [TOKEN_COLUMN, *table.column_names()]
    body = ([token, *row] for token, row in zip(table.tokens, table.values, strict=True))
    return safe_csv_text([header, *body], number_text=exact_text)


def table_csv_file(table: Table) -> bytes:
    """The bytes of the downloaded CSV file: :func:`table_to_csv` with a UTF-8 byte-order mark."""
    return csv_bytes(table_to_csv(table))


def table_from_csv(data: bytes) -> Table:
    """Read an uploaded CSV (header ``token,x1,…``); every problem becomes a InputProblem.

    A token's formula guard (the leading ``'`` of ``'=1+1``, see :mod:`attention.safe_csv`) is
    removed, so a downloaded table uploads as the same table.
    """
    if len(data) > MAX_UPLOAD_BYTES:
        raise problem("upload.too_large", size=len(data), limit=MAX_UPLOAD_BYTES)
    if b"\x00" in data:
        raise problem("upload.binary")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise problem("upload.not_utf8") from None
    try:
        parsed = list(csv.reader(io.StringIO(text)))
    except csv.Error as error:
        raise problem("upload.bad_csv", detail=str(error)) from None
    parsed = [row for row in parsed if any(cell.strip() for cell in row)]
    if not parsed:
        raise problem("upload.empty")
    header = [cell.strip() for cell in parsed[0]]
    if len(header) < 2 or header[0].lower() != TOKEN_COLUMN:
        raise problem("upload.header", header=",".join(header)[:80])
    names = input_labels(len(header) - 1)
    if header[1:] != names:
        raise problem("upload.header", header=",".join(header)[:80])
    body = parsed[1:]
    if len(body) > MAX_TOKENS:
        raise problem("table.too_many_rows", rows=len(body), limit=MAX_TOKENS)
    rows = []
    for index, cells in enumerate(body):
        if len(cells) != len(header):
            raise problem("upload.ragged", row=index + 1, got=len(cells), expected=len(header))
        token, *values = cells
        rows.append(dict(zip([TOKEN_COLUMN, *names], [from_csv_safe(token), *values], strict=True)))
    return table_from_rows(rows, [TOKEN_COLUMN, *names])
