"""Parallel files (complaints with labels, everyday sentences without): read whole, or refused naming the line."""

import pytest

from mealwatch.adapt.recipe import AdaptationData
from mealwatch.data import (
    DataError,
    Dataset,
    Example,
    ParallelComplaint,
    ParallelSentence,
    read_parallel,
    read_parallel_sentences,
)


def write(tmp_path, text: str):
    path = tmp_path / "pairs.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_everyday_sentences_read_back_whole(tmp_path):
    path = write(
        tmp_path, 'english,devanagari,romanised\n"The bus was late, again.",बस फिर से देर से आई।, bus fir late aayi \n'
    )
    assert read_parallel_sentences(path) == [
        ParallelSentence("The bus was late, again.", "बस फिर से देर से आई।", "bus fir late aayi")
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("english,devanagari\nhello,नमस्ते\n", r"line 1: no column 'romanised'"),
        ("english,devanagari,romanised\nhello,नमस्ते,namaste\nbye,,bye\n", r"line 3: every column needs a value"),
    ],
)
def test_a_broken_sentences_file_is_refused_naming_the_line(tmp_path, text, message):
    with pytest.raises(DataError, match=message):
        read_parallel_sentences(write(tmp_path, text))


def test_parallel_complaints_keep_their_labels_and_refuse_a_missing_column(tmp_path):
    path = write(tmp_path, "english,labels,devanagari,romanised\na lizard,foreign_object; illness ,छिपकली,chipkali\n")
    assert read_parallel(path) == [ParallelComplaint("a lizard", ("foreign_object", "illness"), "छिपकली", "chipkali")]
    with pytest.raises(DataError, match="no column 'labels'"):
        read_parallel(write(tmp_path, "english,devanagari,romanised\na,ब,b\n"))


def test_adaptation_distils_both_renderings_of_complaints_and_sentences():
    train = Dataset.from_examples([Example("दाल में कीड़ा था", ("foreign_object",), 1)], ["foreign_object"], True)
    complaint = ParallelComplaint("a worm in the dal", ("foreign_object",), "दाल में कीड़ा", "dal me keeda")
    sentence = ParallelSentence("the phone is good", "फ़ोन अच्छा है", "phone accha hai")
    data = AdaptationData.of(train, [complaint], [sentence])
    assert data.texts == ["दाल में कीड़ा था"]
    assert data.pairs == [
        ("a worm in the dal", "दाल में कीड़ा"),
        ("a worm in the dal", "dal me keeda"),
        ("the phone is good", "फ़ोन अच्छा है"),
        ("the phone is good", "phone accha hai"),
    ]


def test_adapt_refuses_a_missing_or_broken_sentences_file_before_any_work(tmp_path, capsys):
    from mealwatch.cli import main

    assert main(["adapt", "--out", str(tmp_path / "enc"), "--sentences", str(tmp_path / "nope.csv")]) == 2
    assert "--sentences" in capsys.readouterr().err
    broken = write(tmp_path, "english,devanagari\nhello,नमस्ते\n")
    assert main(["adapt", "--out", str(tmp_path / "enc"), "--sentences", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "line 1: no column 'romanised'" in err and "Traceback" not in err
    assert not (tmp_path / "enc").exists()
