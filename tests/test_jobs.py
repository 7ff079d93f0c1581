"""The main job on Hindi data: when the encoder is adapted, the cache, and renderings of training complaints only."""

import pytest

from mealwatch.adapt.recipe import ADAPT_FILE, AdaptArguments, read_adaptation
from mealwatch.data import Dataset, Example, ParallelComplaint
from mealwatch.jobs import adapted_encoder, hindi_share, should_adapt, with_renderings
from mealwatch.training import TrainingArguments

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


def test_adapt_only_the_english_encoder_when_the_data_has_hindi():
    mixed = Dataset.from_examples(ENGLISH.examples + HINDI.examples, LABELS, True)
    assert hindi_share(ENGLISH) == 0.0 and hindi_share(mixed) == pytest.approx(2 / 12)
    args = TrainingArguments(encoder_path="minilm")
    assert not should_adapt({"train": ENGLISH}, args)
    assert should_adapt({"train": mixed}, args)
    assert not should_adapt({"train": mixed}, TrainingArguments())  # the multilingual default reads Hindi already
    assert not should_adapt({"train": mixed}, TrainingArguments(encoder_path="/some/muril"))  # the user chose one
    assert not should_adapt({"train": mixed}, args, "off") and should_adapt({"train": ENGLISH}, args, "on")
    assert not should_adapt({"train": mixed}, TrainingArguments(pretrained=False))
    with pytest.raises(ValueError, match="adapt must be one of"):
        should_adapt({"train": mixed}, args, "sometimes")


def test_renderings_join_only_for_complaints_of_the_training_split():
    augmented = with_renderings(ENGLISH, PARALLEL)
    added = augmented.examples[len(ENGLISH) :]
    assert [(e.text, e.labels, e.script) for e in added] == [
        ("दाल में छिपकली", ("foreign_object",), "deva"),
        ("dal me chhipkali", ("foreign_object",), "latn-hi"),
    ]  # the test-split complaint's renderings never reach training


def test_adapted_encoder_is_built_once_and_reused(tiny_encoder_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("MEALWATCH_HOME", str(tmp_path / "home"))
    recipe = AdaptArguments(pieces=100, distill_epochs=1, batch_size=4)
    first = adapted_encoder(HINDI, PARALLEL, str(tiny_encoder_dir), recipe, progress=False, sentences=[])
    assert (first / ADAPT_FILE).is_file() and first.parent == tmp_path / "home" / "cache" / "encoders"
    stamp = (first / ADAPT_FILE).stat().st_mtime_ns
    again = adapted_encoder(HINDI, PARALLEL, str(tiny_encoder_dir), recipe, progress=False, sentences=[])
    assert again == first and (first / ADAPT_FILE).stat().st_mtime_ns == stamp  # the cache, not a rebuild
    other = adapted_encoder(HINDI, PARALLEL[:1], str(tiny_encoder_dir), recipe, progress=False, sentences=[])
    assert other != first  # other data, another folder
    assert read_adaptation(first)["pairs"] == 4


def test_bundled_data_brings_its_parallel_renderings_and_other_data_none(tmp_path):
    from mealwatch.jobs import default_parallel, load_training_data

    bundled = load_training_data(None)
    assert len(default_parallel(bundled)) >= 1000
    (tmp_path / "mine.csv").write_text("text,labels\n" + "a lizard in the dal,foreign_object\n" * 3, encoding="utf-8")
    assert default_parallel({"train": load_training_data(tmp_path / "mine.csv")["train"]}) == []


def test_other_hindi_data_is_distilled_on_the_bundled_renderings_which_never_join_its_training(monkeypatch, tmp_path):
    from mealwatch import jobs
    from mealwatch.data import read_parallel

    seen = {}

    class Adapted(Exception):
        pass

    def adapted_encoder(train, parallel, base=None, recipe=None, progress=True):
        seen["pairs"] = parallel
        raise Adapted  # stop before training

    monkeypatch.setattr(jobs, "adapted_encoder", adapted_encoder)
    splits = {"train": HINDI, "validation": HINDI}
    with pytest.raises(Adapted):
        jobs.train_and_save(splits, TrainingArguments(), tmp_path, adapt="on")  # not the bundled data: no renderings
    assert seen["pairs"] == read_parallel() and len(seen["pairs"]) >= 1000
    with pytest.raises(Adapted):
        jobs.train_and_save(splits, TrainingArguments(), tmp_path, adapt="on", parallel=PARALLEL)  # its own
    assert seen["pairs"] == PARALLEL
    assert jobs.adaptation_parallel([]) == read_parallel()
    assert with_renderings(HINDI, read_parallel()).examples == HINDI.examples  # none are renderings of its texts


def test_everyday_sentences_are_distilled_only_when_given(monkeypatch, tmp_path):
    from mealwatch.adapt import recipe
    from mealwatch.data import read_parallel_sentences

    monkeypatch.setenv("MEALWATCH_HOME", str(tmp_path / "home"))
    seen = []

    def adapt_encoder(out, texts, pairs, **kwargs):
        seen.append(pairs)
        raise RuntimeError("stop before the work")

    monkeypatch.setattr(recipe, "adapt_encoder", adapt_encoder)
    everyday = read_parallel_sentences()
    for sentences in (None, everyday):
        with pytest.raises(RuntimeError, match="stop before the work"):
            adapted_encoder(HINDI, PARALLEL, progress=False, sentences=sentences)
    assert len(seen[0]) == 2 * len(PARALLEL)  # the default: the complaints alone
    assert len(seen[1]) == 2 * (len(PARALLEL) + len(everyday))
    assert (everyday[0].english, everyday[0].devanagari) in seen[1]
