"""``mealwatch train``, ``evaluate`` and ``predict`` end to end on a tiny encoder, and the runs/ folder."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
import torch

from mealwatch import Encoder
from mealwatch.classifier import is_classifier_dir
from mealwatch.pipeline import Pipeline
from mealwatch.cli import main
from mealwatch.runs import NoModelError, latest_run, new_run_dir, resolve_model
from mealwatch.transformer import bundled_model_dir

pytestmark = pytest.mark.usefixtures("one_thread")  # tiny models: one thread (tests/conftest.py)

ROWS = [
    ("There was a dead lizard in the dal today", "foreign_object"),
    ("We found small stones in the rice again", "foreign_object"),
    ("A worm was crawling in the khichdi", "foreign_object"),
    ("Ten children vomited after the midday meal", "illness"),
    ("My daughter had a stomach ache after lunch", "illness"),
    ("Students fainted after eating and went to hospital", "illness"),
    ("A lizard fell into the food and children fell ill", "foreign_object;illness"),
    ("No meal was served today at the school", "meal_not_served"),
    ("The kitchen has been closed for a week", "meal_not_served"),
    ("Cooking stopped because there is no gas cylinder", "meal_not_served"),
    ("Thank you, the food has become much better", "other"),
    ("The school boundary wall is broken", "other"),
]
TEXTS = ["insects in the rice", "no food was cooked today, the cook is absent", "my son vomited", "thanks"]


def write_csv(path, rows):
    with open(path, "w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["text", "labels"])
        writer.writerows(rows)
    return path


@pytest.fixture(scope="module")
def trained(tmp_path_factory, tokenizer):
    """A tiny random encoder folder, tiny data files, and a model trained on them with `mealwatch train`."""
    root = tmp_path_factory.mktemp("cli")
    encoder_dir = root / "tiny-encoder"
    torch.manual_seed(0)
    from mealwatch import EncoderConfig

    config = EncoderConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                           intermediate_size=64, max_position_embeddings=128)  # fmt: skip
    Encoder(config).save_pretrained(encoder_dir)
    shutil.copyfile(bundled_model_dir() / "tokenizer.json", encoder_dir / "tokenizer.json")
    files = {name: write_csv(root / f"{name}.csv", rows)
             for name, rows in {"train": ROWS, "validation": ROWS[::2], "test": ROWS[1::2]}.items()}  # fmt: skip
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    out = root / "model"
    code = main(["train", "--data", str(files["train"]), "--validation", str(files["validation"]), "--test",
                 str(files["test"]), "--encoder", str(encoder_dir), "--out", str(out), "--epochs", "2", "--lr", "1e-3",
                 "--quiet"])  # fmt: skip
    torch.set_num_threads(threads)
    assert code == 0
    return {"root": root, "model": out, "encoder": encoder_dir, **files}


def test_train_saves_a_model_with_its_evaluation(trained):
    names = {p.name for p in trained["model"].iterdir()}
    assert {"config.json", "model.safetensors", "tokenizer.json", "metrics.json", "report.md"} <= names
    assert any(name.endswith(".png") for name in names)
    metrics = json.loads((trained["model"] / "metrics.json").read_text())
    assert metrics["n"] == len(ROWS[1::2])  # the test split
    model = Pipeline.from_folder(trained["model"])
    assert model.labels == ["foreign_object", "illness", "meal_not_served", "other"] and model.multi_label
    assert model.config.training["epochs"] == 2 and model.config.training["learning_rate"] == 1e-3


def test_train_prints_the_report_and_example_predictions(trained, tmp_path, capsys):
    code = main(["train", "--data", str(trained["train"]), "--validation", str(trained["validation"]), "--encoder",
                 str(trained["encoder"]), "--out", str(tmp_path / "m"), "--epochs", "1", "--quiet"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "Evaluation on the validation split" in out  # no test file: the report is on validation
    assert "macro-F1" in out and "Example predictions" in out and "urgency:" in out
    assert ROWS[0][0] in out


def test_predict_file_to_jsonl_and_csv_keeps_order(trained, tmp_path):
    texts_file = tmp_path / "texts.txt"
    texts_file.write_text("\n".join(TEXTS) + "\n", encoding="utf-8")
    expected = Pipeline.from_folder(trained["model"]).predict(TEXTS)

    assert main(["predict", "--model", str(trained["model"]), "--input", str(texts_file), "--output",
                 str(tmp_path / "out.jsonl")]) == 0  # fmt: skip
    rows = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["text"] for r in rows] == TEXTS
    assert [r["labels"] for r in rows] == [p.labels for p in expected]
    assert [r["urgency"] for r in rows] == [p.urgency for p in expected]
    assert rows[0]["probabilities"] == pytest.approx(expected[0].probabilities, abs=5e-5)  # to 4 decimals

    assert main(["predict", "--model", str(trained["model"]), "--input", str(texts_file), "--output",
                 str(tmp_path / "out.csv")]) == 0  # fmt: skip
    with open(tmp_path / "out.csv", newline="", encoding="utf-8") as f:
        table = list(csv.DictReader(f))
    assert [r["text"] for r in table] == TEXTS
    assert [r["labels"].split(";") for r in table] == [p.labels for p in expected]
    assert float(table[2]["p_illness"]) == pytest.approx(expected[2].probabilities["illness"], abs=1e-4)


def test_predict_reads_csv_input_and_prints_texts_given_as_arguments(trained, tmp_path, capsys):
    source = write_csv(tmp_path / "in.csv", [(t, "other") for t in TEXTS])
    assert main(["predict", "--model", str(trained["model"]), "--input", str(source), "--format", "csv"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("text,labels,urgency,truncated,needs_review,review_reasons,p_foreign_object") and len(
        lines
    ) == 1 + len(TEXTS)
    assert main(["predict", "--model", str(trained["model"]), *TEXTS[:2]]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["text"] for r in rows] == TEXTS[:2]


def test_predict_flags_texts_longer_than_the_model_reads(trained, tmp_path, capsys):
    long_text = " ".join(["the dal had worms and stones"] * 40)  # 240 words, over the 128 word pieces the model reads
    texts_file = tmp_path / "texts.txt"
    texts_file.write_text(f"{TEXTS[0]}\n{long_text}\n", encoding="utf-8")
    assert main(["predict", "--model", str(trained["model"]), "--input", str(texts_file), "--format", "csv"]) == 0
    captured = capsys.readouterr()
    assert "1 text(s) are longer than 128 word pieces" in captured.err and "text number 2" in captured.err
    table = list(csv.DictReader(captured.out.splitlines()))
    assert [r["truncated"] for r in table] == ["false", "true"]
    assert table[1]["text"] == long_text  # written whole


def test_threads_set_the_models_threads_and_a_bad_count_is_a_clear_error(trained, capsys):
    threads = torch.get_num_threads()
    try:
        assert main(["predict", "--model", str(trained["model"]), "--threads", "1", TEXTS[0]]) == 0
        assert torch.get_num_threads() == 1 and json.loads(capsys.readouterr().out)["text"] == TEXTS[0]
        assert main(["predict", "--model", str(trained["model"]), "--threads", "0", TEXTS[0]]) == 2
        err = capsys.readouterr().err
        assert "--threads must be a whole number from 1" in err and "Traceback" not in err
        for command in (["train", "--data", str(trained["test"])],):
            assert main([*command, "--threads", "-1"]) == 2  # refused before any work
            err = capsys.readouterr().err
            assert "--threads must be a whole number from 1" in err and "Traceback" not in err
    finally:
        torch.set_num_threads(threads)


def test_evaluate_json_prints_one_object(trained, capsys):
    assert main(["evaluate", "--model", str(trained["model"]), "--data", str(trained["test"]), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert {"macro_f1", "micro_f1", "per_label"} <= set(result)
    assert set(result["per_label"]) == {"foreign_object", "illness", "meal_not_served", "other"}
    assert set(result["per_label"]["illness"]) == {"precision", "recall", "f1", "support"}
    assert result["per_label"]["illness"]["support"] == sum("illness" in labels for _, labels in ROWS[1::2])
    assert result["macro_f1"] == pytest.approx(json.loads((trained["model"] / "metrics.json").read_text())["macro_f1"])


def test_evaluate_the_encoder_alone(trained, capsys):
    from mealwatch.data import read_dataset
    from mealwatch.learning.evaluation import evaluate_pipeline
    from mealwatch.pipeline import Pipeline

    args = ["evaluate", "--model", str(trained["model"]), "--data", str(trained["test"]), "--json"]
    assert main([*args, "--encoder-alone"]) == 0
    result = json.loads(capsys.readouterr().out)
    pipeline = Pipeline.from_folder(trained["model"])
    pipeline.without_ngram_channel()
    test = read_dataset(trained["test"], label_set=pipeline.labels, multi_label=pipeline.multi_label)
    assert result["encoder_alone"] is True
    assert result["macro_f1"] == pytest.approx(evaluate_pipeline(pipeline, test, bootstrap=0).macro_f1)


def test_without_a_model_the_error_says_to_train_first(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["predict", "some complaint"]) == 2
    err = capsys.readouterr().err
    assert "run `mealwatch train` first" in err and "Traceback" not in err
    (tmp_path / "data.csv").write_text("text,labels\nhello,other\n")
    assert main(["evaluate", "--data", "data.csv"]) == 2
    assert "run `mealwatch train` first" in capsys.readouterr().err


def test_bad_inputs_give_clear_errors(trained, tmp_path, capsys):
    not_a_model = tmp_path / "empty"
    not_a_model.mkdir()
    assert main(["predict", "--model", str(not_a_model), "hello"]) == 2
    assert "is not a trained mealwatch model" in capsys.readouterr().err
    assert main(["predict", "--model", str(trained["encoder"]), "hello"]) == 2  # an encoder, not a classifier
    assert "is not a trained mealwatch model" in capsys.readouterr().err

    texts_file = tmp_path / "texts.txt"
    texts_file.write_text("insects in the rice\n\nno food today\n", encoding="utf-8")
    assert main(["predict", "--model", str(trained["model"]), "--input", str(texts_file)]) == 2
    assert f"{texts_file}:2: empty text" in capsys.readouterr().err
    assert main(["predict", "--model", str(trained["model"]), "ok", "  "]) == 2
    assert "TEXT argument 2 is empty" in capsys.readouterr().err

    unknown = write_csv(tmp_path / "unknown.csv", [("a stone", "stones")])
    assert main(["evaluate", "--model", str(trained["model"]), "--data", str(unknown)]) == 2
    assert "unknown label 'stones'" in capsys.readouterr().err
    assert main(["train", "--data", str(tmp_path / "missing.csv"), "--encoder", str(trained["encoder"])]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["train", "--data", str(trained["train"]), "--no-languages"]) == 2
    assert "applies to the bundled data only" in capsys.readouterr().err


def test_runs_folder(tmp_path, trained):
    root = tmp_path / "runs"
    with pytest.raises(NoModelError, match=r"no trained model found in .*runs/: run `mealwatch train` first"):
        latest_run(root)
    first, second = new_run_dir(root), new_run_dir(root)
    assert first != second and first.is_dir() and second.is_dir()
    with pytest.raises(NoModelError):
        latest_run(root)  # empty run folders hold no model
    shutil.copytree(trained["model"], first, dirs_exist_ok=True, copy_function=shutil.copy)
    assert latest_run(root) == first
    shutil.copytree(trained["model"], second, dirs_exist_ok=True, copy_function=shutil.copy)
    assert latest_run(root) == second and is_classifier_dir(second)
    assert resolve_model(str(first)) == first
    with pytest.raises(NoModelError, match="does not exist"):
        resolve_model(str(tmp_path / "nowhere"))


def test_model_resolution_order(tmp_path, trained, monkeypatch):
    home, cwd = tmp_path / "home", tmp_path / "work"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    monkeypatch.setenv("MEALWATCH_HOME", str(home))
    monkeypatch.delenv("MEALWATCH_MODEL", raising=False)
    with pytest.raises(NoModelError, match="run `mealwatch train` first, or pass --model"):
        resolve_model(None)
    local = new_run_dir(cwd / "runs")  # where older versions trained: still found ...
    shutil.copytree(trained["model"], local, dirs_exist_ok=True, copy_function=shutil.copy)
    assert resolve_model(None) == Path("runs") / local.name
    in_home = new_run_dir()  # ... but a run under MEALWATCH_HOME comes first, from any folder
    assert in_home.parent == home / "runs"
    shutil.copytree(trained["model"], in_home, dirs_exist_ok=True, copy_function=shutil.copy)
    assert resolve_model(None) == in_home
    monkeypatch.setenv("MEALWATCH_MODEL", str(local))  # the variable beats both
    assert resolve_model(None) == local
    assert resolve_model(str(in_home)) == in_home  # and --model beats the variable
