"""Retraining on 100 officers' corrections of a kind the model gets wrong (issue 15's target), end to end.

The kind is SMS shorthand (``benchmarks/data/sms_shorthand.csv``, see ``benchmarks/data/README.md``): 100
complaints become corrections, 100 others (of other senders) are held out. The officer's loop, through
mealwatch's public paths only:

1. a fresh complaint log; the service (``mealwatch.serve.create_app`` over the BEFORE model, driven over HTTP)
   classifies and saves the 100 (``POST /api/classify/batch``, ``save: true``: the model's labels stored);
2. an officer sets each one's true labels (``PATCH /api/complaints/{id}`` with ``labels`` and ``by``);
3. ``mealwatch export-training --db`` writes the training file (checked: exactly the 100 corrected rows);
4. ``mealwatch train --add FILE`` with the default recipe (the encoder folder of ``--home``'s cache is reused);
5. ``mealwatch evaluate`` BEFORE (``--model``) and AFTER (the new run) on the 100 held out and on the bundled
   test split, and ``mealwatch evaluate --db`` on the corrected complaints (trained on: not a held-out figure).

Prints one table: macro-F1 before and after, per-label F1 where it moved, the training time and the CPU.
Nothing is tuned on the held-out 100: the training command is mealwatch's default.

    nice -n 5 python benchmarks/retrain_corrections.py --model runs/<name> [--home DIR] [--threads 2] [--work DIR]
        [--epochs N]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from mealwatch.labels import LABELS
from mealwatch.transformer.precision import cpu_name

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data" / "sms_shorthand.csv"
PARTS = ("corrections", "held_out")
OFFICER = "dpo.gaya"  # the officer named on every correction
MOVED = 0.005  # a per-label F1 change at least this large is printed


@dataclass(frozen=True)
class Complaint:
    """One complaint of the kind: its text, its true labels (canonical order), who sent it and its part."""

    text: str
    labels: tuple[str, ...]
    sender: str
    part: str


@dataclass(frozen=True)
class Kind:
    """The two halves of the kind's file: corrections to teach the model, and complaints held out."""

    corrections: list[Complaint]
    held_out: list[Complaint]


class KindFileError(ValueError):
    """The kind's CSV file is malformed: a bad label, an unknown part, a text in both halves."""


def read_kind(path: str | Path = DATA) -> Kind:
    """The complaints of ``path`` (``text,labels,sender,split``), checked: known labels in canonical order, each
    part named ``corrections`` or ``held_out``, no text twice, and no sender in both parts."""
    parts: dict[str, list[Complaint]] = {part: [] for part in PARTS}
    seen: dict[str, int] = {}
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f)
        missing = {"text", "labels", "sender", "split"} - set(reader.fieldnames or ())
        if missing:
            raise KindFileError(f"{path}: missing columns {', '.join(sorted(missing))}")
        for line, row in enumerate(reader, start=2):
            text, part = row["text"].strip(), row["split"]
            labels = tuple(row["labels"].split(";"))
            if not text:
                raise KindFileError(f"{path}:{line}: empty text")
            unknown = [label for label in labels if label not in LABELS]
            if unknown:
                raise KindFileError(f"{path}:{line}: unknown label {unknown[0]!r}")
            if list(labels) != sorted(set(labels), key=LABELS.index):
                raise KindFileError(f"{path}:{line}: labels repeated or out of the label set's order: {row['labels']}")
            if part not in parts:
                raise KindFileError(f"{path}:{line}: split {part!r}, expected one of {', '.join(PARTS)}")
            key = " ".join(text.casefold().split())
            if key in seen:
                raise KindFileError(f"{path}:{line}: the same text as line {seen[key]}")
            seen[key] = line
            parts[part].append(Complaint(text, labels, row["sender"], part))
    shared = {c.sender for c in parts["corrections"]} & {c.sender for c in parts["held_out"]}
    if shared:
        raise KindFileError(f"{path}: senders in both halves: {', '.join(sorted(shared))}")
    return Kind(parts["corrections"], parts["held_out"])


def write_labelled(complaints: list[Complaint], path: Path) -> Path:
    """A ``text,labels`` file of ``complaints`` for ``mealwatch evaluate --data``."""
    from mealwatch.csvfile import write_csv

    path.write_text(write_csv(["text", "labels"], ([c.text, list(c.labels)] for c in complaints),
                              spreadsheet_safe=False), encoding="utf-8")  # fmt: skip
    return path


@dataclass
class Saved:
    """What the service did with the corrections: the stored ids and how many it had already labelled right."""

    ids: list[int]
    right_before: int


def save_and_correct(model: Path, db: Path, corrections: list[Complaint]) -> Saved:
    """The service classifies and saves ``corrections``, then an officer corrects each one's labels over HTTP."""
    from fastapi.testclient import TestClient

    from mealwatch.serve import create_app

    app = create_app(model, db)
    with TestClient(app, base_url="http://127.0.0.1") as client:
        items = [{"text": c.text, "channel": "sms"} for c in corrections]
        answer = client.post("/api/classify/batch", json={"items": items, "save": True})
        if answer.status_code != 200:
            raise RuntimeError(f"saving the complaints: {answer.status_code} {answer.text[:300]}")
        results = answer.json()["results"]
        right = sum(set(r["labels"]) == set(c.labels) for r, c in zip(results, corrections))
        for r, c in zip(results, corrections):
            fixed = client.patch(f"/api/complaints/{r['id']}", json={"labels": list(c.labels), "by": OFFICER})
            if fixed.status_code != 200 or fixed.json()["corrected_labels"] != list(c.labels):
                raise RuntimeError(f"correcting complaint {r['id']}: {fixed.status_code} {fixed.text[:300]}")
    return Saved([r["id"] for r in results], right)


def check_export(path: Path, corrections: list[Complaint]) -> None:
    """The exported training file holds exactly the corrected complaints with their officer's labels."""
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    got = sorted((r["text"], tuple(r["labels"].split(";"))) for r in rows)
    want = sorted((c.text, c.labels) for c in corrections)
    if got != want:
        raise RuntimeError(f"{path}: {len(rows)} rows, expected exactly the {len(corrections)} corrected complaints")


def mealwatch(args: list[str], env: dict[str, str], log: Path | None = None) -> str:
    """Run ``mealwatch ARGS`` (this checkout's) and return its standard output; stop on failure."""
    command = [sys.executable, "-m", "mealwatch", *args]
    if log is None:
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        output = done.stdout
    else:
        with open(log, "w", encoding="utf-8") as out:
            done = subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
        output = log.read_text(encoding="utf-8")
    if done.returncode != 0:
        raise RuntimeError(f"mealwatch {' '.join(args)} failed ({done.returncode}):\n{(done.stderr or output)[-2000:]}")
    return output


def evaluate(model: Path, source: list[str], env: dict[str, str]) -> dict:
    """``mealwatch evaluate --json`` of ``model`` on ``source`` (``--data FILE`` or ``--db LOG``)."""
    return json.loads(mealwatch(["evaluate", "--model", str(model), *source, "--json"], env).strip().splitlines()[-1])


def with_interval(scores: dict) -> str:
    """Macro-F1 with its bootstrap interval when the report has one: ``0.709 (0.618-0.782)``."""
    low_high = scores.get("macro_f1_ci")
    return f"{scores['macro_f1']:.3f}" + (f" ({low_high[0]:.3f}-{low_high[1]:.3f})" if low_high else "")


def moved_labels(before: dict, after: dict) -> list[str]:
    """Per-label F1 lines (before -> after) of the labels whose F1 changed by at least ``MOVED``."""
    lines = []
    for label in LABELS:
        a, b = before["per_label"][label]["f1"], after["per_label"][label]["f1"]
        if abs(b - a) >= MOVED:
            lines.append(f"| {label} | {a:.3f} | {b:.3f} | {b - a:+.3f} |")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, required=True, help="the BEFORE model (a `mealwatch train` folder)")
    parser.add_argument("--home", type=Path, help="MEALWATCH_HOME whose cache holds the encoder folder "
                        "(default: $MEALWATCH_HOME, else mealwatch's default)")  # fmt: skip
    parser.add_argument("--threads", type=int, default=2, help="CPU threads for training (default: 2)")
    parser.add_argument("--epochs", type=int, help="training epochs (default: mealwatch's default; a smaller number "
                        "is not the default recipe, and the table says so)")  # fmt: skip
    parser.add_argument("--data", type=Path, default=DATA, help="the kind's CSV (default: the SMS shorthand)")
    parser.add_argument("--work", type=Path, help="folder for the log, the files and the AFTER model "
                        "(default: a new temporary folder, kept)")  # fmt: skip
    args = parser.parse_args()
    if not (args.model / "config.json").is_file():
        parser.error(f"--model {args.model}: not a model folder written by `mealwatch train`")
    kind = read_kind(args.data)
    work = args.work or Path(tempfile.mkdtemp(prefix="mealwatch-retrain-"))
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "src"), os.environ.get("PYTHONPATH")])))
    if args.home is not None:
        env["MEALWATCH_HOME"] = str(args.home.resolve())
    os.environ.update({k: env[k] for k in ("MEALWATCH_HOME",) if k in env})
    from mealwatch.data import bundled_data_dir
    from mealwatch.runs import mealwatch_home

    encoders = mealwatch_home() / "cache" / "encoders"
    cached = set(encoders.iterdir()) if encoders.is_dir() else set()
    db, exported, after = work / "complaints.db", work / "corrected.csv", work / "after"
    print(f"Work folder {work}; MEALWATCH_HOME {mealwatch_home()}", flush=True)

    saved = save_and_correct(args.model, db, kind.corrections)
    print(f"Saved {len(saved.ids)} complaints through the service ({saved.right_before} labelled right by the "
          f"model); corrected by {OFFICER}.", flush=True)  # fmt: skip
    mealwatch(["export-training", "--db", str(db), "--out", str(exported)], env)
    check_export(exported, kind.corrections)
    print(f"Exported {exported}: exactly the {len(kind.corrections)} corrected complaints.", flush=True)

    started = time.perf_counter()
    epochs = [] if args.epochs is None else ["--epochs", str(args.epochs)]
    output = mealwatch(["train", "--add", str(exported), "--out", str(after), "--threads", str(args.threads), *epochs],
                       env, log=work / "train.log")  # fmt: skip
    seconds = time.perf_counter() - started
    folded = next((line for line in output.splitlines() if line.startswith("Corrections from")), "?")
    now = set(encoders.iterdir()) if encoders.is_dir() else set()
    state = "reused from the cache" if now == cached else "written in this run"
    print(f"{folded} Trained in {seconds:.0f} s; encoder folder {state}.")

    held_out = write_labelled(kind.held_out, work / "held_out.csv")
    test = bundled_data_dir() / "test.csv"
    sets = [("held-out SMS shorthand", ["--data", str(held_out)], True),
            ("bundled test split", ["--data", str(test)], True),
            ("the 100 corrections (trained on)", ["--db", str(db)], False)]  # fmt: skip
    scores = {name: (evaluate(args.model, source, env), evaluate(after, source, env)) for name, source, _ in sets}

    print(f"\nCPU: {cpu_name()}, {os.cpu_count()} cores, training with {args.threads} threads; "
          f"load average at the end {os.getloadavg()[0]:.1f}")  # fmt: skip
    recipe = "default recipe" if args.epochs is None else f"default recipe but --epochs {args.epochs}"
    print(f"Training (`mealwatch train --add`, {recipe}): {seconds:.0f} s wall; "
          f"encoder folder {state}\n")  # fmt: skip
    print("| set | texts | before macro-F1 (95 % interval) | after macro-F1 (95 % interval) | change |")
    print("|---|---:|---:|---:|---:|")
    for name, _, held in sets:
        before, after_scores = scores[name]
        print(f"| {name} | {before['n']} | {with_interval(before)} | {with_interval(after_scores)} | "
              f"{after_scores['macro_f1'] - before['macro_f1']:+.3f} |")  # fmt: skip
    for name, _, held in sets[:2]:
        lines = moved_labels(*scores[name])
        print(f"\nPer-label F1 on the {name} that moved by {MOVED} or more ({len(lines)} of {len(LABELS)}):\n")
        print("| label | before | after | change |\n|---|---:|---:|---:|")
        print("\n".join(lines) if lines else "| (none) | | | |")
    print(f"\nAFTER model: {after}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
