"""What every request passes before a route sees it, and what every answer carries.

- **Trusted hosts**: a request whose ``Host`` is not one of the service's own names is a 400 (a web page
  cannot reach the service through a name it controls: DNS rebinding).
- **Cross-site writes and costly reads**: a state-changing request (POST, PATCH, PUT, DELETE) that a browser sends
  from another site is a 403, and so is a read that costs the service real work (``COSTLY_READS``: the attention
  page, which runs the model and may explain it; the CSV export of the whole log): browsers say where a request
  comes from (``Sec-Fetch-Site``, ``Origin``), and a page of another origin cannot hide it. Opening such an
  address by hand (typed, a bookmark) is not cross-site. Clients that are not browsers (scripts, intake
  systems) send neither and are served.
- **Headers**: a Content-Security-Policy (only this service's own scripts, styles and connections; no framing),
  ``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` (the attention page's address holds a
  complaint's text), and ``Cache-Control: no-store`` on the API's answers (complaints name people).

A route may set its own Content-Security-Policy (the attention page: its inline script and style carry a nonce);
the middleware adds the default only where none is set.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

#: the names of this machine's loopback interface, always trusted
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
#: methods that change something: refused when a browser sends them from another site
STATE_CHANGING = frozenset({"POST", "PATCH", "PUT", "DELETE"})
#: reads that cost the service real work, refused from another site too (a page could make every visitor's
#: browser run them against a service on their machine)
COSTLY_READS = frozenset({"/attention", "/api/complaints.csv"})
#: the page, its script and its style come from this service; nothing else runs, loads or frames it
DEFAULT_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address, IPv6 with or without brackets) is this machine's loopback."""
    import ipaddress

    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def page_csp(nonce: str) -> str:
    """The policy of a self-contained page whose one inline script and one inline style carry ``nonce``."""
    return (
        f"default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; img-src data:; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def new_nonce() -> str:
    return secrets.token_urlsafe(18)


def host_name(host_header: str) -> str:
    """The name in a ``Host`` header, without its port, lower-cased (``[::1]:8000`` -> ``::1``)."""
    value = host_header.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class SecurityMiddleware:
    """Trusted hosts, cross-site write refusal and security headers (see the module docstring); plain ASGI."""

    def __init__(self, app: ASGIApp, trusted_hosts: Iterable[str] = LOOPBACK_HOSTS) -> None:
        self.app = app
        self.trusted = {h.strip("[]").lower() for h in trusted_hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        if host_name(host) not in self.trusted:
            await refuse(
                send, 400, f"this service does not answer to the host name {host!r}: open it at one of "
                + ", ".join(sorted(self.trusted)),
            )  # fmt: skip
            return
        if scope["method"] in STATE_CHANGING or scope["path"] in COSTLY_READS:
            problem = cross_site(headers, host)
            if problem:
                await refuse(send, 403, problem)
                return

        api = scope["path"].startswith("/api/")

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k.encode(), v.encode()) for k, v in HEADERS.items() if k.encode() not in present]
                if b"content-security-policy" not in present:
                    extra.append((b"content-security-policy", DEFAULT_CSP.encode()))
                if api and b"cache-control" not in present:
                    extra.append((b"cache-control", b"no-store"))
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, with_headers)


def cross_site(headers: dict[str, str], host: str) -> str | None:
    """Why a state-changing request is refused as coming from another site, or None when it may go on."""
    site = headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return (
            f"a {site} request may not change anything here, nor run the model or export the log: the service only "
            "takes them from its own page, an address opened by hand, or clients that are not browsers"
        )
    origin = headers.get("origin")
    if origin is not None:
        parts = urlsplit(origin)
        if origin == "null" or parts.netloc.lower() != host.lower():  # the scheme may differ behind a TLS proxy
            return (
                f"a request from {origin} may not change anything here, nor run the model or export the log: the "
                "service only takes them from its own page or from clients that are not browsers"
            )
    return None


async def refuse(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *((k.encode(), v.encode()) for k, v in HEADERS.items()),
                (b"content-security-policy", DEFAULT_CSP.encode()),
                (b"cache-control", b"no-store"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
