"""The engineer's side of issue 24: `predict` reads as a table on a terminal and as rounded JSON when piped,
`evaluate` and `train` show progress without filling a log file with carriage returns, `export-training` finds the
log `serve` uses by default, and `attention` looks at the user's own model."""

from __future__ import annotations

import io
import json
import sys

from test_cli_model import trained  # noqa: F401 - a tiny model trained with `mealwatch train`

from mealwatch.cli import main
from mealwatch.cli.progress import Progress

TEXTS = ["worms in the khichdi and two children vomited", "no meal was served today"]


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_updates_in_place_on_a_terminal_and_by_lines_in_a_log():
    live, log = Terminal(), io.StringIO()
    for stream in (live, log):
        shown = Progress("predicting", 1000, stream=stream, every_s=0)
        for done in (256, 512, 768, 1000):
            shown.advance(done)
        shown.finish()
    assert live.getvalue().count("\r") == 5 and "predicting: 1,000/1,000 (100 %" in live.getvalue()
    assert "\r" not in log.getvalue() and log.getvalue().splitlines()[0].startswith("predicting: 256/1,000 (26 %")


def test_predict_is_a_table_on_a_terminal_and_rounded_json_when_piped(trained, capsys, monkeypatch):  # noqa: F811
    model = ["--model", str(trained["model"])]
    assert main(["predict", *model, *TEXTS]) == 0  # piped (captured): JSON lines
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(rows) == 2 and all(len(str(p).split(".")[-1]) <= 4 for r in rows for p in r["probabilities"].values())
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    assert main(["predict", *model, *TEXTS]) == 0
    table = capsys.readouterr().out
    assert "labels" in table and "urgency" in table and "worms in the khichdi" in table
    assert not any(line.strip().startswith("{") for line in table.splitlines())
    assert main(["predict", *model, "--format", "jsonl", *TEXTS]) == 0  # asked for JSON on a terminal
    assert json.loads(capsys.readouterr().out.splitlines()[0])["text"] == TEXTS[0]


def test_evaluate_and_train_show_progress_without_carriage_returns(trained, capsys, tmp_path):  # noqa: F811
    assert main(["evaluate", "--model", str(trained["model"]), "--data", str(trained["test"])]) == 0
    err = capsys.readouterr().err
    assert "predicting test.csv:" in err and "\r" not in err
    code = main(["train", "--data", str(trained["train"]), "--validation", str(trained["validation"]), "--encoder",
                 str(trained["encoder"]), "--out", str(tmp_path / "m"), "--epochs", "1",
                 "--threads", "1"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0 and "epoch 1/1: train loss" in captured.out + captured.err
    assert "\r" not in captured.err  # standard error is not a terminal: no progress bar's updates


def test_export_training_finds_the_log_serve_uses_by_default(tmp_path, capsys, monkeypatch):
    from mealwatch.log import ComplaintChange, NewComplaint, open_log
    from mealwatch.runs import default_log_path

    monkeypatch.setenv("MEALWATCH_HOME", str(tmp_path / "home"))
    log = open_log(default_log_path())
    i = log.add(NewComplaint("dal me keeda", ["other"], {"other": 0.9}, "low", "m"))
    log.update(i, ComplaintChange(labels=["foreign_object"], urgency="high"), by="ravi")
    log.close()
    assert main(["export-training", "--out", str(tmp_path / "corrected.csv")]) == 0
    assert (tmp_path / "corrected.csv").read_text(encoding="utf-8").splitlines() == [
        "text,labels",
        "dal me keeda,foreign_object",
    ]


def test_attention_looks_at_the_users_model(trained, capsys, monkeypatch):  # noqa: F811
    monkeypatch.setenv("MEALWATCH_MODEL", str(trained["model"]))
    assert main(["attention", "dal was cold", "--json"]) == 0
    captured = capsys.readouterr()
    assert f"model: {trained['model']}" in captured.err
    from mealwatch.pipeline import Pipeline

    assert json.loads(captured.out)["model"] == Pipeline.from_folder(trained["model"]).name  # not the bundled encoder
