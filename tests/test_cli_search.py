"""``mealwatch search``: clear one-line errors for bad input, and results by meaning with their why (tiny model's
vectors, read without prefixes, so that a complaint's own text finds it first)."""

from __future__ import annotations

import json

import pytest
from test_serve_api import model_dir  # noqa: F401 - the tiny model

from mealwatch.cli import main
from mealwatch.log import NewComplaint, open_log


@pytest.fixture
def log_path(tmp_path):
    path = tmp_path / "log.db"
    store = open_log(path)
    store.add_many([
        NewComplaint("a dead lizard in the khichdi", ["foreign_object"], {"foreign_object": 0.9}, "high", "m",
                     "GPS Rampur", district="Gaya"),
        NewComplaint("no eggs on egg day", ["menu_not_followed"], {"menu_not_followed": 0.9}, "low", "m",
                     "GPS Bela", district="Patna"),
    ])  # fmt: skip
    store.close()
    return path


@pytest.mark.parametrize("args, message", [
    ([], "give a query, or --like ID"),
    (["dal", "--like", "1"], "give a query, or --like ID"),
    (["   "], "give a query, or --like ID"),
    (["dal", "-k", "0"], "-k must be between 1 and 50"),
    (["dal", "--districts", " , "], "--districts is empty"),
    (["dal", "--db", "/nonexistent/log.db"], "no complaint log there"),
])  # fmt: skip
def test_bad_input_is_one_line(args, message, capsys, log_path):
    if "--db" not in args:
        args = [*args, "--db", str(log_path)]
    assert main(["search", *args]) == 2
    assert message in capsys.readouterr().err


def test_search_and_like_with_why(capsys, log_path, model_dir):  # noqa: F811
    assert main(["search", "no eggs on egg day", "--db", str(log_path), "--vectors", str(model_dir), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["id"] == 2 and lines[0]["shared_concepts"] == ["eggs", "not_given"] and lines[0]["score"] > 1.0
    assert lines[0]["shared_words"] == ["eggs"] and len(lines) == 2  # "egg" is "eggs" compared; "day" too common
    store = open_log(log_path)  # embedded once: stored in the log for the next search (and the service)
    assert store.vector_count(_version(log_path)) == 2
    store.close()
    assert main(["search", "no eggs", "--db", str(log_path), "--vectors", str(model_dir), "--districts", "Gaya"]) == 0
    out = capsys.readouterr().out
    assert "#1" in out and "#2" not in out and "why:" in out
    assert main(["search", "--like", "1", "--db", str(log_path), "--vectors", str(model_dir), "--json"]) == 0
    assert [json.loads(line)["id"] for line in capsys.readouterr().out.splitlines()] == [2]
    assert main(["search", "--like", "1", "--db", str(log_path), "--vectors", str(model_dir),
                 "--districts", "Patna"]) == 2  # fmt: skip
    assert "no complaint with that id in those districts" in capsys.readouterr().err


def _version(path) -> str:
    from mealwatch.log.sqlite import SqliteLog

    store = SqliteLog(path)
    try:
        with store._read() as tx:
            return tx.one("SELECT model FROM complaint_vectors LIMIT 1")["model"]
    finally:
        store.close()
