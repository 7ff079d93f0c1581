"""Incidents as the log keeps them (schema version 10): the complaints of one event at one place.

Which complaint joins which incident is decided by ``mealwatch.search.grouping`` (the log knows no model): the
log hands it the open incidents of the complaint's place within the rule's window, with their complaints'
stored vectors, and writes what it chose, in one transaction per batch, each place under its own lock (servers
sharing one PostgreSQL log take turns per place). An incident keeps its size, first and last time (incident
time, else arrival), worst urgency and lead complaint (the most urgent, then the first: the one the queue shows)
up to date with every change; its labels (with counts) are read from its complaints. Officers merge, split,
close and reopen incidents; a complaint once placed is never moved again by the rule.

An incident never spans districts: it keeps the district of its complaints, a complaint moved to another district
leaves its incident for one of its own (``leave_incident``), and incidents of two districts are never merged.
What an account reads of an incident is filtered by its districts, its complaints too.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ..records import fold
from .shapes import Page, Scope, Store, Tx, from_stored_time, in_scope, to_stored_time
from .vector_store import read_vectors

INCIDENT_STATUSES = ("open", "closed")
INCIDENT_COLUMNS = (
    "id, place, district_key, school, udise, district, block, status, first_at, last_at, size, worst_rank,"
    " lead_id, created_at, updated_at, closed_at, closed_by"
)
URGENCIES = ("high", "medium", "low")
#: the incident queue: open first, then the most urgent, then the most recent
INCIDENT_ORDER = " ORDER BY status DESC, worst_rank, last_at DESC, id DESC"


class IncidentError(ValueError):
    """A merge, split or status change that cannot be made; the message says why."""


@dataclass(frozen=True)
class OpenIncident:
    """An open incident a complaint may join: its id, last time (stored), and its complaints' vectors."""

    incident_id: int
    last_at: str
    vectors: list[tuple[bytes, float]]


@dataclass(frozen=True)
class Placing:
    """A complaint to place: its id and its place under the grouping rule (None: an incident of its own)."""

    complaint_id: int
    place: str | None


#: chooses for a complaint (its vector, its time) among open incidents: the id it joins, or None
Chooser = Callable[[tuple[bytes, float] | None, str, list[OpenIncident]], int | None]


class IncidentStore(Store):
    """Incidents, each call one transaction (mixed into ``ComplaintLog``)."""

    def place_complaints(
        self, placings: Sequence[Placing], model: str, window: timedelta, choose: Chooser
    ) -> dict[int, int]:
        """Put each complaint not yet in an incident into the open incident of its place that ``choose`` picks
        (among those whose last complaint is within ``window`` of it), else into a new one; complaint id ->
        incident id for those placed now."""
        placed: dict[int, int] = {}
        now = self.clock()
        with self._write() as tx:
            for p in sorted(placings, key=lambda p: (p.place or "", p.complaint_id)):  # locks in one order
                if p.place is not None:
                    tx.lock(f"incident|{p.place}")
                row = tx.one("SELECT id, incident_id, event_at FROM complaints WHERE id = ?", (p.complaint_id,))
                if row is None or row["incident_id"] is not None:
                    continue
                at = row["event_at"]
                chosen = None
                if p.place is not None:
                    candidates = open_incidents(tx, p.place, at, window, model)
                    if candidates:
                        mine = read_vectors(tx, model, [p.complaint_id]).get(p.complaint_id)
                        chosen = choose(mine, at, candidates)
                placed[p.complaint_id] = add_to_incident(tx, p.complaint_id, chosen, p.place, now)
        return placed

    def unplaced(self, complaint_ids: Sequence[int]) -> list[int]:
        """Those of ``complaint_ids`` not yet in an incident."""
        wanted = sorted({int(i) for i in complaint_ids})
        out: list[int] = []
        with self._read() as tx:
            for start in range(0, len(wanted), 500):
                chunk = wanted[start : start + 500]
                out += [int(r["id"]) for r in tx.all(
                    f"SELECT id FROM complaints WHERE incident_id IS NULL AND id IN ({', '.join('?' * len(chunk))})",
                    chunk)]  # fmt: skip
        return out

    def list_incidents(
        self, status: str | None = None, limit: int | None = 50, offset: int = 0, scope: Scope = None,
        min_size: int = 1,
    ) -> Page:  # fmt: skip
        """Incidents (of ``scope``'s districts), open first, then the most urgent, then the most recent; each with
        its complaint ids and label counts. ``min_size`` 2 leaves out complaints that are an incident alone."""
        if status is not None and status not in INCIDENT_STATUSES:
            raise IncidentError(f"unknown incident status {status!r}: expected one of {', '.join(INCIDENT_STATUSES)}")
        clauses, params = ["size >= ?"], [int(min_size)]
        if status is not None:
            clauses.append("status = ?")
            params.append(status)
        if scope is not None:
            clauses.append(f"district_key IN ({', '.join('?' * len(scope))})" if scope else "1 = 0")
            params.extend(scope)
        where = " WHERE " + " AND ".join(clauses)
        page = "" if limit is None else f" LIMIT {int(limit)} OFFSET {int(offset)}"
        with self._read() as tx:
            total = int(tx.one(f"SELECT count(*) AS n FROM incidents{where}", params)["n"])
            rows = tx.all(f"SELECT {INCIDENT_COLUMNS} FROM incidents{where}{INCIDENT_ORDER}{page}", params)
            items = [describe(tx, r, scope) for r in rows]
        return Page(total, items)

    def get_incident(self, incident_id: int, scope: Scope = None) -> dict[str, Any] | None:
        """One incident with its complaint ids and label counts, or None (none such in ``scope``)."""
        with self._read() as tx:
            return scoped(tx, incident_id, scope)

    def merge_incidents(self, incident_ids: Sequence[int], by: str | None, scope: Scope = None) -> dict[str, Any]:
        """Move every complaint of ``incident_ids`` into the first of them (the others are removed); the merged
        incident. IncidentError when one is missing (in ``scope``), fewer than two are named, or they are of
        different districts (an incident never spans districts)."""
        ids = list(dict.fromkeys(int(i) for i in incident_ids))
        now = self.clock()
        with self._write() as tx:
            found = []
            for i in ids:
                one = scoped(tx, i, scope)
                if one is None:
                    raise IncidentError(f"no incident with id {i}")
                found.append(one)
            if len(ids) < 2:
                raise IncidentError("name at least two different incidents to merge")
            districts = {fold(f["district"]) if f["district"] else None for f in found}
            if len(districts) > 1:
                names = ", ".join(f"{f['id']} ({f['district'] or 'no district'})" for f in found)
                raise IncidentError(f"incidents {names} are of different districts: an incident keeps to one "
                                    "district, so only incidents of the same district merge")  # fmt: skip
            target = ids[0]
            for i in ids[1:]:
                tx.run("UPDATE complaints SET incident_id = ? WHERE incident_id = ?", (target, i))
                tx.run("DELETE FROM incidents WHERE id = ?", (i,))
            tx.run("UPDATE incidents SET status = 'open', closed_at = NULL, closed_by = NULL WHERE id = ?", (target,))
            refresh(tx, target, now)
            return scoped(tx, target, None)

    def split_incident(
        self, incident_id: int, complaint_ids: Sequence[int], by: str | None, scope: Scope = None
    ) -> dict[str, Any]:
        """Move ``complaint_ids`` (some, not all, of the incident's complaints) into a new incident of the same
        place; the new incident. IncidentError otherwise."""
        moving = sorted({int(i) for i in complaint_ids})
        now = self.clock()
        with self._write() as tx:
            found = scoped(tx, incident_id, scope)
            if found is None:
                raise IncidentError(f"no incident with id {incident_id}")
            strangers = sorted(set(moving) - set(found["complaint_ids"]))
            if strangers:
                raise IncidentError(f"complaint {strangers[0]} is not in incident {incident_id}")
            if not moving or len(moving) == len(found["complaint_ids"]):
                raise IncidentError("name some of the incident's complaints to split off, not none or all")
            new_id = new_incident(tx, moving[0], found["place"], now)
            for i in moving[1:]:
                tx.run("UPDATE complaints SET incident_id = ? WHERE id = ?", (new_id, i))
            refresh(tx, new_id, now)
            refresh(tx, incident_id, now)
            return scoped(tx, new_id, None)

    def set_incident_status(
        self, incident_id: int, status: str, by: str | None, scope: Scope = None
    ) -> dict[str, Any] | None:
        """Close an incident (no new complaint joins it) or open it again; None when there is none (in scope)."""
        if status not in INCIDENT_STATUSES:
            raise IncidentError(f"unknown incident status {status!r}: expected one of {', '.join(INCIDENT_STATUSES)}")
        now = self.clock()
        with self._write() as tx:
            if scoped(tx, incident_id, scope) is None:
                return None
            closed = (now, by) if status == "closed" else (None, None)
            tx.run("UPDATE incidents SET status = ?, closed_at = ?, closed_by = ?, updated_at = ? WHERE id = ?",
                   (status, *closed, now, incident_id))  # fmt: skip
            return scoped(tx, incident_id, None)


def open_incidents(tx: Tx, place: str, at: str, window: timedelta, model: str) -> list[OpenIncident]:
    """The open incidents of ``place`` whose complaints' times come within ``window`` of ``at``."""
    moment = from_stored_time(at)
    since, until = to_stored_time(moment - window), to_stored_time(moment + window)
    rows = tx.all(
        "SELECT id, last_at FROM incidents WHERE place = ? AND status = 'open' AND last_at >= ? AND first_at <= ?",
        (place, since, until),
    )
    out = []
    for r in rows:
        members = [int(m["id"]) for m in tx.all("SELECT id FROM complaints WHERE incident_id = ?", (r["id"],))]
        vectors = read_vectors(tx, model, members)
        out.append(OpenIncident(int(r["id"]), r["last_at"], [vectors[m] for m in members if m in vectors]))
    return out


def new_incident(tx: Tx, complaint_id: int, place: str | None, now: str) -> int:
    """A new open incident holding one complaint (its place ``place``, or an incident of its own)."""
    c = tx.one("SELECT school, udise, district, block, district_key, event_at, urgency_rank FROM complaints"
               " WHERE id = ?", (complaint_id,))  # fmt: skip
    row = tx.one(
        "INSERT INTO incidents (place, district_key, school, udise, district, block, status, first_at, last_at, size,"
        " worst_rank, lead_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'open', ?, ?, 1, ?, ?, ?, ?)"
        " RETURNING id",
        (place or f"complaint:{complaint_id}", c["district_key"], c["school"], c["udise"], c["district"], c["block"],
         c["event_at"], c["event_at"], c["urgency_rank"], complaint_id, now, now),
    )  # fmt: skip
    incident_id = int(row["id"])
    tx.run("UPDATE complaints SET incident_id = ? WHERE id = ?", (incident_id, complaint_id))
    return incident_id


def add_to_incident(tx: Tx, complaint_id: int, incident_id: int | None, place: str | None, now: str) -> int:
    """Put a complaint into ``incident_id`` (None: a new incident); the incident's id."""
    if incident_id is None:
        return new_incident(tx, complaint_id, place, now)
    tx.run("UPDATE complaints SET incident_id = ? WHERE id = ?", (incident_id, complaint_id))
    refresh(tx, incident_id, now)
    return incident_id


def refresh(tx: Tx, incident_id: int, now: str) -> None:
    """Recompute an incident's size, times, worst urgency and lead from its complaints."""
    agg = tx.one(
        "SELECT count(*) AS n, min(event_at) AS first_at, max(event_at) AS last_at, min(urgency_rank) AS worst"
        " FROM complaints WHERE incident_id = ?",
        (incident_id,),
    )
    if not agg["n"]:
        tx.run("DELETE FROM incidents WHERE id = ?", (incident_id,))
        return
    lead = tx.one("SELECT id FROM complaints WHERE incident_id = ? ORDER BY urgency_rank, id LIMIT 1", (incident_id,))
    tx.run(
        "UPDATE incidents SET size = ?, first_at = ?, last_at = ?, worst_rank = ?, lead_id = ?, updated_at = ?"
        " WHERE id = ?",
        (int(agg["n"]), agg["first_at"], agg["last_at"], int(agg["worst"]), int(lead["id"]), now, incident_id),
    )


def leave_incident(tx: Tx, complaint_id: int, now: str) -> None:
    """After a complaint moved to another district: it leaves its incident for a new one of its own (its old
    incident, without it, keeps its district; one left empty is removed)."""
    row = tx.one("SELECT incident_id FROM complaints WHERE id = ?", (complaint_id,))
    if row is None or row["incident_id"] is None:
        return
    new_incident(tx, complaint_id, None, now)
    refresh(tx, int(row["incident_id"]), now)


def refresh_incident_of(tx: Tx, complaint_id: int, now: str) -> None:
    """After a complaint's labels or urgency changed: its incident's worst urgency and lead again."""
    row = tx.one("SELECT incident_id FROM complaints WHERE id = ?", (complaint_id,))
    if row is not None and row["incident_id"] is not None:
        refresh(tx, int(row["incident_id"]), now)


def scoped(tx: Tx, incident_id: int, scope: Scope) -> dict[str, Any] | None:
    if not -(2**63) <= incident_id < 2**63:
        return None
    row = tx.one(f"SELECT {INCIDENT_COLUMNS} FROM incidents WHERE id = ?", (incident_id,))
    if row is None or not in_scope(row["district"], scope):
        return None
    return describe(tx, row, scope)


def describe(tx: Tx, row: dict[str, Any], scope: Scope = None) -> dict[str, Any]:
    """An incident as the service shows it: its row, its complaints' ids, labels with counts, worst urgency; of its
    complaints only those of ``scope``'s districts."""
    d = dict(row)
    members = tx.all(
        "SELECT c.id, c.district, c.labels, c.corrected_labels FROM complaints c WHERE c.incident_id = ? ORDER BY c.id",
        (d["id"],),
    )
    members = [m for m in members if in_scope(m["district"], scope)]
    counts: Counter[str] = Counter()
    for m in members:
        counts.update(json.loads(m["corrected_labels"] if m["corrected_labels"] is not None else m["labels"]))
    for key in ("id", "size", "lead_id"):
        d[key] = int(d[key])
    d["worst_urgency"] = URGENCIES[int(d.pop("worst_rank"))]
    d["complaint_ids"] = [int(m["id"]) for m in members]
    d["size"] = min(d["size"], len(members))
    d["labels"] = dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    d.pop("district_key")
    return d


def incidents_of(tx: Tx, complaint_ids: Sequence[int]) -> list[int]:
    """The incidents holding any of ``complaint_ids``, in id order."""
    wanted = sorted({int(i) for i in complaint_ids})
    found: set[int] = set()
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        found |= {int(r["incident_id"]) for r in tx.all(
            f"SELECT DISTINCT incident_id FROM complaints WHERE incident_id IS NOT NULL AND id IN "
            f"({', '.join('?' * len(chunk))})", chunk)}  # fmt: skip
    return sorted(found)


__all__ = ["IncidentError", "IncidentStore", "OpenIncident", "Placing"]
