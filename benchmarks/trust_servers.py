"""The servers issue 27's probe runs its cases against (benchmarks/trust_attack.py, trust_failure.py): the service
under its own uvicorn settings in a thread of this process, signed-in clients, requests left in flight. Only
127.0.0.1 is ever contacted."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

HOST = "127.0.0.1"
PASSWORD = "probe-password-1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def rss_mb(pid: int | str = "self") -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


@contextlib.contextmanager
def served(app, **listen) -> Iterator[str]:
    """``app`` under the service's own uvicorn settings, in a thread of this process; yields its base URL."""
    import uvicorn

    from mealwatch.serve.listening import ListenSettings, server_config

    server = uvicorn.Server(server_config(app, ListenSettings(HOST, free_port(), **listen)))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        assert thread.is_alive(), "the probe's server did not start"
        time.sleep(0.02)
    try:
        yield f"http://{HOST}:{server.config.port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def accounts_app(model: Path, db: Path):
    from mealwatch.accounts import hash_password
    from mealwatch.serve import create_app

    app = create_app(model, db, accounts=True)
    store = app.state.service.store
    for name, role in (("gopal", "officer"), ("gita", "viewer")):
        store.add_user(name, hash_password(PASSWORD), role, ["Gaya"])
    return app


def login(url: str, name: str, address: str | None = None) -> httpx.Response:
    headers = {"X-Forwarded-For": address} if address else {}
    return httpx.post(f"{url}/api/login", json={"name": name, "password": PASSWORD}, headers=headers, timeout=60)


def signed_in(url: str, name: str) -> httpx.Client:
    r = login(url, name)
    client = httpx.Client(base_url=url, timeout=120, cookies=r.cookies)
    client.headers["X-CSRF-Token"] = r.json()["csrf_token"]
    return client


def in_flight(send) -> None:
    """Run ``send()`` on a thread of its own, its failure (the server killed under it) expected."""

    def quietly() -> None:
        with contextlib.suppress(httpx.HTTPError):
            send()

    threading.Thread(target=quietly, daemon=True).start()
