"""How ``mealwatch serve`` listens: uvicorn's settings, with the connections bounded before they cost anything.

- **Connections**: at most ``max_connections`` open at once (below the process's file-descriptor limit, which is
  raised to its hard limit at start), and a tenth of them from one address (not for a configured proxy's, which
  carries everyone's); a connection beyond is closed at once, so half-open connections cannot exhaust the
  descriptors that normal requests need.
- **Header timeout**: a connection must deliver a request's headers within ``header_timeout_s`` of opening (or of
  its previous answer, on a kept-alive connection), else it is closed: a client that opens connections and sends
  nothing, or a byte at a time, holds none for long. (The body has its own limits: ``admission``.)
- **Forwarded headers**: ``X-Forwarded-For`` and ``X-Forwarded-Proto`` are read only from the proxies named
  (``--proxy ADDRESS``); without one they are ignored, whoever sends them (uvicorn would trust them from
  loopback, where a local proxy — or anyone on the machine — can claim any address).
- **Stopping**: requests in flight get ``graceful_s`` seconds after Ctrl-C or SIGTERM, then the server stops.
"""

from __future__ import annotations

import resource
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

#: file descriptors kept back from connections (the log, the model's files, the server's own sockets)
RESERVED_FDS = 64


@dataclass
class ListenSettings:
    """Where and how the service listens (see the module docstring)."""

    host: str = "127.0.0.1"
    port: int = 8000
    proxies: tuple[str, ...] = ()  # addresses whose X-Forwarded-For / -Proto are believed
    max_connections: int = 1000
    header_timeout_s: float = 20.0
    graceful_s: float = 10.0
    per_address: int = field(init=False)

    def __post_init__(self) -> None:
        self.per_address = max(10, self.max_connections // 10)


def raise_fd_limit(wanted: int) -> int:
    """Raise the soft limit of open files towards the hard one (as far as ``wanted`` plus the reserve needs);
    the most connections it leaves room for."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = wanted + RESERVED_FDS
    if soft != resource.RLIM_INFINITY and soft < need:
        target = need if hard == resource.RLIM_INFINITY else min(need, hard)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return wanted if soft == resource.RLIM_INFINITY else max(1, min(wanted, soft - RESERVED_FDS))


def guarded_protocol(settings: ListenSettings) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the connection limits and the header timeout of ``settings``."""
    proxies = set(settings.proxies)
    per_address: Counter[str | None] = Counter()  # open connections by peer address (the event loop's thread only)

    class Guarded(H11Protocol):
        _header_timer: Any = None
        _address: str | None = None
        _counted = False

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            peer = transport.get_extra_info("peername")
            address = peer[0] if isinstance(peer, tuple) else None
            if len(self.connections) >= settings.max_connections or (
                address not in proxies and per_address[address] >= settings.per_address
            ):
                self.transport = transport
                transport.abort()  # refused at once: its descriptor is free again
                return
            self._address, self._counted = address, True
            per_address[address] += 1
            super().connection_made(transport)
            self._arm()

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(settings.header_timeout_s, self._headers_too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()  # no request's headers within the limit: a slow or idle client

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is not h11.IDLE:
                self._disarm()  # the headers are in

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request on this connection has the same limit

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            if self._counted:
                self._counted = False
                per_address[self._address] -= 1
                if per_address[self._address] <= 0:
                    del per_address[self._address]
            super().connection_lost(exc)

    return Guarded


def server_options(settings: ListenSettings) -> dict[str, Any]:
    """uvicorn's keyword arguments (``uvicorn.run(app, **...)``, ``uvicorn.Config``) for listening as ``settings``."""
    return {
        "host": settings.host,
        "port": settings.port,
        "log_level": "warning",
        "http": guarded_protocol(settings),
        "proxy_headers": bool(settings.proxies),  # off: X-Forwarded-* are ignored, whoever sends them
        "forwarded_allow_ips": list(settings.proxies) or None,
        "timeout_graceful_shutdown": settings.graceful_s,
        "backlog": min(2048, settings.max_connections),
    }


def server_config(app: Any, settings: ListenSettings) -> uvicorn.Config:
    """The uvicorn configuration of ``app`` listening as ``settings`` says (a test runs it in a thread)."""
    return uvicorn.Config(app, **server_options(settings))
