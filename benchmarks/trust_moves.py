"""Issue 36's probe, in-process (FastAPI's TestClient on 127.0.0.1), on the log security_probe.py names (a SQLite
file, or a database of a throw-away PostgreSQL cluster): each defect replayed, counting what must never happen
again (every count's target is 0). Run by security_probe.py.

  1  what a Patna officer reads of a complaint moved to Gaya (its incident, its text, its note), Patna complaints
     gone from the queue by incident, and incidents of two districts merged
  2  what a disabled admin's own API token still does (adds an admin, creates a token, enables its account)
  3  classifications under 8 threads classifying and searching (--search model) that differ from one thread
     alone (over 1e-5, or another cut), and those read as more pieces than the model's maximum
  4,5,7  the encoder folder: different digests over 3 rebuilds; of 9 damages, those not refused in one line at
     load, and those not repaired by `import-encoder`
  6  searches that miss a complaint moved into the officer's district, or find one moved out
  8  searches whose `indexed` is not the officer's own count
  9  right logins refused (8 at once), a NUL in an upload's refusal, rows saved from a second header line, and
     another district's user name in a 409
"""

from __future__ import annotations

import io
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path

from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[1]
PASSWORD = "probe-password-1"
LIZARD = "a dead lizard was found in the khichdi and children vomited"
USERS = [("state", "admin", ["*"]), ("adm2", "admin", ["Gaya"]), ("pat", "officer", ["Patna"]),
         ("gus", "officer", ["Gaya"]), ("both", "officer", ["Patna", "Gaya"]),
         ("padm", "admin", ["Patna"])]  # fmt: skip
Db = Callable[[str], str]
#: how long item 3's 8 threads classify and search (security_probe.py --parallel-seconds)
PARALLEL_SECONDS = 10.0


def app_with_users(model: Path, db: str, **kwargs):
    from mealwatch.accounts import hash_password
    from mealwatch.serve import create_app

    app = create_app(model, db, accounts=True, **kwargs)
    password = hash_password(PASSWORD)
    for name, role, districts in USERS:
        app.state.service.store.add_user(name, password, role, districts)
    return app


def as_user(app, name: str) -> TestClient:
    sys.path.insert(0, str(ROOT / "tests"))
    from role_matrix import session_for

    client = TestClient(app, base_url="http://127.0.0.1")
    key, csrf = session_for(app, name)
    client.cookies.set("mealwatch_session", key)
    client.headers["X-CSRF-Token"] = csrf
    return client


def save(client: TestClient, district: str | None, text: str = LIZARD, school: str = "GPS Rampur") -> int:
    body = {"text": text, "school": school, "incident_date": "2025-07-14T10:00:00+05:30", "save": True}
    r = client.post("/api/classify", json=body | ({"district": district} if district else {}))
    assert r.status_code == 200, r.text
    return r.json()["id"]


def moves(model: Path, db: Db) -> tuple[int, int, int]:
    """Item 1: (leaks of the moved complaint, Patna complaints missing from the queue by incident, merges across)."""
    app = app_with_users(model, db("moves"), search="model")
    with TestClient(app, base_url="http://127.0.0.1"):
        state, pat, both = as_user(app, "state"), as_user(app, "pat"), as_user(app, "both")
        first, second = save(state, "Patna"), save(state, "Patna")
        app.state.service.search.wait(timeout=60)
        incident = state.get(f"/api/complaints/{first}").json()["incident_id"]
        state.patch(f"/api/complaints/{first}", json={"district": "Gaya", "notes": "moved away"})
        app.state.service.search.wait(timeout=60)
        seen = pat.get(f"/api/incidents/{incident}")
        leaks = int(pat.get(f"/api/complaints/{first}").status_code != 404)
        leaks += int(seen.status_code == 200 and (first in seen.json()["complaint_ids"] or "moved away" in seen.text))
        queue = pat.get("/api/complaints", params={"one_per_incident": "true"}).json()
        missing = int(second not in [c["id"] for c in queue["items"]])
        gaya = state.get(f"/api/complaints/{first}").json()["incident_id"]
        merged = both.post("/api/incidents/merge", json={"incident_ids": [incident, gaya]})
        return leaks, missing, int(merged.status_code < 300)


def disabled_admin(model: Path, db: Db) -> int:
    """Item 2: requests a disabled admin's own token still gets served (of 3)."""
    app = app_with_users(model, db("disabled"))
    with TestClient(app, base_url="http://127.0.0.1"):
        made = as_user(app, "adm2").post("/api/tokens", json={"name": "adm2-tool", "role": "admin",
                                                               "districts": ["Gaya"]}).json()  # fmt: skip
        as_user(app, "state").patch("/api/users/adm2", json={"disabled": True})
        tool = TestClient(app, base_url="http://127.0.0.1", headers={"Authorization": f"Bearer {made['token']}"})
        answers = [
            tool.post("/api/users", json={"name": "adm9", "password": "a-long-password-9", "role": "admin",
                                          "districts": ["Gaya"]}),
            tool.post("/api/tokens", json={"name": "t9", "role": "admin", "districts": ["Gaya"]}),
            tool.patch("/api/users/adm2", json={"disabled": False}),
        ]  # fmt: skip
        return sum(r.status_code < 300 for r in answers)


def parallel(model: Path, db: Db, seconds: float | None = None) -> tuple[int, int, int]:
    """Item 3: (classifications differing from one thread alone, read beyond the model's maximum, all)."""
    app = app_with_users(model, db("parallel"), search="model")
    texts = [" ".join(f"{w} khichdi was cold and children vomited {i}" for w in range(n))
             for i, n in enumerate((8, 30, 60, 90))]  # fmt: skip
    pipeline = app.state.service.predictor.pipeline
    offline = {t: pipeline.predict([t])[0] for t in texts}
    limit = pipeline.max_length
    wrong, beyond, done = [0], [0], [0]
    with TestClient(app, base_url="http://127.0.0.1"):
        state = as_user(app, "state")
        for t in texts:
            save(state, "Gaya", t)
        stop = time.monotonic() + (PARALLEL_SECONDS if seconds is None else seconds)

        def work(n: int) -> None:
            client = as_user(app, "state")
            while time.monotonic() < stop:
                t = texts[n % len(texts)]
                if n % 2:
                    client.get("/api/search", params={"q": t, "k": 5})
                r = client.post("/api/classify", json={"text": t}).json()
                want = offline[t]
                far = max(abs(r["probabilities"][k] - v) for k, v in want.probabilities.items())
                wrong[0] += int(far > 1e-5 or r["truncated"] != want.truncated)
                beyond[0] += int(pipeline.tokenize([t]).input_ids.shape[1] > limit)  # read under load
                done[0] += 1
                n += 2

        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    return wrong[0], beyond[0], done[0]


def encoder_folder(model: Path, db: Db) -> tuple[int, int, int]:
    """Items 4, 5, 7 on a tiny 4-bit file: (digests beyond one over 3 rebuilds, damages not refused, not
    repaired)."""
    sys.path.insert(0, str(ROOT / "tests"))
    from e5_files import write_tiny_q4
    from test_e5_package import _damage

    from mealwatch.checksums import model_version
    from mealwatch.cli import main
    from mealwatch.encoders import import_e5
    from mealwatch.transformer import CheckpointError

    with tempfile.TemporaryDirectory() as tmp:
        source, out = Path(tmp) / "tiny-q4.bin", Path(tmp) / "enc"
        write_tiny_q4(source)
        digests = set()
        for _ in range(3):
            import_e5(out, source=source, force=True)
            digests.add(model_version(out))
        unrefused = unrepaired = 0
        for how in ("random block", "zeroed weights", "truncated weights", "shuffled vocabulary", "changed config",
                    "garbled record", "no config.json", "no tokenizer.json", "no content.sha256"):  # fmt: skip
            _damage(out, how)
            try:
                import_e5(out, source=source)
                unrefused += 1
            except CheckpointError as e:
                unrefused += int("\n" in str(e) or "import-encoder" not in str(e))
            with redirect_stdout(io.StringIO()):
                quiet = main(["import-encoder", "e5", "--source", str(source), "--out", str(out)])
            unrepaired += int(quiet != 0 or model_version(out) not in digests)
    return len(digests) - 1, unrefused, unrepaired


def index_moves(model: Path, db: Db) -> tuple[int, int]:
    """Items 6 and 8: (searches missing a complaint moved in or finding one moved out, wrong `indexed` counts)."""
    app = app_with_users(model, db("index"), search="model")
    with TestClient(app, base_url="http://127.0.0.1"):
        state, pat, gus = as_user(app, "state"), as_user(app, "pat"), as_user(app, "gus")
        loose = save(state, None)
        save(state, "Gaya", school="GPS Bela")
        app.state.service.search.wait(timeout=60)
        wrong = counts = 0
        for district, inside, outside in (("Patna", pat, gus), ("Gaya", gus, pat)):
            state.patch(f"/api/complaints/{loose}", json={"district": district})
            app.state.service.search.wait(timeout=60)
            for client, present in ((inside, True), (outside, False)):
                body = client.get("/api/search", params={"q": LIZARD, "k": 50}).json()
                wrong += int((loose in [r["complaint"]["id"] for r in body["results"]]) != present)
                own = client.get("/api/complaints", params={"limit": 1}).json()["total"]
                counts += int(body["indexed"] != own)
        return wrong, counts


def minor(model: Path, db: Db) -> tuple[int, int, int, int]:
    """Item 9: (right logins refused of 8 at once, NULs in a refusal, rows from a second header, names in a 409)."""
    app = app_with_users(model, db("minor"))
    with TestClient(app, base_url="http://127.0.0.1"):
        answers: list[int] = []
        start = threading.Barrier(8)

        def log_in() -> None:
            start.wait()
            client = TestClient(app, base_url="http://127.0.0.1")
            answers.append(client.post("/api/login", json={"name": "gus", "password": PASSWORD}).status_code)

        threads = [threading.Thread(target=log_in) for _ in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        state = as_user(app, "state")
        files = {"file": ("u.csv", "text,district\nno eggs,Gaya\n".encode("utf-16-be"), "text/csv")}
        nul = int("\x00" in state.post("/api/classify/csv", files=files, data={"save": "true"}).text)
        joined = "text,district\nno eggs,Gaya\n\ufefftext,district\ndal cold,Gaya\n".encode()
        state.post("/api/classify/csv", files={"file": ("j.csv", joined, "text/csv")}, data={"save": "true"})
        headers = state.get("/api/complaints", params={"limit": 50}).json()["items"]
        named = as_user(app, "padm").post("/api/users", json={"name": "GUS", "password": "a-long-password-3",
                                                              "role": "officer", "districts": ["Patna"]})  # fmt: skip
        return (sum(a != 200 for a in answers), nul, sum("text" in c["text"] for c in headers),
                int("gus" in named.text.casefold()))  # fmt: skip


CASES: list[tuple[str, str, Callable[[Path, Db], int | tuple[int, ...]]]] = [
    ("1", "moved complaint leaks / Patna queue misses / merges across districts", moves),
    ("2", "a disabled admin's token served (of 3)", disabled_admin),
    ("3", "8 threads classify+search: differ from alone / beyond max pieces / (classifications)", parallel),
    ("4-7", "encoder folder: extra digests of 3 rebuilds / damages not refused / not repaired (of 9)", encoder_folder),
    ("6,8", "searches wrong after district moves / wrong indexed counts", index_moves),
    ("9", "right logins refused / NULs in a refusal / header rows saved / names in a 409", minor),
]


def run(model: Path, db: Db) -> bool:
    """Every case of ``CASES``; prints one line each; True when every count is 0 (the last of item 3 is a total)."""
    good = True
    for number, what, case in CASES:
        counts = case(model, db)
        counts = counts if isinstance(counts, tuple) else (counts,)
        print(f"item {number:>4} {what}: {' / '.join(str(c) for c in counts)}")
        good &= not any(counts[:2] if number == "3" else counts)
    return good
