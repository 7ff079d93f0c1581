"""The one reader of complaint files: CSV records with the line each starts on, JSONL values with theirs, and the
one error (file, line, what is wrong, what to do) that data.py, textfile.py and the service's uploads build on."""

from __future__ import annotations

import pytest

from mealwatch.data import DataError
from mealwatch.rowfile import CsvBreak, FileError, csv_rows, jsonl_rows
from mealwatch.serve.csv_io import CsvUploadError, csv_problem
from mealwatch.textfile import TextFileError


def test_file_error_says_file_line_problem_and_fix():
    e = FileError("a.csv", 3, "empty text", "write the complaint")
    assert str(e) == "a.csv, line 3: empty text; write the complaint"
    assert (e.file, e.line, e.problem, e.fix) == ("a.csv", 3, "empty text", "write the complaint")
    assert str(FileError("a.csv", None, "no examples")) == "a.csv: no examples"
    assert str(FileError("a.csv", None, "does not exist", "expected a .csv file", of_path=True)) == (
        "a.csv does not exist; expected a .csv file"
    )
    # every reader's error is one: a front end catches FileError once
    assert str(DataError("d.csv", 2, "no labels")) == "d.csv, line 2: no labels"
    assert str(TextFileError("t.txt", 2, "empty text")) == "t.txt:2: empty text"  # --input's file:line spelling
    assert issubclass(DataError, FileError) and issubclass(TextFileError, FileError)


def test_csv_records_keep_the_line_they_start_on_and_blank_ones():
    text = 'text,school\n"two\nlines",S1\n\nlast,S2\n'
    table = csv_rows(text, "f.csv", FileError.broken)
    assert table.header == ["text", "school"]
    assert table.records == [(2, ["two\nlines", "S1"]), (4, []), (5, ["last", "S2"])]
    assert csv_rows("", "f.csv", FileError.broken).header is None


def test_a_broken_quote_is_said_plainly_by_each_reader():
    unclosed = 'text\nfine\n"never closed\nmore\n'
    with pytest.raises(FileError) as caught:
        csv_rows(unclosed, "f.csv", DataError.broken, strict=True)
    assert isinstance(caught.value, DataError) and caught.value.line == 3
    assert str(caught.value).startswith("f.csv, line 3: the double quote that opens a text here is never closed")
    with pytest.raises(CsvUploadError, match="the double quote that opens a text on line 3 is never closed"):
        csv_rows(unclosed, "upload.csv", csv_problem, strict=True)
    stray = CsvBreak(start=2, line=2, detail="',' expected after '\"'")
    assert stray.stray_quote and FileError.broken("f.csv", stray).line == 2


def test_jsonl_values_with_their_lines_and_a_line_that_is_not_json():
    text = '{"text": "a\u2028b"}\n\n  \n["x"]\r\n'
    assert jsonl_rows(text, "f.jsonl", FileError) == [(1, {"text": "a\u2028b"}), (4, ["x"])]  # U+2028 inside a string
    with pytest.raises(DataError, match=r"f\.jsonl, line 2: malformed JSON \(.* at column 2\); write one JSON object"):
        jsonl_rows('{"text": "ok"}\n{broken\n', "f.jsonl", DataError)
    with pytest.raises(TextFileError, match=r"f\.jsonl:1: not valid JSON"):
        jsonl_rows("{broken\n", "f.jsonl", TextFileError, said="not valid JSON")
