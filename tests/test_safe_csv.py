"""Every CSV the app writes is safe to open in a spreadsheet, and reads back as it was written.

The check of "safe" here is written from the spreadsheet's side, independently of
``attention.safe_csv``: a cell is a formula when it starts with ``= + - @``, a tab or a carriage
return and is not a plain number.
"""

from __future__ import annotations

import csv
import io
import zipfile

from attention import AttentionConfig, trace_attention
from attention.examples import embed_words
from attention.export import export_files, export_zip, trace_csv_files
from attention.safe_csv import csv_bytes, csv_safe, from_csv_safe, safe_csv_text
from tests.cases import subcases
from ui.table import Table, table_csv_file, table_from_csv, table_to_csv

HOSTILE_TOKENS = [
    '=HYPERLINK("http://example.com","click")',
    "+SUM(A1)",
    "@cmd",
    "-2+3+cmd|'/Ccalc'!A0",
    "'=already-guarded",
    "猫",
]
SPREADSHEET_FORMULA_STARTS = "=+-@\t\r"


def formula_cells(text: str) -> list[str]:
    """The cells of a CSV text that a spreadsheet would read as a formula."""
    found = []
    for row in csv.reader(io.StringIO(text)):
        for cell in row:
            if cell[:1] and cell[0] in SPREADSHEET_FORMULA_STARTS:
                try:
                    float(cell)  # -0.45 and -inf are numbers, not formulas
                except ValueError:
                    found.append(cell)
    return found


def hostile_table() -> Table:
    values = embed_words(HOSTILE_TOKENS, d_in=2).tolist()
    return Table(tuple(HOSTILE_TOKENS), tuple(tuple(row) for row in values))


@subcases(
    ("label", "written"),
    [
        ("=HYPERLINK(1)", "'=HYPERLINK(1)"),
        ("+1", "'+1"),
        ("-2", "'-2"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\r=1", "'\r=1"),
        (" =1", "' =1"),
        ("'=1", "''=1"),  # a guard typed by the user is kept: one more apostrophe
        ("'tis", "'tis"),
        ("Your", "Your"),
        ("a=b", "a=b"),
        ("猫", "猫"),
    ],
)
def test_csv_safe_neutralises_formula_starts_only(label: str, written: str) -> None:
    assert csv_safe(label) == written
    assert from_csv_safe(written) == label


def test_numbers_are_never_guarded_and_text_always_is() -> None:
    text = safe_csv_text([["-5", -0.5, float("-inf"), True, 3], ["x", 1.0, 2.0, False, -1]])
    assert text == "'-5,-0.5,-inf,1,3\nx,1.0,2.0,0,-1\n"


def test_embeddings_csv_neutralises_hostile_tokens_and_uploads_back_as_the_same_table() -> None:
    table = hostile_table()
    text = table_to_csv(table)
    assert formula_cells(text) == []
    labels = [row[0] for row in csv.reader(io.StringIO(text))][1:]
    assert labels[:4] == ["'" + token for token in HOSTILE_TOKENS[:4]]
    assert labels[4] == "''=already-guarded" and labels[5] == "猫"
    data = table_csv_file(table)
    assert data == csv_bytes(text) and data.startswith(b"\xef\xbb\xbf")  # a BOM for spreadsheets
    assert table_from_csv(data) == table  # round trip: every token and every float64 bit


def test_upload_removes_a_guard_written_by_another_tool() -> None:
    table = table_from_csv(b"token,x1\n'=1+1,0.5\n'hello,1\n")
    assert table.tokens == ("=1+1", "'hello")  # only a guard in front of a formula is removed


def test_every_csv_of_the_export_zip_neutralises_hostile_tokens() -> None:
    embeddings = embed_words(HOSTILE_TOKENS, d_in=3)
    trace = trace_attention(embeddings, AttentionConfig(dropout=0.5, qkv_bias=True))
    files = trace_csv_files(trace, HOSTILE_TOKENS)
    with zipfile.ZipFile(io.BytesIO(export_zip(trace, HOSTILE_TOKENS))) as archive:
        zipped = {name: archive.read(name).decode("utf-8-sig") for name in archive.namelist()}
    csv_names = [name for name in export_files(trace, HOSTILE_TOKENS) if name.endswith(".csv")]
    assert csv_names == list(files)
    for name in csv_names:
        assert formula_cells(zipped[name]) == [], name
    header = next(csv.reader(io.StringIO(zipped["attn_weights.csv"])))
    assert [from_csv_safe(cell) for cell in header[1:]] == HOSTILE_TOKENS
