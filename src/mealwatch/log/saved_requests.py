"""Saving requests' answers kept for their retries (table ``saved_requests``, schema version 5): what
``ComplaintLog.add_many_once`` stores with the complaints a request carrying an Idempotency-Key saved, and
``saved_answer`` gives back."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from .shapes import from_stored_time, to_stored_time


@dataclass
class SavedAnswer:
    """The answer to a saving request that carried an idempotency key, as stored with the complaints it saved."""

    fingerprint: str  # what the request asked (a hash); the same key with another fingerprint is another request
    answer: str  # the response body
    media_type: str
    complaint_ids: list[int]
    replayed: bool = False  # True when an earlier request with this key saved it (nothing new was saved)


#: how long a saving request's answer is kept for its retries (older keys are forgotten, hours)
IDEMPOTENCY_HOURS = 24


#: a saving request's stored answer, by key, unless forgotten (parameters: key, forgotten_before(); "?" marks)
SAVED_ANSWER = (
    "SELECT fingerprint, answer, media_type, complaint_ids FROM saved_requests WHERE key = ? AND created_at >= ?"
)


def decode_saved(row: Mapping[str, Any], replayed: bool) -> SavedAnswer:
    """A ``saved_requests`` row (fingerprint, answer, media_type, complaint_ids) as a SavedAnswer."""
    return SavedAnswer(row["fingerprint"], row["answer"], row["media_type"], json.loads(row["complaint_ids"]), replayed)


def forgotten_before(now: str) -> str:
    """The stored time before which idempotency keys are forgotten, ``now`` being the log's clock."""
    return to_stored_time(from_stored_time(now) - timedelta(hours=IDEMPOTENCY_HOURS))
