"""Parallel complaint files: read whole, or refused naming the line."""

import pytest

from mealwatch.data import DataError, ParallelComplaint, read_parallel


def write(tmp_path, text: str):
    path = tmp_path / "pairs.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_parallel_complaints_keep_their_labels_and_refuse_a_missing_column(tmp_path):
    path = write(tmp_path, "english,labels,devanagari,romanised\na lizard,foreign_object; illness ,छिपकली,chipkali\n")
    assert read_parallel(path) == [ParallelComplaint("a lizard", ("foreign_object", "illness"), "छिपकली", "chipkali")]
    with pytest.raises(DataError, match="no column 'labels'"):
        read_parallel(write(tmp_path, "english,devanagari,romanised\na,ब,b\n"))
