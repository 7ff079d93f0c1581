"""One CSV writer: formula cells neutralised, every line break quoted, one complaint one record."""

import csv
import io

from mealwatch.csvfile import cell, write_csv


def test_formula_prefixes_are_neutralised_but_numbers_are_not():
    for dangerous in ('=HYPERLINK("http://x")', "+91 98765", "@SUM(A1)", "\tcmd", "-2+3"):
        assert cell(dangerous).startswith("'"), dangerous
    assert cell("-3.5") == "-3.5" and cell(0.25) == "0.250000" and cell(True) == "true" and cell(None) == ""
    assert cell(["a", "b"], "labels") == "a;b" and cell(["x", "y"], "review_reasons") == "x | y"


def test_bare_carriage_return_stays_inside_one_record():
    text = write_csv(["id", "text"], [[1, "dal was sour\rkids vomited"], [2, "line\nbreak"]])
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows == [["id", "text"], ["1", "dal was sour\rkids vomited"], ["2", "line\nbreak"]]


def test_devanagari_is_kept_whole():
    text = write_csv(["text"], [["बच्चों को उल्टी हुई"]])
    assert list(csv.reader(io.StringIO(text, newline="")))[1] == ["बच्चों को उल्टी हुई"]


def test_a_file_for_a_program_keeps_formula_like_text_exactly():
    text = write_csv(["text", "labels"], [["=cmd|' /C calc'!A0", ["illness"]], ["-- dal kharab", []]],
                     spreadsheet_safe=False)  # fmt: skip
    assert text == "text,labels\r\n=cmd|' /C calc'!A0,illness\r\n-- dal kharab,\r\n"


def test_the_formula_guard_is_undone_exactly():
    from hypothesis import given
    from hypothesis import strategies as st

    from mealwatch.csvfile import unguard

    @given(st.text(alphabet=st.sampled_from(["'", "=", "+", "-", "@", "\t", "\r", "a", "1", ".", " "]), max_size=8))
    def round_trip(text):
        assert unguard(cell(text)) == text
        assert not cell(text).startswith(("=", "+", "-", "@", "\t", "\r")) or float(text) is not None

    round_trip()
    assert cell("'=x") == "''=x" and unguard("''=x") == "'=x" and unguard("'=x") == "=x"
    assert unguard("'quoted'") == "'quoted'" and unguard("it's") == "it's" and cell("-3.5") == "-3.5"


def test_a_file_for_a_spreadsheet_starts_with_a_byte_order_mark():
    text = write_csv(["text"], [["बच्चों को उल्टी"]], bom=True)
    assert text.startswith("\ufefftext\r\n") and text.encode("utf-8")[:3] == b"\xef\xbb\xbf"
    assert not write_csv(["text"], [["x"]]).startswith("\ufeff")
