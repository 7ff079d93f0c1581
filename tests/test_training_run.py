"""The main job: renderings of training complaints only, and the bundled data's own."""

import pytest

from mealwatch.data import Dataset, Example, ParallelComplaint
from mealwatch.learning.training_run import with_renderings
from mealwatch.learning.training import TrainingArguments

pytestmark = pytest.mark.usefixtures("one_thread")
LABELS = ["foreign_object", "illness"]


def dataset(rows) -> Dataset:
    return Dataset.from_examples([Example(t, (label,), i) for i, (t, label) in enumerate(rows)], LABELS, True)


ENGLISH = dataset([("a lizard in the dal", "foreign_object"), ("children vomited after lunch", "illness")] * 5)
HINDI = dataset([("दाल में छिपकली थी", "foreign_object"), ("bacche ulti kar rahe hai khana khane ke baad", "illness")])
PARALLEL = [
    ParallelComplaint("a lizard in the dal", ("foreign_object",), "दाल में छिपकली", "dal me chhipkali"),
    ParallelComplaint("a complaint of the test split", ("illness",), "परीक्षा की शिकायत", "test wali shikayat"),
]


def test_renderings_join_only_for_complaints_of_the_training_split():
    augmented = with_renderings(ENGLISH, PARALLEL)
    added = augmented.examples[len(ENGLISH) :]
    assert [(e.text, e.labels, e.script) for e in added] == [
        ("दाल में छिपकली", ("foreign_object",), "deva"),
        ("dal me chhipkali", ("foreign_object",), "latn-hi"),
    ]  # the test-split complaint's renderings never reach training


def test_bundled_data_brings_its_parallel_renderings_and_other_data_none(tmp_path):
    from mealwatch.learning.training_run import default_parallel, load_training_data

    bundled = load_training_data(None)
    assert len(default_parallel(bundled)) >= 1000
    # each split joined by the same split of the other languages' complaints, unless left out
    assert {"ta", "bn", "ur"} <= set(bundled["train"].languages()) and {"ta"} <= set(bundled["test"].languages())
    complaints_only = load_training_data(None, languages=False)
    assert "ta" not in complaints_only["validation"].languages()
    assert len(bundled["validation"]) == len(complaints_only["validation"]) + 900  # 90 per language (66 + 24)
    (tmp_path / "mine.csv").write_text("text,labels\n" + "a lizard in the dal,foreign_object\n" * 3, encoding="utf-8")
    assert default_parallel({"train": load_training_data(tmp_path / "mine.csv")["train"]}) == []


def test_other_data_trains_without_the_bundled_renderings(monkeypatch, tmp_path):
    from mealwatch.learning import training_run
    from mealwatch.data import read_parallel

    seen = {}

    class Trained(Exception):
        pass

    def train(train_set, validation, args, progress=True):
        seen["train"] = train_set
        raise Trained  # stop before training

    monkeypatch.setattr("mealwatch.learning.training.train", train)
    splits = {"train": HINDI, "validation": HINDI}
    with pytest.raises(Trained):
        training_run.train_and_save(splits, TrainingArguments(), tmp_path)  # not the bundled data: no renderings
    assert seen["train"].examples == HINDI.examples
    with pytest.raises(Trained):
        training_run.train_and_save(splits, TrainingArguments(), tmp_path, parallel=PARALLEL[:1])  # not its complaints
    assert seen["train"].examples == HINDI.examples
    assert with_renderings(HINDI, read_parallel()).examples == HINDI.examples  # none are renderings of its texts
