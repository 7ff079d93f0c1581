"""What a list of the log is filtered by, read from the query: the ``LogFilters`` dependency of the log's routes
(labels, urgency, status, places, channel, dates, ...), each bad value a 422 naming its parameter; dates and times
read in UTC (``query_moment``)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from typing import Annotated, Literal

from fastapi import Depends, Query

from ..log import Filters
from ..records import CHANNELS
from ..text import check_text
from .auth import Who
from .errors import ApiError
from .schemas import Status, Urgency
from .service import Svc

#: the moments a 'from'/'to' filter may name, in UTC (a 'to' day is read as the start of the next day), a day
#: inside the calendar's ends so that the range arithmetic around them cannot overflow
EARLIEST = datetime(1, 1, 2, tzinfo=timezone.utc)
LATEST = datetime(9999, 12, 31, tzinfo=timezone.utc)
Channel = Literal[CHANNELS]


def query_moment(value: str | None, name: str, end: bool) -> datetime | None:
    """A query date (YYYY-MM-DD, a whole UTC day; ``end`` takes the day after) or ISO time, in UTC."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            moment = datetime.combine(day + timedelta(days=1 if end else 0), datetime.min.time(), timezone.utc)
        else:
            moment = datetime.fromisoformat(value)
            moment = moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else moment.astimezone(timezone.utc)
    except ValueError:
        raise ApiError(
            422, f"query parameter '{name}' must be a date (YYYY-MM-DD) or an ISO time, not {value!r}"
        ) from None
    except OverflowError:  # the day after 9999-12-31, or a time before 0001-01-01 once in UTC
        moment = None
    if moment is None or not EARLIEST <= moment <= LATEST:
        raise ApiError(
            422,
            f"query parameter '{name}': {value!r} falls outside the dates this service handles "
            f"({EARLIEST.date()} to {LATEST.date() - timedelta(days=1)}, UTC): "
            f"choose a date within them or leave '{name}' out",
        )
    return moment


def log_filters(
    svc: Svc,
    who: Who,
    label: Annotated[str | None, Query(description="complaints carrying this label")] = None,
    urgency: Annotated[Urgency | None, Query()] = None,
    school: Annotated[str | None, Query(description="part of the school's name, any case")] = None,
    status: Annotated[Status | None, Query()] = None,
    needs_review: Annotated[
        bool | None, Query(description="only complaints flagged (true) or not flagged (false) for review")
    ] = None,
    since: Annotated[str | None, Query(alias="from", description="from this day (YYYY-MM-DD, UTC) or time")] = None,
    until: Annotated[
        str | None, Query(alias="to", description="up to and including this day, or before this time")
    ] = None,
    dates: Annotated[
        Literal["arrival", "incident"],
        Query(description="what from/to read: the arrival time, or the incident time (else the arrival)"),
    ] = "arrival",
    district: Annotated[str | None, Query(description="part of the district's name, any case")] = None,
    block: Annotated[str | None, Query(description="part of the block's name, any case")] = None,
    unassigned: Annotated[
        bool | None, Query(description="only complaints naming no district (true) or only those naming one (false)")
    ] = None,
    channel: Annotated[Channel | None, Query()] = None,
    udise: Annotated[str | None, Query(description="the school's UDISE code")] = None,
    corrected: Annotated[
        bool | None, Query(description="only complaints whose labels an officer corrected (true) or not (false)")
    ] = None,
    assignee: Annotated[str | None, Query(description="complaints assigned to this person, any case")] = None,
    one_per_incident: Annotated[
        bool, Query(description="of the complaints of one incident, only the one it is shown by (its lead)")
    ] = False,
) -> Filters:
    label, school = (label or "").strip() or None, (school or "").strip() or None
    named = {"label": label, "school": school, "district": district, "block": block, "udise": udise,
             "assignee": assignee}  # fmt: skip
    for name, value in named.items():  # a NUL or a lone surrogate reaches no database (PostgreSQL refuses a NUL)
        if value is not None and value.strip():
            try:
                check_text(value)
            except ValueError as e:
                raise ApiError(422, f"query parameter {name!r}: {str(e).replace('the text', 'it', 1)}") from None
    if label is not None:
        known = set(svc.predictor.labels) | svc.store.labels()
        if label not in known:
            raise ApiError(
                422, f"query parameter 'label': unknown label {label!r}; expected one of {', '.join(sorted(known))}"
            )
    filters = Filters(
        label, urgency, school, status, needs_review,
        query_moment(since, "from", False), query_moment(until, "to", True),
        *((v or "").strip() or None for v in (district, block, channel, udise)), corrected,
        (assignee or "").strip() or None, who.scope, unassigned, dates, one_per_incident,
    )  # fmt: skip
    if filters.since and filters.until and filters.since >= filters.until:
        raise ApiError(422, f"the date range is empty: 'from' ({since}) must come before 'to' ({until})")
    return filters


LogFilters = Annotated[Filters, Depends(log_filters)]
