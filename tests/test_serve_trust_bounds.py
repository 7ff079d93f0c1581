"""Issue 27, requests bounded before they cost anything: forwarded addresses believed only from a named proxy
(item 4); list bombs refused at their length with a short answer (11); size limits and the account checked before
a body is read (12); a connection limit and header and body timeouts (13); costly reads refused from other sites
(14)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest
import uvicorn
from test_accounts import PASSWORDS, app, clock, login  # noqa: F401 - the accounts fixtures
from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - the tiny model

from mealwatch.serve import create_app
from mealwatch.serve.listening import ListenSettings, server_config


@contextlib.contextmanager
def listening(app, **settings) -> Iterator[str]:  # noqa: F811
    """``app`` under the service's own uvicorn settings (``listening``) in a thread; yields its base URL."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(server_config(app, ListenSettings("127.0.0.1", port, **settings)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the test server did not start"
            time.sleep(0.02)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.mark.parametrize("proxies", [(), ("127.0.0.1",)])
def test_forwarded_addresses_are_believed_only_from_a_named_proxy(app, proxies):  # noqa: F811
    wrong = {"name": "ravi", "password": "not-the-password"}
    with listening(app, proxies=proxies) as url:
        codes = [httpx.post(f"{url}/api/login", json=wrong, headers={"X-Forwarded-For": f"203.0.113.{i}"}).status_code
                 for i in range(7)]  # fmt: skip
        failed = app.state.service.store.audit_entries(limit=None, action="login_failed").items
    clients = {e["client"] for e in failed}
    if not proxies:  # forged: ignored; seven tries from one address meet its limit
        assert codes == [401] * 5 + [429] * 2 and clients == {"127.0.0.1"}
    else:  # from the proxy: each forwarded address is its own (the name's own bucket still holds at 20)
        assert codes == [401] * 7 and clients == {f"203.0.113.{i}" for i in range(7)}


def test_a_list_bomb_is_refused_at_its_length_with_a_short_answer(app):  # noqa: F811
    vik = login(app, "vik")  # any viewer may classify
    bomb = json.dumps({"texts": [[]] * 1_000_000})
    t0 = time.perf_counter()
    r = vik.post("/api/classify/batch", content=bomb, headers={"content-type": "application/json"})
    assert r.status_code == 422 and len(r.content) < 300, r.content[:300]
    assert "holds 2,000,001 JSON lists, objects and items; the limit is 50,000" in r.json()["error"]
    r = vik.post("/api/classify/batch", json={"texts": ["a"] * 20_000})  # under the count: refused at its length
    assert r.status_code == 422 and "holds 20,000 complaints; the limit is 256" in r.json()["error"]
    assert time.perf_counter() - t0 < 30  # a bound, not a benchmark: seconds at most (it was minutes)
    r = vik.post("/api/classify/batch", json={"items": [{"text": 5}] * 256})
    assert r.status_code == 422 and "and 246 more problems (the first 10 are named)" in r.json()["error"]
    assert len(r.content) < 2000


def test_the_shape_count_leaves_strings_out():
    from mealwatch.serve.admission import json_values

    texts = ['rice, dal, [worms], {"egg"} \\ \\" ' * 10] * 256  # brackets, commas, quotes and escapes in strings
    body = json.dumps({"texts": texts, "save": False}).encode()
    assert json_values(body) == 2 + 255 + 1  # the object and the list, the commas between items and fields
    assert json_values(json.dumps([[]] * 1000).encode()) == 1000 + 1 + 999


def test_a_large_batch_with_commas_in_its_texts_passes_the_shape_check(app):  # noqa: F811
    vik = login(app, "vik")
    texts = [f"complaint {i}: rice, dal, roti, sabzi, " * 12 for i in range(256)]  # 6,000 commas in all
    r = vik.post("/api/classify/batch", json={"texts": texts})
    assert r.status_code == 200 and r.json()["count"] == 256


def asgi(
    service,
    method: str,
    path: str,
    headers: dict[str, str],
    chunks: list[bytes],
    stall: bool = False,
) -> tuple[int, bytes, int]:
    """One request straight through the ASGI app: (status, body, how many body pieces it read); ``stall``: the
    client says more is coming after the last piece, and sends nothing."""
    read = 0
    pieces = list(chunks)
    sent: list[dict] = []

    async def receive():
        nonlocal read
        if not pieces:
            await asyncio.sleep(3600)  # the client sends nothing more
        read += 1
        return {"type": "http.request", "body": pieces.pop(0), "more_body": bool(pieces) or stall}

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "query_string": b"",
             "headers": [(k.lower().encode(), v.encode()) for k, v in {"host": "127.0.0.1", **headers}.items()],
             "client": ("127.0.0.1", 5000), "server": ("127.0.0.1", 8000), "scheme": "http", "http_version": "1.1",
             "root_path": "", "state": {}}  # fmt: skip
    asyncio.run(asyncio.wait_for(service(scope, receive, send), 30))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"), read


def test_nobody_and_oversized_bodies_are_answered_before_the_body_is_read(app):  # noqa: F811
    big = b'{"text": "' + b"x" * (50 << 20) + b'"}'
    json_headers = {"content-type": "application/json"}
    status, body, read = asgi(app, "POST", "/api/classify", {**json_headers, "content-length": str(len(big))}, [big])
    assert (status, read) == (413, 0) and b"takes at most 1,048,576" in body
    small = b'{"text": "no eggs", "save": true}'
    status, body, read = asgi(app, "POST", "/api/classify", {**json_headers, "content-length": str(len(small))},
                              [small])  # fmt: skip
    assert (status, read) == (401, 0) and b"log in first" in body  # no credentials: the body is never read
    csv_headers = {"content-type": "multipart/form-data; boundary=x", "content-length": str(300 << 20)}
    status, _, read = asgi(app, "POST", "/api/classify/csv", csv_headers, [b"--x\r\n"])
    assert (status, read) == (413, 0)  # a 300 MB upload is never spooled
    token = "Bearer mw_not-a-token"
    status, body, read = asgi(app, "POST", "/api/users", {**json_headers, "authorization": token}, [b"{}"])
    assert (status, read) == (401, 0) and b"this API token is not known" in body


def test_a_body_without_a_length_is_cut_off_at_its_limit(app):  # noqa: F811
    ravi = login(app, "ravi")
    cookie, csrf = ravi.cookies["mealwatch_session"], ravi.csrf
    headers = {"content-type": "application/json", "cookie": f"mealwatch_session={cookie}", "x-csrf-token": csrf}
    chunks = [b'{"text": "'] + [b"x" * 65536] * 40 + [b'"}']  # 2.6 MB, streamed without Content-Length
    status, body, read = asgi(app, "PATCH", "/api/complaints/1", headers, chunks)
    assert status == 413 and read == 3 and b"takes at most 131,072" in body  # stopped once past the limit


def test_a_body_that_stops_coming_is_a_408(app, monkeypatch):  # noqa: F811
    import mealwatch.serve.admission as admission

    monkeypatch.setattr(admission, "BODY_IDLE_S", 0.3)
    headers = {"content-type": "application/json", "content-length": "1000"}
    status, body, read = asgi(create_app_without_accounts(app), "POST", "/api/classify", headers, [b'{"text": "'], True)
    assert status == 408 and b"the request body stopped coming (10 bytes in)" in body


def create_app_without_accounts(app):  # noqa: F811
    return create_app(db_path=app.state.service.store.path.with_name("open.db"), predictor=app.state.service.predictor)


def test_idle_connections_are_closed_and_the_limit_holds_while_normal_requests_go_on(predictor, tmp_path):  # noqa: F811
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor)  # noqa: F811
    with listening(app, max_connections=20, header_timeout_s=0.5) as url:
        port = int(url.rsplit(":", 1)[1])
        idle = []
        for _ in range(60):  # half-open: connected, nothing sent
            s = socket.create_connection(("127.0.0.1", port))
            s.settimeout(3)
            idle.append(s)
        t0 = time.monotonic()
        closed = 0
        for s in idle:
            with contextlib.suppress(OSError):
                closed += s.recv(1) == b""
        assert closed == 60 and time.monotonic() - t0 < 2.5  # over the limit at once, the rest at the timeout
        for s in idle:
            s.close()
        assert httpx.get(f"{url}/api/health", timeout=5).status_code == 200
        slow = socket.create_connection(("127.0.0.1", port))  # headers a byte at a time
        slow.settimeout(3)
        t0 = time.monotonic()
        with contextlib.suppress(OSError):
            for byte in b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n":
                slow.sendall(bytes([byte]))
                time.sleep(0.05)
        assert slow.recv(1) == b"" and time.monotonic() - t0 < 2.5
        slow.close()


@pytest.mark.parametrize("path", ["/attention?text=dal%20cold", "/api/complaints.csv"])
def test_costly_reads_are_refused_from_another_site(predictor, tmp_path, path):  # noqa: F811
    client = local_client(create_app(db_path=tmp_path / "log.db", predictor=predictor))
    for headers in ({"sec-fetch-site": "cross-site"}, {"sec-fetch-site": "same-site"},
                    {"origin": "http://evil.example"}):  # fmt: skip
        r = client.get(path, headers=headers)
        assert r.status_code == 403 and "nor run the model or export the log" in r.json()["error"], headers
    for headers in ({}, {"sec-fetch-site": "none"}, {"sec-fetch-site": "same-origin"}):  # by hand, its own page
        assert client.get(path, headers=headers).status_code == 200
    assert client.get("/api/complaints", headers={"sec-fetch-site": "cross-site"}).status_code == 200  # cheap reads
