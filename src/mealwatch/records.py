"""A complaint's record beyond its text: channels, reporter phone numbers, incident times, and the keys that
group complaints by school and by block (for search and for outbreak alerts).

Everything here is plain data: no model, no storage. Every front end (the API, CSV uploads, the log)
checks and normalises record fields through these functions, so they cannot disagree.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import date, datetime, time, timezone, tzinfo

#: how a complaint reached the district cell
CHANNELS = ("phone", "sms", "whatsapp", "letter", "web", "visit")
#: the longest school, district, block, assignee or UDISE value accepted, in characters (``clean_name``)
MAX_NAME_CHARS = 200
#: a note on a complaint, in characters
MAX_NOTES_CHARS = 5000
#: digits a phone number may have (an Indian mobile has 10, +91 adds 2; landlines with STD code 10-11)
PHONE_DIGITS = (7, 15)
#: how many trailing digits a masked phone number keeps
SHOWN_PHONE_DIGITS = 4
#: extra (unknown) fields kept on a complaint: how many, and how long each name and value may be
MAX_EXTRA_FIELDS = 50
MAX_EXTRA_CHARS = 2000

_PHONE_CHARS = re.compile(r"^\+?[0-9 ().\-]+$")
#: a day as India writes it, day first: 27/05/2025, 27-05-2025 or 27.05.2025 (a one-digit day or month too), and
#: optionally a time of day after it (14:05 or 14:05:30)
_DAY_FIRST = re.compile(r"^(\d{1,2})([/.\-])(\d{1,2})\2(\d{4})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2}))?)?$")
_UDISE = re.compile(r"^[0-9]{11}$")


class RecordError(ValueError):
    """A record field that cannot be stored as given; the message names the field and what was expected."""


@dataclass
class Record:
    """What is known of a complaint besides its text, every field checked (``check_record``)."""

    school: str | None = None
    udise: str | None = None
    district: str | None = None
    block: str | None = None
    incident_at: datetime | None = None  # aware, UTC
    channel: str | None = None
    reporter_phone: str | None = None  # digits, with a leading + when given one
    extra: dict[str, str] = field(default_factory=dict)  # columns or fields mealwatch has no place for, kept whole


def fold(text: str) -> str:
    """``text`` for case-insensitive comparison: NFKC, Unicode case folding, white space collapsed.

    Devanagari has no case and comes through unchanged (only NFKC, so ``क़`` typed either way matches).
    """
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def school_group(school: str | None, udise: str | None, district: str | None) -> str | None:
    """The key that says two complaints are about one school: its UDISE code, else its name, within its district
    (two districts' complaints never make one school, even under one UDISE code)."""
    if udise:
        return f"udise:{fold(district or '')}|{udise}"
    if not school:
        return None
    return f"name:{fold(district or '')}|{fold(school)}"


def block_group(district: str | None, block: str | None) -> str | None:
    """The key of a block (blocks of one name exist in several districts), or None without a block."""
    return f"{fold(district or '')}|{fold(block)}" if block else None


def clean_name(value: str | None, name: str, limit: int = MAX_NAME_CHARS) -> str | None:
    """A short text field stripped; None when empty; RecordError when too long or not storable text."""
    if value is None or not value.strip():
        return None
    if len(value) > limit:
        raise RecordError(f"{name} is {len(value):,} characters long; the limit is {limit}")
    check_storable(value, name)
    return value.strip()


def check_storable(value: str, name: str) -> None:
    """RecordError when ``value`` holds what no database column can keep: a NUL, or a lone surrogate."""
    if "\x00" in value:
        raise RecordError(f"{name} contains a NUL character (\\x00): remove it")
    if any("\ud800" <= c <= "\udfff" for c in value):
        raise RecordError(f"{name} holds a lone surrogate, which is not a character: send it as valid UTF-8")


def check_udise(value: str | None) -> str | None:
    """An 11-digit UDISE code (spaces allowed between groups), or None."""
    value = clean_name(value, "udise")
    if value is None:
        return None
    digits = value.replace(" ", "")
    if not _UDISE.match(digits):
        raise RecordError(f"udise must be the school's 11-digit UDISE code, not {value!r}")
    return digits


def check_channel(value: str | None) -> str | None:
    """One of ``CHANNELS`` (any case), or None."""
    value = clean_name(value, "channel")
    if value is None:
        return None
    if value.lower() not in CHANNELS:
        raise RecordError(f"channel must be one of {', '.join(CHANNELS)}, not {value!r}")
    return value.lower()


def check_phone(value: str | None) -> str | None:
    """A phone number as digits (a leading ``+`` kept); spaces, dashes, dots and brackets are dropped."""
    value = clean_name(value, "reporter_phone", 40)
    if value is None:
        return None
    digits = re.sub(r"\D", "", value)
    if not _PHONE_CHARS.match(value) or not PHONE_DIGITS[0] <= len(digits) <= PHONE_DIGITS[1]:
        raise RecordError(
            f"reporter_phone must be a phone number ({PHONE_DIGITS[0]} to {PHONE_DIGITS[1]} digits, "
            f"optionally with +, spaces or dashes), not {value!r}"
        )
    return ("+" if value.startswith("+") else "") + digits


def mask_phone(phone: str | None) -> str | None:
    """A stored phone number with all but its last ``SHOWN_PHONE_DIGITS`` digits as ``*``: ``******3210``."""
    if not phone:
        return phone
    digits = phone.lstrip("+")
    return "*" * max(0, len(digits) - SHOWN_PHONE_DIGITS) + digits[-SHOWN_PHONE_DIGITS:]


def check_incident(value: str | None, zone: tzinfo = timezone.utc) -> datetime | None:
    """When the incident happened, in UTC: a day (``2025-01-31``, or day first as India writes it: ``31/01/2025``,
    ``31-01-2025``, ``31.01.2025``; its start in ``zone``), or a time (ISO ``2025-01-31T13:05+05:30``,
    ``2025-01-31 13:05``, ``31/01/2025 13:05``; one without an offset is read in ``zone``)."""
    value = clean_name(value, "incident_date", 64)
    if value is None:
        return None
    try:
        day_first = _DAY_FIRST.match(value)
        if day_first:
            d, _, m, y, hh, mm, ss = day_first.groups()
            clock = time(int(hh), int(mm), int(ss or 0)) if hh is not None else time(0)
            moment = datetime.combine(date(int(y), int(m), int(d)), clock, zone)
        elif len(value) == 10:
            moment = datetime.combine(date.fromisoformat(value), time(0), zone)
        else:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
            moment = moment.replace(tzinfo=zone) if moment.tzinfo is None else moment
    except ValueError:
        raise RecordError(
            f"incident_date must be a day (YYYY-MM-DD, or DD/MM/YYYY) or a time (2025-01-31T13:05+05:30, "
            f"31/01/2025 13:05), not {value!r}"
        ) from None
    try:
        moment = moment.astimezone(timezone.utc)
    except OverflowError:  # a time at the calendar's very ends, once in UTC
        raise RecordError(f"incident_date {value!r} is before the year 2000 or after 9999: check the date") from None
    if moment.year < 2000:
        raise RecordError(f"incident_date {value!r} is before the year 2000: check the date")
    return moment


def check_extra(extra: dict[str, str] | None) -> dict[str, str]:
    """Extra fields kept on a complaint (text values); empty values dropped, limits checked."""
    kept: dict[str, str] = {}
    for key, value in (extra or {}).items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise RecordError("extra must map field names to text values")
        if not key.strip() or not value.strip():
            continue
        if len(key) > MAX_NAME_CHARS or len(value) > MAX_EXTRA_CHARS:
            raise RecordError(
                f"extra field {key[:40]!r} is too long (names up to {MAX_NAME_CHARS}, values up to "
                f"{MAX_EXTRA_CHARS} characters)"
            )
        check_storable(key, f"extra field {key[:40]!r}")
        check_storable(value, f"extra field {key[:40]!r}")
        kept[key.strip()] = value
    if len(kept) > MAX_EXTRA_FIELDS:
        raise RecordError(f"{len(kept)} extra fields; the limit is {MAX_EXTRA_FIELDS}")
    return kept
