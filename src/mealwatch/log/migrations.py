"""The complaint log's schema, versioned, and its migrations: the same version numbers on every backend.

  1: complaints (labels and probabilities as JSON text) and status_changes
  2: complaint_labels, one row per (complaint, label), for filtering and daily counts
  3: review reasons (JSON list) and needs_review on complaints; flagged complaints head the queue
  4: the complaint's record (UDISE code, district, block, incident time, channel, reporter phone, extra
     fields as JSON), search and grouping keys, certainty; corrections beside the predicted labels, assignee
     and notes; complaint_changes (every change of status, labels, assignee, notes: what, who, when; the
     version-1 status_changes rows move there); alerts
  5: saved_requests: the answer to each saving request that carried an Idempotency-Key, replayed for a retry
  6: accounts: users (argon2id password hashes, a role, districts), sessions (server-side, by the hash of their
     cookie), api_tokens (hashed, a role and districts, revocable), audit_log (who did what, when, from where)
  7: a log of millions: indexes for every list order (with ``id`` as the last key, for keyset paging), the
     date, school, district, block and UDISE filters; ``school_keys`` (each school's search key once, so a
     partial name is looked up among schools, not complaints); ``complaint_counts`` (complaints per UTC day,
     label, status, urgency, review flag and correction, kept up to date in the transaction of every save
     and change), which answers list totals and daily counts without counting rows
  8: the review order's index also carries ``certainty`` itself (after its ``COALESCE``), so that PostgreSQL
     reads the complaints a page deep in the review queue skips from the index alone (an index-only scan needs
     every column the query names, and an index on an expression holds only the expression); the block's index
     also holds the arrival time, so a block's complaints of some days are one range of it (a filtered export)
  9: trust (issue 27): ``audit_districts`` (the districts each audit entry concerns, so a district's admin reads
     only its own entries); ``alert_checks`` (complaints saved or corrected whose alert check has not run yet,
     written in the save's transaction and worked off after the answer); a school's group by its UDISE code
     lies within its district (``records.school_group``), for complaints and their alerts alike
 10: the triage queue: ``severity`` (``mealwatch.severity``: a death or a hospital admission, the urgency, the
     children named), filled in for the complaints saved before it, with an index for the triage order (and one
     per district); an index on ``event_at`` (the incident time, else the arrival) for the incident-date filter;
     ``place_keys`` (each district's and block's search key once, so a partial name is looked up among places)
 11: ``user_preferences``: the language each user chose for the page (by the user's name as compared)
 12: each complaint's ``language`` (``mealwatch.languages.detect_language``: ISO 639-1, ``und`` when it cannot be
     told), filled in for the complaints saved before it
 13: search and incidents (issue 25): ``complaint_vectors`` (each complaint's sentence vector as int8 with its
     scale and the vectors' version; ``seq``, taken from ``vector_writes`` by each write in turn, orders the
     writes so that every server's index catches up with what the others wrote); ``incidents`` (the complaints of
     one event at one place: status, first and last time, size, worst urgency, lead complaint) and each
     complaint's ``incident_id``; ``signals`` (what a complaint says in any language that an alert rule may count,
     such as a death or a hospital admission: ``search.signals``); each vector's ``concepts`` (``search.concepts``)

 14: severity levels (issue 33): the triage key's first part is the level of care a complaint reports (none,
     unwell, clinic, hospital, death: ``mealwatch.severity``), read by the model's severity head for new complaints;
     the complaints saved before it get theirs from the rule for models without one
 15: each API token's ``owner_id``: the account that created it through the service (NULL: made on the command
     line), so that a token dies with its owner's account; filled in from the audit log for the tokens made before

SQLite keeps the version in ``PRAGMA user_version``; PostgreSQL in a ``schema_version`` table (one
row per step applied, with its time). ``migrate_*`` applies the missing steps in order, one
transaction each. A database written by a newer mealwatch, or one holding other tables but no
complaint-log version, is refused rather than guessed at. On PostgreSQL the whole migration runs
under an advisory lock, so that servers starting together on an empty database take turns.

Both schemas keep times as text in the ``utc_now()`` format (they sort as text; PostgreSQL's
columns use the "C" collation so that they sort byte by byte, as in SQLite) and JSON as text,
so that both backends give back exactly what was saved.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from ..records import fold, school_group
from ..languages import detect_language
from ..severity import keyword_level, triage_key
from .shapes import StoreError, utc_now
from .counts import RECOUNT

SCHEMA_VERSION = 15

#: step 7 on both backends ({C}: PostgreSQL's byte-order collation, {BOOL}: its boolean type)
STEP_7 = """
    DROP INDEX complaints_queue;
    DROP INDEX complaints_review;
    CREATE INDEX complaints_queue_page ON complaints (needs_review DESC, urgency_rank, created_at DESC, id DESC);
    CREATE INDEX complaints_review_page ON complaints
        (needs_review DESC, (COALESCE(certainty, 2.0)), created_at DESC, id DESC);
    CREATE INDEX complaints_created ON complaints (created_at, id);
    CREATE INDEX complaints_school_key ON complaints (school_key);
    CREATE INDEX complaints_district_queue ON complaints
        (district_key, needs_review DESC, urgency_rank, created_at DESC, id DESC);
    CREATE INDEX complaints_corrected_queue ON complaints (needs_review DESC, urgency_rank, created_at DESC, id DESC)
        WHERE corrected_labels IS NOT NULL;
    CREATE INDEX complaints_block_key ON complaints (block_key);
    CREATE INDEX complaints_udise ON complaints (udise);
    CREATE TABLE school_keys (
        school_key TEXT{C} PRIMARY KEY    -- records.fold(school), each once
    );
    INSERT INTO school_keys (school_key) SELECT DISTINCT school_key FROM complaints WHERE school_key IS NOT NULL;
    CREATE TABLE complaint_counts (
        day TEXT{C} NOT NULL,             -- created_at's UTC day, YYYY-MM-DD
        label TEXT{C} NOT NULL,           -- '': the complaints themselves, else those carrying the label
        status TEXT NOT NULL,
        urgency TEXT NOT NULL,
        needs_review {BOOL} NOT NULL,
        corrected {BOOL} NOT NULL,        -- corrected_labels IS NOT NULL
        n BIGINT NOT NULL,
        PRIMARY KEY (day, label, status, urgency, needs_review, corrected)
    );
    """ + ";".join(RECOUNT)

#: step 8 on both backends
STEP_8 = """
    DROP INDEX complaints_review_page;
    CREATE INDEX complaints_review_page ON complaints
        (needs_review DESC, (COALESCE(certainty, 2.0)), created_at DESC, id DESC, certainty);
    DROP INDEX complaints_block_key;
    CREATE INDEX complaints_block_key ON complaints (block_key, created_at);
    """

#: step 9 on both backends ({C}: PostgreSQL's byte-order collation, {INT}: its 64-bit integer, {ID}: a row id)
STEP_9 = """
    CREATE TABLE audit_districts (
        audit_id {INT} NOT NULL REFERENCES audit_log (id),
        district_key TEXT{C} NOT NULL,    -- records.fold(district) (no row: the entry concerns every district)
        PRIMARY KEY (audit_id, district_key)
    );
    CREATE TABLE alert_checks (
        id {ID},
        complaint_id {INT} NOT NULL REFERENCES complaints (id),  -- one row per save or correction
        queued_at TEXT{C} NOT NULL
    );
    UPDATE complaints SET school_group = 'udise:' || COALESCE(district_key, '') || '|' || udise WHERE udise IS NOT NULL;
    """

#: step 10 on both backends
STEP_10 = """
    ALTER TABLE complaints ADD COLUMN severity INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX complaints_triage_page ON complaints (severity DESC, needs_review DESC, created_at DESC, id DESC);
    CREATE INDEX complaints_district_triage ON complaints
        (district_key, severity DESC, needs_review DESC, created_at DESC, id DESC);
    CREATE INDEX complaints_event ON complaints (event_at, id);
    CREATE TABLE place_keys (
        kind TEXT NOT NULL,            -- 'district' or 'block'
        place_key TEXT{C} NOT NULL,    -- records.fold(name), each once
        PRIMARY KEY (kind, place_key)
    );
    INSERT INTO place_keys (kind, place_key)
        SELECT DISTINCT 'district', district_key FROM complaints WHERE district_key IS NOT NULL;
    INSERT INTO place_keys (kind, place_key)
        SELECT DISTINCT 'block', block_key FROM complaints WHERE block_key IS NOT NULL;
    """

#: step 11 on both backends
STEP_11 = """
    CREATE TABLE user_preferences (
        name_key TEXT{C} PRIMARY KEY,   -- account_store.name_key(user name)
        language TEXT NOT NULL,         -- 'en' or 'hi'
        updated_at TEXT{C} NOT NULL
    );
    """

#: step 12 on both backends
STEP_12 = """
    ALTER TABLE complaints ADD COLUMN language TEXT;
    """

#: severity levels: no new column (the triage key holds the level), every key computed again after it
STEP_LEVELS = "-- the triage key's first part becomes the level of care (mealwatch.severity)"

#: step 15 on both backends ({INT}: PostgreSQL's 64-bit integer)
STEP_15 = """
    ALTER TABLE api_tokens ADD COLUMN owner_id {INT} REFERENCES users (id);
    UPDATE api_tokens SET owner_id = (SELECT u.id FROM audit_log a JOIN users u ON u.name = a.actor
        WHERE a.action = 'token_create' AND a.target = 'token ' || api_tokens.name ORDER BY a.id DESC LIMIT 1);
    """

#: the search and incident step on both backends ({C}: PostgreSQL's byte-order collation, {INT}: its 64-bit
#: integer, {ID}: a row id, {BYTES}: a byte string, {REAL}: a 4-byte float)
STEP_SEARCH = """
    CREATE TABLE vector_writes (
        n {INT} NOT NULL                  -- the last seq handed out (one row)
    );
    INSERT INTO vector_writes (n) VALUES (0);
    CREATE TABLE complaint_vectors (
        complaint_id {INT} PRIMARY KEY REFERENCES complaints (id),
        model TEXT{C} NOT NULL,           -- the vectors' version (search.vectors.SentenceVectors.version)
        vector {BYTES} NOT NULL,          -- int8 components
        scale {REAL} NOT NULL,            -- vector = components * scale
        concepts {INT} NOT NULL,          -- what the text is about, as bits (search.concepts)
        seq {INT} NOT NULL                -- order of writing (vector_writes)
    );
    CREATE INDEX complaint_vectors_seq ON complaint_vectors (seq);
    CREATE TABLE incidents (
        id {ID},
        place TEXT{C} NOT NULL,           -- the grouping rule's place: records.school_group or block_group
        district_key TEXT{C},             -- records.fold(district)
        school TEXT, udise TEXT, district TEXT, block TEXT,
        status TEXT NOT NULL,             -- open, closed
        first_at TEXT{C} NOT NULL,        -- incident (else arrival) time of its first and last complaint
        last_at TEXT{C} NOT NULL,
        size {INT} NOT NULL,
        worst_rank {INT} NOT NULL,        -- the most urgent of its complaints (labels.urgency_rank)
        lead_id {INT} NOT NULL,           -- the complaint the queue shows for it
        created_at TEXT{C} NOT NULL,
        updated_at TEXT{C} NOT NULL,
        closed_at TEXT{C},
        closed_by TEXT
    );
    CREATE INDEX incidents_place ON incidents (place, status, last_at);
    CREATE INDEX incidents_queue ON incidents (status, worst_rank, last_at DESC, id DESC);
    ALTER TABLE complaints ADD COLUMN incident_id {INT} REFERENCES incidents (id);
    CREATE INDEX complaints_incident ON complaints (incident_id);
    ALTER TABLE complaints ADD COLUMN signals TEXT;  -- JSON list: search.signals the complaint carries
    """

SQLITE_STEPS: dict[int, str] = {
    1: """
    CREATE TABLE complaints (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        text TEXT NOT NULL,
        school TEXT,
        labels TEXT NOT NULL,          -- JSON list, in the model's label order
        probabilities TEXT NOT NULL,   -- JSON object label -> probability
        urgency TEXT NOT NULL,
        urgency_rank INTEGER NOT NULL, -- 0 high, 1 medium, 2 low
        model_version TEXT NOT NULL,
        created_at TEXT NOT NULL,      -- UTC, ISO 8601 with microseconds and Z
        status TEXT NOT NULL DEFAULT 'new',
        status_changed_at TEXT NOT NULL
    );
    CREATE INDEX complaints_triage ON complaints (urgency_rank, created_at DESC);
    CREATE TABLE status_changes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        complaint_id INTEGER NOT NULL REFERENCES complaints (id),
        old_status TEXT NOT NULL,
        new_status TEXT NOT NULL,
        changed_at TEXT NOT NULL
    );
    """,
    2: """
    CREATE TABLE complaint_labels (
        complaint_id INTEGER NOT NULL REFERENCES complaints (id),
        label TEXT NOT NULL,
        PRIMARY KEY (complaint_id, label)
    );
    CREATE INDEX complaint_labels_label ON complaint_labels (label);
    INSERT INTO complaint_labels (complaint_id, label)
        SELECT complaints.id, json_each.value FROM complaints, json_each(complaints.labels);
    """,
    3: """
    ALTER TABLE complaints ADD COLUMN review TEXT NOT NULL DEFAULT '[]';  -- JSON list of reasons
    ALTER TABLE complaints ADD COLUMN needs_review INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX complaints_queue ON complaints (needs_review DESC, urgency_rank, created_at DESC);
    """,
    4: """
    ALTER TABLE complaints ADD COLUMN udise TEXT;
    ALTER TABLE complaints ADD COLUMN district TEXT;
    ALTER TABLE complaints ADD COLUMN block TEXT;
    ALTER TABLE complaints ADD COLUMN incident_at TEXT;  -- UTC, as created_at, NULL: not given
    ALTER TABLE complaints ADD COLUMN channel TEXT;
    ALTER TABLE complaints ADD COLUMN reporter_phone TEXT;
    ALTER TABLE complaints ADD COLUMN extra TEXT NOT NULL DEFAULT '{}';  -- JSON object of fields kept whole
    ALTER TABLE complaints ADD COLUMN certainty REAL;
    ALTER TABLE complaints ADD COLUMN corrected_labels TEXT;  -- JSON list, NULL: not corrected
    ALTER TABLE complaints ADD COLUMN corrected_by TEXT;
    ALTER TABLE complaints ADD COLUMN corrected_at TEXT;
    ALTER TABLE complaints ADD COLUMN assignee TEXT;
    ALTER TABLE complaints ADD COLUMN notes TEXT;
    ALTER TABLE complaints ADD COLUMN school_key TEXT;  -- records.fold(school): search, any case
    ALTER TABLE complaints ADD COLUMN district_key TEXT;
    ALTER TABLE complaints ADD COLUMN block_key TEXT;
    ALTER TABLE complaints ADD COLUMN school_group TEXT;  -- records.school_group: one school
    ALTER TABLE complaints ADD COLUMN block_group TEXT;  -- records.block_group: one block
    ALTER TABLE complaints ADD COLUMN event_at TEXT;  -- incident_at, else created_at (alerts)
    UPDATE complaints SET event_at = created_at;
    CREATE INDEX complaints_school_group ON complaints (school_group, event_at);
    CREATE INDEX complaints_block_group ON complaints (block_group, event_at);
    CREATE INDEX complaints_review ON complaints (needs_review DESC, certainty, created_at DESC);
    CREATE TABLE complaint_changes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        complaint_id INTEGER NOT NULL REFERENCES complaints (id),
        field TEXT NOT NULL,           -- status, labels, assignee or notes
        old_value TEXT,                -- labels as a JSON list
        new_value TEXT,
        changed_by TEXT,               -- who, as the request named them (no accounts yet)
        changed_at TEXT NOT NULL
    );
    CREATE INDEX complaint_changes_complaint ON complaint_changes (complaint_id, id);
    INSERT INTO complaint_changes (complaint_id, field, old_value, new_value, changed_by, changed_at)
        SELECT complaint_id, 'status', old_status, new_status, NULL, changed_at FROM status_changes ORDER BY id;
    DROP TABLE status_changes;
    CREATE TABLE alerts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        rule TEXT NOT NULL,
        summary TEXT NOT NULL,
        group_key TEXT NOT NULL,
        school TEXT,
        udise TEXT,
        block TEXT,
        district TEXT,
        complaint_ids TEXT NOT NULL,   -- JSON list of ids, ascending
        first_at TEXT NOT NULL,     -- the first and last complaint's incident (else arrival) time
        last_at TEXT NOT NULL,
        status TEXT NOT NULL,          -- open or acknowledged
        raised_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        acknowledged_at TEXT,
        acknowledged_by TEXT
    );
    CREATE INDEX alerts_open ON alerts (status, rule, group_key);
    """,
    5: """
    CREATE TABLE saved_requests (
        key TEXT PRIMARY KEY,          -- the client's Idempotency-Key
        fingerprint TEXT NOT NULL,     -- SHA-256 of what the request asked (a key reused for another is refused)
        answer TEXT NOT NULL,          -- the response body, replayed for a retry
        media_type TEXT NOT NULL,
        complaint_ids TEXT NOT NULL,   -- JSON list of the ids the request saved
        created_at TEXT NOT NULL
    );
    CREATE INDEX saved_requests_created ON saved_requests (created_at);
    """,
    6: """
    CREATE TABLE users (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE,      -- as typed (name_key: case-folded, unique too)
        name_key TEXT NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,    -- argon2id, in its PHC string form
        role TEXT NOT NULL,             -- viewer, officer or admin
        districts TEXT NOT NULL,        -- JSON list of district names (["*"]: every district)
        disabled INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        last_login_at TEXT
    );
    CREATE TABLE sessions (
        key_hash TEXT PRIMARY KEY,      -- SHA-256 of the session cookie (the cookie itself is never stored)
        user_id INTEGER NOT NULL REFERENCES users (id),
        csrf_token TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_seen_at TEXT NOT NULL,
        client TEXT
    );
    CREATE INDEX sessions_user ON sessions (user_id);
    CREATE TABLE api_tokens (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL UNIQUE,
        token_hash TEXT NOT NULL UNIQUE,  -- SHA-256 of the token
        role TEXT NOT NULL,
        districts TEXT NOT NULL,
        created_at TEXT NOT NULL,
        last_used_at TEXT,
        revoked_at TEXT
    );
    CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        actor TEXT,                     -- a user or token name (NULL: nobody signed in)
        action TEXT NOT NULL,           -- login, login_failed, logout, export, save, change, acknowledge, ...
        target TEXT,                    -- what it acted on: "complaint 12", "user ravi"
        detail TEXT NOT NULL DEFAULT '{}',  -- JSON object
        client TEXT                     -- the client's address
    );
    CREATE INDEX audit_log_at ON audit_log (at);
    """,
    7: STEP_7.format(C="", BOOL="INTEGER"),
    8: STEP_8,
    9: STEP_9.format(C="", INT="INTEGER", ID="INTEGER PRIMARY KEY AUTOINCREMENT"),
    10: STEP_10.format(C=""),
    11: STEP_11.format(C=""),
    12: STEP_12,
    13: STEP_SEARCH.format(C="", INT="INTEGER", ID="INTEGER PRIMARY KEY AUTOINCREMENT", BYTES="BLOB", REAL="REAL"),
    14: STEP_LEVELS,
    15: STEP_15.format(INT="INTEGER"),
}


POSTGRES_STEPS: dict[int, str] = {
    1: """
    CREATE TABLE schema_version (
        version INTEGER PRIMARY KEY,
        applied_at TEXT NOT NULL
    );
    CREATE TABLE complaints (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        text TEXT NOT NULL,
        school TEXT,
        labels TEXT NOT NULL,
        probabilities TEXT NOT NULL,
        urgency TEXT NOT NULL,
        urgency_rank INTEGER NOT NULL,
        model_version TEXT NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        status TEXT NOT NULL DEFAULT 'new',
        status_changed_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX complaints_triage ON complaints (urgency_rank, created_at DESC);
    CREATE TABLE status_changes (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        complaint_id BIGINT NOT NULL REFERENCES complaints (id),
        old_status TEXT NOT NULL,
        new_status TEXT NOT NULL,
        changed_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX status_changes_complaint ON status_changes (complaint_id);
    """,
    2: """
    CREATE TABLE complaint_labels (
        complaint_id BIGINT NOT NULL REFERENCES complaints (id),
        label TEXT COLLATE "C" NOT NULL,
        PRIMARY KEY (complaint_id, label)
    );
    CREATE INDEX complaint_labels_label ON complaint_labels (label);
    INSERT INTO complaint_labels (complaint_id, label)
        SELECT DISTINCT complaints.id, l.label
        FROM complaints, jsonb_array_elements_text(complaints.labels::jsonb) AS l (label);
    """,
    3: """
    ALTER TABLE complaints ADD COLUMN review TEXT NOT NULL DEFAULT '[]';
    ALTER TABLE complaints ADD COLUMN needs_review BOOLEAN NOT NULL DEFAULT false;
    CREATE INDEX complaints_queue ON complaints (needs_review DESC, urgency_rank, created_at DESC);
    """,
    4: """
    ALTER TABLE complaints ADD COLUMN udise TEXT;
    ALTER TABLE complaints ADD COLUMN district TEXT;
    ALTER TABLE complaints ADD COLUMN block TEXT;
    ALTER TABLE complaints ADD COLUMN incident_at TEXT COLLATE "C";  -- UTC, as created_at, NULL: not given
    ALTER TABLE complaints ADD COLUMN channel TEXT;
    ALTER TABLE complaints ADD COLUMN reporter_phone TEXT;
    ALTER TABLE complaints ADD COLUMN extra TEXT NOT NULL DEFAULT '{}';  -- JSON object of fields kept whole
    ALTER TABLE complaints ADD COLUMN certainty DOUBLE PRECISION;
    ALTER TABLE complaints ADD COLUMN corrected_labels TEXT;  -- JSON list, NULL: not corrected
    ALTER TABLE complaints ADD COLUMN corrected_by TEXT;
    ALTER TABLE complaints ADD COLUMN corrected_at TEXT COLLATE "C";
    ALTER TABLE complaints ADD COLUMN assignee TEXT;
    ALTER TABLE complaints ADD COLUMN notes TEXT;
    ALTER TABLE complaints ADD COLUMN school_key TEXT COLLATE "C";  -- records.fold(school): search, any case
    ALTER TABLE complaints ADD COLUMN district_key TEXT COLLATE "C";
    ALTER TABLE complaints ADD COLUMN block_key TEXT COLLATE "C";
    ALTER TABLE complaints ADD COLUMN school_group TEXT COLLATE "C";  -- records.school_group: one school
    ALTER TABLE complaints ADD COLUMN block_group TEXT COLLATE "C";  -- records.block_group: one block
    ALTER TABLE complaints ADD COLUMN event_at TEXT COLLATE "C";  -- incident_at, else created_at (alerts)
    UPDATE complaints SET event_at = created_at;
    CREATE INDEX complaints_school_group ON complaints (school_group, event_at);
    CREATE INDEX complaints_block_group ON complaints (block_group, event_at);
    CREATE INDEX complaints_review ON complaints (needs_review DESC, certainty, created_at DESC);
    CREATE TABLE complaint_changes (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        complaint_id BIGINT NOT NULL REFERENCES complaints (id),
        field TEXT NOT NULL,           -- status, labels, assignee or notes
        old_value TEXT,                -- labels as a JSON list
        new_value TEXT,
        changed_by TEXT,               -- who, as the request named them (no accounts yet)
        changed_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX complaint_changes_complaint ON complaint_changes (complaint_id, id);
    INSERT INTO complaint_changes (complaint_id, field, old_value, new_value, changed_by, changed_at)
        SELECT complaint_id, 'status', old_status, new_status, NULL, changed_at FROM status_changes ORDER BY id;
    DROP TABLE status_changes;
    CREATE TABLE alerts (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        rule TEXT NOT NULL,
        summary TEXT NOT NULL,
        group_key TEXT COLLATE "C" NOT NULL,
        school TEXT,
        udise TEXT,
        block TEXT,
        district TEXT,
        complaint_ids TEXT NOT NULL,   -- JSON list of ids, ascending
        first_at TEXT COLLATE "C" NOT NULL,     -- the first and last complaint's incident (else arrival) time
        last_at TEXT COLLATE "C" NOT NULL,
        status TEXT NOT NULL,          -- open or acknowledged
        raised_at TEXT COLLATE "C" NOT NULL,
        updated_at TEXT COLLATE "C" NOT NULL,
        acknowledged_at TEXT COLLATE "C",
        acknowledged_by TEXT
    );
    CREATE INDEX alerts_open ON alerts (status, rule, group_key);
    """,
    5: """
    CREATE TABLE saved_requests (
        key TEXT COLLATE "C" PRIMARY KEY,
        fingerprint TEXT NOT NULL,
        answer TEXT NOT NULL,
        media_type TEXT NOT NULL,
        complaint_ids TEXT NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL
    );
    CREATE INDEX saved_requests_created ON saved_requests (created_at);
    """,
    6: """
    CREATE TABLE users (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        name_key TEXT COLLATE "C" NOT NULL UNIQUE,
        password_hash TEXT NOT NULL,
        role TEXT NOT NULL,
        districts TEXT NOT NULL,
        disabled BOOLEAN NOT NULL DEFAULT false,
        created_at TEXT COLLATE "C" NOT NULL,
        last_login_at TEXT COLLATE "C"
    );
    CREATE TABLE sessions (
        key_hash TEXT COLLATE "C" PRIMARY KEY,
        user_id BIGINT NOT NULL REFERENCES users (id),
        csrf_token TEXT NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        last_seen_at TEXT COLLATE "C" NOT NULL,
        client TEXT
    );
    CREATE INDEX sessions_user ON sessions (user_id);
    CREATE TABLE api_tokens (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        token_hash TEXT COLLATE "C" NOT NULL UNIQUE,
        role TEXT NOT NULL,
        districts TEXT NOT NULL,
        created_at TEXT COLLATE "C" NOT NULL,
        last_used_at TEXT COLLATE "C",
        revoked_at TEXT COLLATE "C"
    );
    CREATE TABLE audit_log (
        id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        at TEXT COLLATE "C" NOT NULL,
        actor TEXT,
        action TEXT NOT NULL,
        target TEXT,
        detail TEXT NOT NULL DEFAULT '{}',
        client TEXT
    );
    CREATE INDEX audit_log_at ON audit_log (at);
    """,
    7: STEP_7.format(C=' COLLATE "C"', BOOL="BOOLEAN"),
    8: STEP_8,
    9: STEP_9.format(C=' COLLATE "C"', INT="BIGINT", ID="BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"),
    10: STEP_10.format(C=' COLLATE "C"'),
    11: STEP_11.format(C=' COLLATE "C"'),
    12: STEP_12,
    13: STEP_SEARCH.format(
        C=' COLLATE "C"',
        INT="BIGINT",
        ID="BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
        BYTES="BYTEA",
        REAL="REAL",
    ),
    14: STEP_LEVELS,
    15: STEP_15.format(INT="BIGINT"),
}


def _fill_keys(select: Any, update: Any) -> None:
    """Version 4: the search and grouping keys of the schools saved before it (computed as new rows get them)."""
    rows = select("SELECT id, school FROM complaints WHERE school IS NOT NULL")
    update(
        "UPDATE complaints SET school_key = ?, school_group = ? WHERE id = ?",
        [(fold(school), school_group(school, None, None), i) for i, school in rows],
    )


def _alert_groups(select: Any, update: Any) -> None:
    """Version 9: the place of each alert of a school named by its UDISE code, within the alert's district."""
    rows = select("SELECT id, udise, district FROM alerts WHERE udise IS NOT NULL AND group_key LIKE 'udise:%'")
    update("UPDATE alerts SET group_key = ? WHERE id = ?", [(school_group(None, u, d), i) for i, u, d in rows])


def _fill_severity(select: Any, update: Any) -> None:
    """Versions 10 and 14: the triage key of the complaints saved before it, their level read by the rule for
    models without a severity head (``severity.keyword_level``, from the labels as they stand)."""
    rows = select("SELECT id, text, urgency, labels, corrected_labels FROM complaints")
    keys = [(triage_key(keyword_level(t, json.loads(c if c is not None else la)), u, t), i) for i, t, u, la, c in rows]
    update("UPDATE complaints SET severity = ? WHERE id = ?", keys)


def _fill_language(select: Any, update: Any) -> None:
    """Version 12: the language of the complaints saved before it (as new rows get theirs)."""
    rows = select("SELECT id, text FROM complaints")
    update("UPDATE complaints SET language = ? WHERE id = ?", [(detect_language(t), i) for i, t in rows])


#: after a step's SQL, in its transaction: step -> function(select(sql), execute_many(sql, rows)); ``?`` marks
KEY_STEPS = {4: _fill_keys, 9: _alert_groups, 10: _fill_severity, 12: _fill_language, 14: _fill_severity}

#: pg_advisory_lock key held while migrating (any fixed 64-bit number; this one spells "mealwatch")
ADVISORY_LOCK_KEY = 0x6D65_616C_7761_7463


def _statements(script: str) -> list[str]:
    """The script's statements (a step of only comments has none)."""
    code = lambda s: "\n".join(line for line in s.splitlines() if not line.strip().startswith("--")).strip()  # noqa: E731
    return [s for s in script.split(";") if code(s)]


def _check(current: int, tables: list[str]) -> None:
    if current > SCHEMA_VERSION:
        raise StoreError(
            f"the complaint log has schema version {current}, newer than this mealwatch understands "
            f"({SCHEMA_VERSION}): upgrade mealwatch, or pass another --db"
        )
    if current == 0 and tables:
        raise StoreError(
            f"the database holds tables ({', '.join(sorted(tables))}) but no complaint-log schema version: "
            "it is not a mealwatch complaint log; pass another --db"
        )


# --- SQLite ----------------------------------------------------------------------------------------


def sqlite_version(conn: sqlite3.Connection) -> int:
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def migrate_sqlite(conn: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Bring a SQLite database (opened with ``isolation_level=None``) up to ``target``; returns the version reached."""
    current = sqlite_version(conn)
    _check(current, [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")])
    for version in range(current + 1, target + 1):
        with conn:  # one transaction per step: a failed step leaves the previous version intact
            conn.execute("BEGIN IMMEDIATE")
            for statement in _statements(SQLITE_STEPS[version]):
                conn.execute(statement)
            if version in KEY_STEPS:
                KEY_STEPS[version](lambda sql: [tuple(r) for r in conn.execute(sql).fetchall()], conn.executemany)
            conn.execute(f"PRAGMA user_version = {version}")
    return sqlite_version(conn)


# --- PostgreSQL ------------------------------------------------------------------------------------


def _rows(conn: Any, sql: str, params: tuple = ()) -> list[tuple]:
    """Rows as tuples, whatever the connection's row factory."""
    from psycopg.rows import tuple_row

    with conn.cursor(row_factory=tuple_row) as cur:
        return cur.execute(sql, params).fetchall()


def postgres_version(conn: Any) -> int:
    """The schema version of the current schema (0: no ``schema_version`` table)."""
    if _rows(conn, "SELECT to_regclass('schema_version')")[0][0] is None:
        return 0
    return int(_rows(conn, "SELECT coalesce(max(version), 0) FROM schema_version")[0][0])


def migrate_postgres(conn: Any, target: int = SCHEMA_VERSION) -> int:
    """Bring a PostgreSQL database (a psycopg connection, autocommit) up to ``target``; returns the version reached."""
    conn.execute("SELECT pg_advisory_lock(%s)", (ADVISORY_LOCK_KEY,))
    try:
        current = postgres_version(conn)
        tables = _rows(conn, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
        _check(current, [r[0] for r in tables])
        for version in range(current + 1, target + 1):
            with conn.transaction():  # one transaction per step: a failed step leaves the previous version intact
                for statement in _statements(POSTGRES_STEPS[version]):
                    conn.execute(statement)
                if version in KEY_STEPS:
                    with conn.cursor() as cur:
                        KEY_STEPS[version](
                            lambda sql: _rows(conn, sql.replace("%", "%%")),
                            lambda sql, values: values and cur.executemany(sql.replace("?", "%s"), values),
                        )
                conn.execute("INSERT INTO schema_version (version, applied_at) VALUES (%s, %s)", (version, utc_now()))
        return postgres_version(conn)
    finally:
        if not conn.closed:  # a broken connection has lost its lock already
            conn.execute("SELECT pg_advisory_unlock(%s)", (ADVISORY_LOCK_KEY,))
