"""Issue 12's defects, one regression test each: bad input is a clear 422 (never a 500, never a saved row),
CSV stays one complaint per record, the attention page is not a template for its text, the service refuses a
log it cannot write at start, and a checkpoint is never loaded as a pickle."""

from __future__ import annotations

import contextlib
import csv
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_serve_api import classifier, client, local_client, log_client, model_dir, post_csv, predictor

from mealwatch.serve import create_app

SRC = Path(__file__).resolve().parents[1] / "src"


def stored(client) -> int:
    return client.get("/api/health").json()["complaints_stored"]


def post_raw_json(client, raw: bytes):
    return client.post("/api/classify", content=raw, headers={"content-type": "application/json"})


# --- text and school ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw, message",
    [
        (b'{"text": "dal \\ud800 sour", "save": true}', "field 'text': the text holds a lone surrogate (U+D800 at"),
        (b'{"text": "\\udc00", "save": true}', "lone surrogate (U+DC00 at character 0)"),
        (b'{"text": "dal", "school": "GPS \\udfff", "save": true}', "field 'school': the school name holds a lone"),
        (b'{"text": "\\u200b\\u200b\\u2060", "save": true}', "the text has no visible characters"),
        (b'{"text": "\\u202e\\u200d\\ufeff \\u0301", "save": true}', "the text has no visible characters"),
        (b'{"text": "\\udb80\\udc00 \\ue000", "save": true}', "the text has no visible characters"),  # private use
    ],
)
def test_lone_surrogates_and_invisible_texts_are_refused(client, raw, message):
    r = post_raw_json(client, raw)
    assert r.status_code == 422 and message in r.json()["error"], r.text
    assert stored(client) == 0


def test_invisible_texts_on_the_attention_endpoints_are_422(client):
    for r in (
        client.post("/api/attention", json={"text": "\u200b\u200b"}),
        client.post("/api/attention", json={"text": "\U000f0000"}),  # private use: the tokenizer drops it
        client.get("/attention", params={"text": "\u200b\u200c"}),
        client.post("/api/classify/batch", json={"texts": ["fine", "\u2060"]}),
    ):
        assert r.status_code == 422 and "no visible characters" in r.json()["error"], r.text


def test_a_text_with_visible_words_and_formatting_characters_is_kept_whole(client):
    text = "खाने में\u200d छिपकली \u202eevil\u202c 🤢"
    body = client.post("/api/classify", json={"text": text, "save": True}).json()
    assert body["text"] == text and client.get(f"/api/complaints/{body['id']}").json()["text"] == text


# --- ids, offsets, dates ----------------------------------------------------------------------------


def test_huge_offsets_and_ids_are_never_500(log_client):
    client, _ = log_client
    r = client.get("/api/complaints", params={"offset": 2**63})
    assert r.status_code == 422 and r.json()["error"] == "query parameter 'offset' must be at most 9223372036854775807"
    assert client.get("/api/complaints", params={"offset": 2**63 - 1}).json()["items"] == []
    for cid in (2**63, 2**63 - 1, 10**30, -(2**64)):
        assert client.get(f"/api/complaints/{cid}").json() == {"error": f"no complaint with id {cid}"}
        r = client.patch(f"/api/complaints/{cid}", json={"status": "in_progress"})
        assert r.status_code == 404, r.text


@pytest.mark.parametrize("endpoint", ["/api/complaints", "/api/stats", "/api/complaints.csv"])
@pytest.mark.parametrize(
    "query",
    [{"to": "9999-12-31"}, {"from": "0001-01-01T00:00+05:30"}, {"from": "9999-12-31T23:59:59-05:00"},
     {"to": "0001-01-01T00:00:00+00:00"}],
)  # fmt: skip
def test_dates_at_the_ends_of_the_calendar_are_422(client, endpoint, query):
    r = client.get(endpoint, params=query)
    name = next(iter(query))
    assert r.status_code == 422, r.text
    assert r.json()["error"] == (
        f"query parameter '{name}': {query[name]!r} falls outside the dates this service handles "
        f"(0001-01-02 to 9999-12-30, UTC): choose a date within them or leave '{name}' out"
    )


def test_early_dates_filter_correctly(log_client):
    """Years before 1000 are written with four digits, so they compare as text with the stored times."""
    from log_backends import backdate

    client, db = log_client
    old = client.post("/api/classify", json={"text": "dal was cold", "save": True}).json()["id"]
    new = client.post("/api/classify", json={"text": "no eggs", "save": True}).json()["id"]
    backdate(db, old, "0900-06-01T00:00:00.000000Z")
    page = client.get("/api/complaints", params={"from": "0900-05-31", "to": "0900-06-01"}).json()
    assert [c["id"] for c in page["items"]] == [old]
    page = client.get("/api/complaints", params={"from": "0999-01-01"}).json()
    assert [c["id"] for c in page["items"]] == [new]
    stats = client.get("/api/stats", params={"from": "0900-05-31", "to": "0900-06-01"}).json()
    assert stats["days"] == ["0900-05-31", "0900-06-01"] and sum(stats["totals"].values()) >= 1


# --- bodies -----------------------------------------------------------------------------------------


def test_unparseable_bodies_are_422_with_a_clear_message(client):
    r = post_raw_json(client, b'{"text": "\xff\xfe dal"}')
    assert r.status_code == 422
    assert r.json()["error"] == (
        "the request body (application/json) could not be read: send a JSON object in UTF-8 with "
        'Content-Type: application/json, such as {"text": "..."}'
    )
    r = client.post("/api/classify/csv", content=b"abc", headers={"content-type": "multipart/form-data"})
    assert r.status_code == 422 and r.json()["error"].startswith(
        "the request body (multipart/form-data) could not be read (Missing boundary in multipart): send a "
        "multipart/form-data upload"
    )


@pytest.mark.parametrize("value", ["yes", "on", "1", "True", "TRUE", "false "])
def test_the_csv_save_field_is_strictly_true_or_false(client, value):
    r = client.post(
        "/api/classify/csv", files={"file": ("a.csv", b"text\nno meal today\n", "text/csv")}, data={"save": value}
    )
    assert r.status_code == 422 and "field 'save': input should be 'true' or 'false'" in r.json()["error"], r.text
    assert stored(client) == 0


def test_the_csv_save_field_true_and_false(client):
    assert post_csv(client, b"text\nno meal today\n", save=False).json()["results"][0]["id"] is None
    assert stored(client) == 0
    assert post_csv(client, b"text\nno meal today\n", save=True).json()["results"][0]["id"] == 1
    assert stored(client) == 1


# --- CSV in and out ---------------------------------------------------------------------------------


def test_an_unclosed_quote_is_refused_naming_its_line(client):
    content = b'text,school\nfine,S1\n"the dal was cold,S2\nno eggs,S3\nworms,S4\n'
    r = post_csv(client, content, save=True)
    assert r.status_code == 422
    assert r.json()["error"] == (
        "upload.csv: the double quote that opens a text on line 3 is never closed, so every line after it would "
        'be read as one complaint; nothing was classified: close the quote (write a quote inside a quoted text as "")'
    )
    assert stored(client) == 0
    r = post_csv(client, b'text\n"the ""dal"" was cold"\n"stray "quote" here"\n', save=True)
    assert r.status_code == 422 and "line 3 has a double quote inside a quoted text" in r.json()["error"]
    assert stored(client) == 0


FORMULAS = ['=HYPERLINK("http://x")', "+91 98765", "-2+3", "@SUM(A1)", "\tTAB", "\rCR first"]


def test_formula_prefixes_and_bare_carriage_returns_in_every_csv(log_client):
    """The log export, the upload's CSV answer and the page's CSV text: no cell starts a formula, a bare CR
    stays inside its quoted cell (one complaint, one record), and the text reads back whole after the quote."""
    client, _ = log_client
    texts = [*FORMULAS, "first line\rsecond line", "a\r\nb"]
    for t in texts:
        client.post("/api/classify", json={"text": t, "school": "=cmd|' /C calc'!A0", "save": True})
    upload = io.StringIO()
    csv.writer(upload, lineterminator="\r\n").writerows([["text", "school"], *[[t, "-S"] for t in texts]])
    answers = {
        "export": client.get("/api/complaints.csv").text,
        "upload csv": post_csv(client, upload.getvalue().encode(), fmt="csv").text,
        "page csv": client.post(
            "/api/classify/csv?with_csv=true", files={"file": ("x.csv", upload.getvalue().encode(), "text/csv")}
        ).json()["csv"],
    }
    for name, text in answers.items():
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
        assert len(rows) == len(texts), name
        for row in rows:
            for column in ("text", "school"):
                assert not row[column].startswith(("=", "+", "-", "@", "\t", "\r")), (name, row[column])
        got = sorted(r["text"].removeprefix("'") for r in rows)
        assert got == sorted(texts), name
        assert "first line\rsecond line" in {r["text"] for r in rows}


# --- the attention page -----------------------------------------------------------------------------


def test_placeholders_in_a_text_stay_text_on_the_attention_page(client):
    plain = client.get("/attention", params={"text": "abcdefgh " * 4})
    sneaky = client.get("/attention", params={"text": "{{data}} {{style}} {{script}} {{title}}"})
    assert plain.status_code == sneaky.status_code == 200
    assert len(sneaky.text) < 2 * len(plain.text)  # 4 words each: the pages are about the same size
    assert sneaky.text.count("{{data}} {{style}} {{script}} {{title}}") == 2  # the title and the data, as text


# --- starting the service ---------------------------------------------------------------------------


def serve(model_dir, db, *extra: str, timeout: float = 60) -> subprocess.CompletedProcess:
    from test_serve_api import free_port

    command = [sys.executable, "-m", "mealwatch", "serve", "--model", str(model_dir), "--db", str(db),
               "--search", "off"]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    return subprocess.run(
        [*command, "--port", str(free_port()), *extra], capture_output=True, text=True, timeout=timeout, env=env
    )


@contextlib.contextmanager
def read_only(path: Path):
    """``path`` made unwritable for this process: mode 0444, or immutable (chattr +i) when running as root."""
    if os.geteuid() != 0:
        os.chmod(path, 0o444)
        yield
        os.chmod(path, 0o644)
        return
    if subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode != 0:
        pytest.skip("running as root and chattr +i is not available here: a file cannot be made read-only")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def newer_log(path: Path) -> Path:
    import sqlite3

    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("CREATE TABLE complaints (id INTEGER)")
        conn.execute("PRAGMA user_version = 99")
        conn.commit()
    return path


@pytest.mark.parametrize(
    "case, message",
    [
        ("newer", "the complaint log has schema version 99, newer than this mealwatch understands"),
        ("junk", "cannot be opened as a complaint log (file is not a database): pass another --db file"),
        ("read-only file", "is read-only for this user: every save would fail"),
        ("read-only folder", "is read-only for this user: every save would fail"),
        ("no folder", "for the complaint log (No such file or directory): pass a --db file in a folder"),
    ],
)
def test_a_log_the_service_cannot_use_stops_it_at_start_in_one_line(model_dir, tmp_path, case, message):
    db = tmp_path / "log.db"
    guard: contextlib.AbstractContextManager = contextlib.nullcontext()
    if case == "newer":
        newer_log(db)
    elif case == "junk":
        db.write_bytes(b"not a database " * 100)
    elif case == "read-only file":
        open_and_close(db)
        guard = read_only(db)
    elif case == "read-only folder":
        guard = read_only(tmp_path)
    else:
        db = Path("/proc/no-such-folder/log.db")
    with guard:
        done = serve(model_dir, db)
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("mealwatch serve: error: ") and message in line, line
    assert "Traceback" not in done.stderr + done.stdout


def open_and_close(db: Path) -> None:
    from mealwatch.log import open_log

    open_log(db).close()


def test_a_read_only_log_is_refused_by_create_app(predictor, tmp_path):
    from mealwatch.log import StoreError

    db = tmp_path / "log.db"
    open_and_close(db)
    with read_only(db), pytest.raises(StoreError, match="is read-only for this user"):
        create_app(db_path=db, predictor=predictor)
    with local_client(create_app(db_path=db, predictor=predictor)) as ok:  # writable again: it serves
        assert ok.post("/api/classify", json={"text": "no meal", "save": True}).json()["id"] == 1


# --- checkpoints ------------------------------------------------------------------------------------


def test_embed_never_suggests_loading_a_pickle(tmp_path):
    """A pytorch_model.bin holding code is refused with our own message, never torch's advice to unpickle it."""
    import shutil

    import torch

    from mealwatch.transformer import bundled_model_dir

    folder = tmp_path / "ckpt"
    folder.mkdir()
    bundled = bundled_model_dir()
    for name in ("config.json", "vocab.txt", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json"):
        shutil.copy(bundled / name, folder / name)
    torch.save({"weights": torch.zeros(2), "surprise": print}, folder / "pytorch_model.bin")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run(
        [sys.executable, "-m", "mealwatch", "embed", "--model", str(folder), "a complaint"],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.splitlines()
    assert line == (
        f"mealwatch embed: error: {folder / 'pytorch_model.bin'} cannot be read as plain weights (it holds "
        "print, which is not a tensor); it is never loaded any other way, because a pickle can run code: "
        "convert the checkpoint to model.safetensors where it was made"
    )
    assert "weights_only" not in done.stderr


# --- serving safely by default ---------------------------------------------------------------------


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8000", "localhost:8000", "[::1]:8000", "LOCALHOST"])
def test_loopback_host_names_are_served(client, host):
    r = client.get("/api/health", headers={"host": host})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "", "10.0.0.5"])
def test_a_foreign_host_header_is_400(client, host):
    r = client.post("/api/classify", json={"text": "no meal", "save": True}, headers={"host": host})
    assert r.status_code == 400
    assert r.json()["error"] == (
        f"this service does not answer to the host name {host!r}: open it at one of 127.0.0.1, ::1, localhost"
    )
    assert stored(client) == 0


def test_trusted_hosts_are_served(predictor, tmp_path):
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor, trusted_hosts=["triage.district.example"])
    c = local_client(app)
    assert c.get("/api/health", headers={"host": "triage.district.example:8443"}).status_code == 200
    assert c.get("/api/health", headers={"host": "other.example"}).status_code == 400


def test_security_headers_on_every_answer(client):
    for r in (client.get("/"), client.get("/api/health"), client.get("/api/nothing"), client.get("/static/app.js"),
              client.post("/api/classify", json={"text": ""}), client.get("/docs")):  # fmt: skip
        csp = r.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "unsafe-inline" not in csp
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["referrer-policy"] == "no-referrer"
        assert r.headers["x-frame-options"] == "DENY"
    assert client.get("/api/health").headers["cache-control"] == "no-store"


def test_the_attention_page_runs_only_its_own_nonced_script(client):
    r = client.get("/attention", params={"text": "The dal was cold"})
    csp = r.headers["content-security-policy"]
    nonce = csp.split("'nonce-")[1].split("'")[0]
    assert len(nonce) >= 16 and "unsafe-inline" not in csp and "frame-ancestors 'none'" in csp
    assert r.text.count(f'nonce="{nonce}"') == 2  # the script and the style
    assert r.text.count("<script") == 2  # the nonced script and the JSON data block (never run)
    other = client.get("/attention", params={"text": "The dal was cold"}).headers["content-security-policy"]
    assert other != csp  # a fresh nonce per page


def test_the_api_docs_load_nothing_from_another_site(client):
    page = client.get("/docs")
    assert page.status_code == 200 and '<script src="/static/docs.js"></script>' in page.text
    for text in (page.text, client.get("/static/docs.js").text):
        assert "http://" not in text and "https://" not in text and "cdn" not in text.lower()
    spec = client.get("/openapi.json").json()
    assert "/api/classify" in spec["paths"] and client.get("/redoc").status_code == 404


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "http://evil.example"},
        {"origin": "null"},
        {"sec-fetch-site": "cross-site"},
        {"sec-fetch-site": "same-site", "origin": "http://127.0.0.1"},
        {"origin": "http://127.0.0.1:9999"},
    ],
)
def test_cross_site_writes_are_refused_and_save_nothing(client, headers):
    upload = {"file": ("a.csv", b"text\nno meal today\n", "text/csv")}
    answers = [
        client.post("/api/classify", json={"text": "no meal", "save": True}, headers=headers),
        client.post("/api/classify/batch", json={"texts": ["no meal"], "save": True}, headers=headers),
        client.post("/api/classify/csv", files=upload, data={"save": "true"}, headers=headers),
    ]
    saved = client.post("/api/classify", json={"text": "a saved one", "save": True}).json()["id"]
    answers.append(client.patch(f"/api/complaints/{saved}", json={"status": "in_progress"}, headers=headers))
    for r in answers:
        assert r.status_code == 403 and "may not change anything here" in r.json()["error"], r.text
    assert stored(client) == 1 and client.get(f"/api/complaints/{saved}").json()["status"] == "new"


@pytest.mark.parametrize(
    "headers", [{}, {"origin": "http://127.0.0.1"}, {"sec-fetch-site": "same-origin"}, {"sec-fetch-site": "none"}]
)
def test_same_origin_and_non_browser_writes_are_served(client, headers):
    r = client.post("/api/classify", json={"text": "no meal", "save": True}, headers=headers)
    assert r.status_code == 200 and r.json()["id"] == 1


def test_reads_from_another_site_are_not_refused_but_carry_no_cors_grant(client):
    r = client.get("/api/complaints", headers={"origin": "http://evil.example", "sec-fetch-site": "cross-site"})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--host", "0.0.0.0"], "--host 0.0.0.0 would let other machines reach the service, which has no accounts"),
        (["--host", "192.168.1.10", "--allow-remote", " "], "say why with --allow-remote REASON"),
        (["--host", "0.0.0.0", "--allow-remote", "VPN only"], "name the host names or addresses clients will use"),
    ],
)
def test_serve_refuses_a_remote_host_unless_told_why(argv, message, capsys):
    from mealwatch.cli import main

    assert main(["serve", *argv]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line.startswith("mealwatch serve: error: ") and message in line


def test_check_remote_trusts_the_named_hosts():
    from mealwatch.cli.serve import check_remote

    assert check_remote("127.0.0.1", None, []) == []
    assert check_remote("::1", None, ["me.example"]) == ["me.example"]
    assert check_remote("192.168.1.10", "VPN only", []) == ["192.168.1.10"]
    assert check_remote("0.0.0.0", "VPN only", ["triage.example"]) == ["triage.example"]


def test_the_server_hands_freed_memory_back_on_glibc():
    """`mealwatch serve` fixes glibc's mmap threshold and arenas (docs/benchmarks.md: memory under load)."""
    import platform

    from mealwatch.memory import tune_allocator

    expected = platform.system() == "Linux" and platform.libc_ver()[0] == "glibc"
    assert tune_allocator() is expected
