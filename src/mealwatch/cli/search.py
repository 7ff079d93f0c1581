"""``mealwatch search``: complaints of the log closest in meaning to a query (any language), or to a saved complaint."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "search",
        help="find complaints in the log by meaning, in any language (or those like a saved complaint)",
        description="Search the complaint log by meaning: 'children fainted' also finds 'बच्चे बेहोश हो गए' and "
        "'மயக்கம்'. Complaints without a vector of the chosen encoder are embedded first (and stored, as the "
        "service's back-fill does).",
    )
    p.add_argument("query", nargs="?", help="what to look for (or give --like ID)")
    p.add_argument("--like", type=int, metavar="ID", help="complaints like the saved complaint ID instead")
    p.add_argument("--db", default=None, help="the complaint log: a SQLite file or a PostgreSQL URL "
                   "(default: $MEALWATCH_HOME/complaints.db, as for serve)")  # fmt: skip
    p.add_argument("-k", type=int, default=10, help="how many complaints (1-50, default 10)")
    p.add_argument("--districts", help="D1,D2: only complaints of these districts")
    p.add_argument(
        "--vectors",
        default="e5",
        help="e5 (default: multilingual-e5-small as pre-trained) or a trained "
        "run folder (its fine-tuned encoder); the service's --search must match to share stored vectors",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per result instead of a table")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError

    query = (args.query or "").strip()
    if bool(query) == (args.like is not None):
        raise UserError("give a query, or --like ID for complaints like a saved one (not both)")
    if not 1 <= args.k <= 50:
        raise UserError(f"-k must be between 1 and 50, not {args.k}")
    from mealwatch.log import open_log, scope
    from mealwatch.runs import default_log_path
    from mealwatch.text import check_text

    if query:
        try:
            check_text(query, 5000)
        except ValueError as e:
            raise UserError(f"the query: {e}") from None
    db = args.db or default_log_path()
    if "://" not in str(db) and not Path(db).is_file():
        raise UserError(f"--db {db}: no complaint log there (a SQLite file written by `mealwatch serve`)")
    districts = [d.strip() for d in (args.districts or "").split(",") if d.strip()]
    if args.districts is not None and not districts:
        raise UserError("--districts is empty: name districts separated by commas")
    store = open_log(db)
    try:
        search = open_search(store, args.vectors)
        embed_missing(search)
        search.catch_up(limit=10**9)
        limit = scope(districts) if districts else None
        if query:
            results = search.query(query, args.k, limit)
        else:
            complaint = store.get(args.like, limit)
            if complaint is None:
                raise UserError(
                    f"--like {args.like}: no complaint with that id" + (" in those districts" * bool(limit))
                )
            results = search.similar(complaint, args.k, limit)
    finally:
        store.close()
    show(results, args.json)
    return 0


def open_search(store, vectors: str):
    from mealwatch.search.engine import Search
    from mealwatch.search.vectors import SentenceVectors

    if vectors == "e5" or not Path(vectors).is_dir():
        return Search(store, SentenceVectors.pretrained(vectors))
    from mealwatch.pipeline import Pipeline
    from mealwatch.checksums import model_version

    return Search(store, SentenceVectors.from_pipeline(Pipeline.from_folder(vectors), model_version(vectors)))


def embed_missing(search) -> None:
    """Embed (and store) every complaint without a vector of this version, saying so on stderr."""
    done = 0
    while True:
        n = search.embed_due(batch=64)
        if not n:
            break
        done += n
        print(f"\rembedded {done:,} complaints", end="", file=sys.stderr, flush=True)
    if done:
        print(file=sys.stderr)


def show(results, as_json: bool) -> None:
    if as_json:
        for r in results:
            c = r.complaint
            print(json.dumps({"id": c["id"], "score": round(r.score, 4), "district": c["district"],
                              "school": c["school"], "labels": c["corrected_labels"] or c["labels"],
                              "incident_id": c["incident_id"], "shared_words": r.shared_words,
                              "shared_labels": r.shared_labels, "shared_concepts": r.shared_concepts,
                              "text": c["text"]}, ensure_ascii=False))  # fmt: skip
        return
    if not results:
        print("no complaint found")
        return
    for r in results:
        c = r.complaint
        why = (
            ", ".join(
                [f"about {c}" for c in r.shared_concepts]
                + r.shared_words
                + [f"label {label}" for label in r.shared_labels]
            )
            or "meaning alone"
        )
        text = " ".join(c["text"].split())
        print(f"{r.score:6.3f}  #{c['id']}  {c['district'] or '-'} / {c['school'] or '-'}  "
              f"[{', '.join(c['corrected_labels'] or c['labels'])}]  why: {why}")  # fmt: skip
        print(f"        {text[:200]}{'…' if len(text) > 200 else ''}")
