"""A complaint's record in the HTTP API: the optional request fields (school, UDISE code, district, block,
incident date, channel, reporter phone, extra fields) and the fields every answer about a complaint carries.

Every field is optional, so clients written before they existed keep working. Values are checked by
``mealwatch.records`` (one rule for the API, CSV uploads and the log); a bad one is a 422 naming it.
"""

from __future__ import annotations

from datetime import tzinfo
from typing import Any

from pydantic import BaseModel, Field, field_validator

from ..log import to_stored_time
from ..records import (
    CHANNELS,
    MAX_EXTRA_FIELDS,
    MAX_NAME_CHARS,
    Record,
    check_channel,
    check_extra,
    check_incident,
    check_phone,
    check_udise,
    clean_name,
    mask_phone,
)


class RecordFields(BaseModel):
    """The record fields of a complaint sent to be classified (mixed into the request bodies)."""

    school: str | None = Field(None, description=f"the school it is about, up to {MAX_NAME_CHARS} characters")
    udise: str | None = Field(None, description="the school's 11-digit UDISE code")
    district: str | None = Field(None, description="the school's district")
    block: str | None = Field(None, description="the school's block (a shared kitchen often serves one block)")
    incident_date: str | None = Field(
        None,
        description="when it happened: a day (YYYY-MM-DD, in the service's time zone) or an ISO time "
        "(without an offset: in the service's time zone); alerts count complaints by this time",
    )
    channel: str | None = Field(None, description=f"how it reached the cell: {', '.join(CHANNELS)}")
    reporter_phone: str | None = Field(None, description="the reporter's phone number (answers show it masked)")
    extra: dict[str, str] | None = Field(
        None, max_length=2 * MAX_EXTRA_FIELDS, description="any other fields, kept whole with the complaint"
    )  # empty values are dropped before the limit of MAX_EXTRA_FIELDS is checked

    @field_validator("school")
    @classmethod
    def _school(cls, v: str | None) -> str | None:
        return clean_name(v, "the school name")

    @field_validator("district", "block")
    @classmethod
    def _names(cls, v: str | None, info: Any) -> str | None:
        return clean_name(v, info.field_name)

    _udise = field_validator("udise")(check_udise)
    _channel = field_validator("channel")(check_channel)
    _phone = field_validator("reporter_phone")(check_phone)

    @field_validator("incident_date")
    @classmethod
    def _incident(cls, v: str | None) -> str | None:
        check_incident(v)  # the form; the zone is the service's, applied in ``record``
        return v

    @field_validator("extra")
    @classmethod
    def _extra(cls, v: dict[str, str] | None) -> dict[str, str]:
        return check_extra(v)

    def record(self, zone: tzinfo) -> Record:
        """The checked record, the incident date read in ``zone``."""
        return Record(
            self.school, self.udise, self.district, self.block, check_incident(self.incident_date, zone),
            self.channel, self.reporter_phone, dict(self.extra or {}),
        )  # fmt: skip


class RecordOut(BaseModel):
    """The record fields of a complaint in an answer (times in UTC, ``...Z``; the phone masked unless asked)."""

    udise: str | None = None
    district: str | None = None
    block: str | None = None
    incident_at: str | None = Field(None, description="when it happened, UTC (null: not given)")
    channel: str | None = None
    reporter_phone: str | None = Field(None, description="masked (******3210) unless full_phone=true")
    extra: dict[str, str] = Field(default_factory=dict)


class CorrectionOut(RecordOut):
    """What an officer added to a saved complaint: true labels, assignee, notes; and how sure the model was."""

    corrected_labels: list[str] | None = Field(None, description="the true labels an officer set (null: none)")
    corrected_by: str | None = None
    corrected_at: str | None = None
    assignee: str | None = None
    notes: str | None = None
    certainty: float | None = Field(
        None, description="distance of the least certain label's probability from its threshold (0: a coin toss)"
    )


def record_out(record: Record, full_phone: bool = False) -> dict[str, Any]:
    """A request's record as an answer shows it."""
    return {
        "school": record.school,
        "udise": record.udise,
        "district": record.district,
        "block": record.block,
        "incident_at": to_stored_time(record.incident_at) if record.incident_at else None,
        "channel": record.channel,
        "reporter_phone": record.reporter_phone if full_phone else mask_phone(record.reporter_phone),
        "extra": record.extra,
    }


def shown(complaint: dict[str, Any], full_phone: bool) -> dict[str, Any]:
    """A stored complaint as an answer shows it: the phone masked unless ``full_phone``."""
    if full_phone or not complaint.get("reporter_phone"):
        return complaint
    return {**complaint, "reporter_phone": mask_phone(complaint["reporter_phone"])}
