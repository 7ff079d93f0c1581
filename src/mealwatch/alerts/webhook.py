"""The optional outgoing webhook: each raised or extended alert POSTed as JSON to one URL, from a background
thread, retried with exponential back-off, so that a slow or absent receiver never delays a save."""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from ..log import AlertOutcome

log = logging.getLogger("mealwatch.alerts")


def check_url(url: str) -> str:
    """An http(s) URL with a host, as given; ValueError otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"the alert webhook must be an http:// or https:// URL with a host, not {url!r}")
    return url


class Webhook:
    """POSTs ``{"event": "raised" | "extended", "alert": {...}, "added": [...]}`` to ``url``.

    A delivery that fails (no connection, a timeout, an answer other than 2xx) is tried again after
    ``first_delay`` seconds, then twice as long each time, ``attempts`` tries in all; then it is logged and
    dropped. Deliveries go out one at a time, in the order the alerts happened.
    """

    def __init__(
        self,
        url: str,
        *,
        attempts: int = 6,
        first_delay: float = 1.0,
        timeout: float = 5.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = check_url(url)
        self.attempts, self.first_delay, self.timeout, self.sleep = attempts, first_delay, timeout, sleep
        self.delivered = 0
        self.failed = 0
        self._queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._thread = threading.Thread(target=self._run, name="mealwatch-alert-webhook", daemon=True)
        self._thread.start()

    def __call__(self, outcome: AlertOutcome) -> None:
        """Queue the alert's delivery; returns at once."""
        self._queue.put({"event": outcome.kind, "alert": outcome.alert, "added": outcome.added})

    def close(self, timeout: float = 5.0) -> None:
        """Stop after the deliveries already queued (waiting at most ``timeout`` seconds)."""
        self._queue.put(None)
        self._thread.join(timeout)

    def _run(self) -> None:
        while (event := self._queue.get()) is not None:
            if self._deliver(event):
                self.delivered += 1
            else:
                self.failed += 1

    def _deliver(self, event: dict[str, Any]) -> bool:
        body = json.dumps(event, ensure_ascii=False).encode("utf-8")
        delay = self.first_delay
        for attempt in range(1, self.attempts + 1):
            request = urllib.request.Request(
                self.url, body, {"Content-Type": "application/json; charset=utf-8"}, method="POST"
            )
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as answer:  # noqa: S310 - http(s) only
                    if 200 <= answer.status < 300:
                        return True
                    problem = f"answered {answer.status}"
            except urllib.error.HTTPError as e:
                problem = f"answered {e.code}"
            except (urllib.error.URLError, OSError) as e:
                problem = str(getattr(e, "reason", e))
            if attempt == self.attempts:
                log.error("alert %s: the webhook %s %s; gave up after %d tries", event["alert"]["id"], self.url,
                          problem, attempt)  # fmt: skip
                return False
            log.warning("alert %s: the webhook %s %s; trying again in %.1f s", event["alert"]["id"], self.url,
                        problem, delay)  # fmt: skip
            self.sleep(delay)
            delay *= 2
        return False
