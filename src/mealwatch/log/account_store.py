"""Accounts as the log keeps them: users, their sessions, API tokens and the audit log (schema version 6).

Only what is stored, in the log's own transactions: hashing passwords and tokens, roles, expiry and rate
limits are decided in ``mealwatch.accounts`` and ``mealwatch.serve.auth``. Secrets are never stored: a
password as its argon2id hash, a session cookie and an API token as their SHA-256.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..records import fold
from .shapes import Page, Scope, Store, StoreError, Tx

USER_COLUMNS = "id, name, role, districts, disabled, created_at, last_login_at"
TOKEN_COLUMNS = "id, name, role, districts, created_at, last_used_at, revoked_at"
#: a token as a request is checked by: its columns, and whose it is (the owner's name and whether it is disabled)
TOKEN_WITH_OWNER = (
    "SELECT t.id, t.name, t.role, t.districts, t.created_at, t.last_used_at, t.revoked_at, u.name AS owner,"
    " u.disabled AS owner_disabled FROM api_tokens t LEFT JOIN users u ON u.id = t.owner_id"
)
AUDIT_COLUMNS = "id, at, actor, action, target, detail, client"


@dataclass
class AuditEntry:
    """One line of the audit log: who (``actor``) did what (``action`` on ``target``), from where (``client``), and
    the districts it concerns (``districts``: None, or a list holding "*" or a complaint naming none, is the whole
    state: only an account of every district reads it)."""

    actor: str | None
    action: str
    target: str | None = None
    detail: dict[str, Any] = field(default_factory=dict)
    client: str | None = None
    districts: Sequence[str | None] | None = None


def district_keys(districts: Sequence[str | None] | None) -> list[str]:
    """The folded districts an audit entry concerns; [] for the whole state."""
    if districts is None or any(d is None or d == "*" for d in districts):
        return []
    return sorted({fold(d) for d in districts if d is not None})


def write_audit(tx: Tx, entry: AuditEntry, now: str) -> None:
    """Write ``entry`` within ``tx`` (a save writes its audit line in its own transaction)."""
    row = tx.one(
        "INSERT INTO audit_log (at, actor, action, target, detail, client) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
        (now, entry.actor, entry.action, entry.target, json.dumps(entry.detail, ensure_ascii=False), entry.client),
    )
    tx.many(
        "INSERT INTO audit_districts (audit_id, district_key) VALUES (?, ?)",
        [(int(row["id"]), key) for key in district_keys(entry.districts)],
    )


def audit_scope_clause(scope: Scope) -> tuple[str, list[str]]:
    """The condition that keeps the audit entries an account of ``scope`` may read: for every district, all; else
    those concerning some district, all of them in ``scope``."""
    if scope is None:
        return "", []
    if not scope:
        return "1 = 0", []
    marks = ", ".join("?" * len(scope))
    return (
        "EXISTS (SELECT 1 FROM audit_districts d WHERE d.audit_id = audit_log.id) AND NOT EXISTS (SELECT 1 FROM"
        f" audit_districts d WHERE d.audit_id = audit_log.id AND d.district_key NOT IN ({marks}))",
        list(scope),
    )


def name_key(name: str) -> str:
    """A user name as compared: case does not make another user."""
    return name.strip().casefold()


def _user(row: dict[str, Any] | None) -> dict[str, Any] | None:
    if row is None:
        return None
    d = dict(row)
    d["id"], d["districts"], d["disabled"] = int(d["id"]), json.loads(d["districts"]), bool(d["disabled"])
    return d


def _token(row: dict[str, Any] | None) -> dict[str, Any] | None:
    if row is None:
        return None
    d = dict(row)
    d["id"], d["districts"] = int(d["id"]), json.loads(d["districts"])
    return d


class AccountStore(Store):
    """Users, sessions, API tokens and the audit log, each call one transaction (mixed into ``ComplaintLog``)."""

    # --- users -----------------------------------------------------------------------------------

    def add_user(self, name: str, password_hash: str, role: str, districts: Sequence[str]) -> dict[str, Any]:
        """A new user; StoreError when the name (in any case) is taken."""
        with self._write() as tx:
            if tx.one("SELECT id FROM users WHERE name_key = ?", (name_key(name),)) is not None:
                raise StoreError(f"there is a user named {name!r} already: choose another name")
            tx.run(
                "INSERT INTO users (name, name_key, password_hash, role, districts, disabled, created_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (name.strip(), name_key(name), password_hash, role, json.dumps(list(districts), ensure_ascii=False),
                 False, self.clock()),
            )  # fmt: skip
            return _user(tx.one(f"SELECT {USER_COLUMNS} FROM users WHERE name_key = ?", (name_key(name),)))

    def user(self, name: str) -> dict[str, Any] | None:
        """A user by name (any case), with ``password_hash``; None when there is none."""
        with self._read() as tx:
            row = tx.one(f"SELECT {USER_COLUMNS}, password_hash FROM users WHERE name_key = ?", (name_key(name),))
        return _user(row)

    def users(self) -> list[dict[str, Any]]:
        """Every user, by name (no password hashes)."""
        with self._read() as tx:
            return [_user(r) for r in tx.all(f"SELECT {USER_COLUMNS} FROM users ORDER BY name_key")]

    def count_users(self, role: str | None = None) -> int:
        """How many users are enabled (of ``role``, when given)."""
        where, params = ("disabled = ?", [False]) if role is None else ("disabled = ? AND role = ?", [False, role])
        with self._read() as tx:
            return int(tx.one(f"SELECT count(*) AS n FROM users WHERE {where}", params)["n"])

    def has_users(self) -> bool:
        """Whether any user was ever added (accounts are on from then on)."""
        with self._read() as tx:
            return tx.one("SELECT id FROM users LIMIT 1") is not None

    def set_user_disabled(self, name: str, disabled: bool) -> dict[str, Any] | None:
        """Disable (ending every session of, and revoking every API token the user created) or enable a user; None
        when there is none."""
        with self._write() as tx:
            row = tx.one(f"SELECT id FROM users WHERE name_key = ?{tx.for_update}", (name_key(name),))
            if row is None:
                return None
            tx.run("UPDATE users SET disabled = ? WHERE id = ?", (disabled, row["id"]))
            if disabled:
                tx.run("DELETE FROM sessions WHERE user_id = ?", (row["id"],))
                tx.run("UPDATE api_tokens SET revoked_at = ? WHERE owner_id = ? AND revoked_at IS NULL",
                       (self.clock(), row["id"]))  # fmt: skip
            return _user(tx.one(f"SELECT {USER_COLUMNS} FROM users WHERE id = ?", (row["id"],)))

    def set_user_password(self, name: str, password_hash: str) -> dict[str, Any] | None:
        """A user's new password (its hash), ending every session of theirs; None when there is no such user."""
        with self._write() as tx:
            row = tx.one(f"SELECT id FROM users WHERE name_key = ?{tx.for_update}", (name_key(name),))
            if row is None:
                return None
            tx.run("UPDATE users SET password_hash = ? WHERE id = ?", (password_hash, row["id"]))
            tx.run("DELETE FROM sessions WHERE user_id = ?", (row["id"],))
            return _user(tx.one(f"SELECT {USER_COLUMNS} FROM users WHERE id = ?", (row["id"],)))

    def set_password_hash(self, user_id: int, password_hash: str) -> None:
        with self._write() as tx:
            tx.run("UPDATE users SET password_hash = ? WHERE id = ?", (password_hash, user_id))

    # --- sessions --------------------------------------------------------------------------------

    def start_session(self, key_hash: str, user_id: int, csrf_token: str, client: str | None) -> None:
        now = self.clock()
        with self._write() as tx:
            tx.run(
                "INSERT INTO sessions (key_hash, user_id, csrf_token, created_at, last_seen_at, client)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (key_hash, user_id, csrf_token, now, now, client),
            )
            tx.run("UPDATE users SET last_login_at = ? WHERE id = ?", (now, user_id))

    def session(self, key_hash: str) -> dict[str, Any] | None:
        """A session with its user: ``user`` (a user dict), ``csrf_token``, ``created_at``, ``last_seen_at``."""
        with self._read() as tx:
            row = tx.one(
                "SELECT s.csrf_token, s.created_at AS started_at, s.last_seen_at, u.id, u.name, u.role, u.districts,"
                " u.disabled, u.created_at, u.last_login_at FROM sessions s JOIN users u ON u.id = s.user_id"
                " WHERE s.key_hash = ?",
                (key_hash,),
            )
        if row is None:
            return None
        session = {k: row.pop(k) for k in ("csrf_token", "started_at", "last_seen_at")}
        return {**session, "user": _user(row)}

    def touch_session(self, key_hash: str) -> None:
        with self._write() as tx:
            tx.run("UPDATE sessions SET last_seen_at = ? WHERE key_hash = ?", (self.clock(), key_hash))

    def end_session(self, key_hash: str) -> bool:
        """Delete a session; whether there was one."""
        with self._write() as tx:
            found = tx.one(f"SELECT key_hash FROM sessions WHERE key_hash = ?{tx.for_update}", (key_hash,))
            tx.run("DELETE FROM sessions WHERE key_hash = ?", (key_hash,))
        return found is not None

    def end_sessions_before(self, idle_since: str, started_since: str) -> int:
        """Delete the sessions idle since before ``idle_since`` or started before ``started_since``; how many."""
        with self._write() as tx:
            n = tx.one(
                "SELECT count(*) AS n FROM sessions WHERE last_seen_at < ? OR created_at < ?",
                (idle_since, started_since),
            )["n"]
            tx.run("DELETE FROM sessions WHERE last_seen_at < ? OR created_at < ?", (idle_since, started_since))
        return int(n)

    # --- API tokens ------------------------------------------------------------------------------

    def add_token(
        self, name: str, token_hash: str, role: str, districts: Sequence[str], owner: str | None = None
    ) -> dict[str, Any]:
        """A new token, of the user named ``owner`` (None: made on the command line, of no account): it stops
        working while that user is disabled. StoreError when the name is taken (a revoked token keeps its name)
        or the owner is not an enabled user."""
        with self._write() as tx:
            if tx.one("SELECT id FROM api_tokens WHERE name = ?", (name,)) is not None:
                raise StoreError(f"there is a token named {name!r} already: choose another name")
            owner_id = None
            if owner is not None:
                found = tx.one(f"SELECT id, disabled FROM users WHERE name_key = ?{tx.for_update}", (name_key(owner),))
                if found is None or found["disabled"]:
                    raise StoreError(f"the account {owner!r} is disabled or gone: it creates no token")
                owner_id = int(found["id"])
            tx.run(
                "INSERT INTO api_tokens (name, token_hash, role, districts, created_at, owner_id)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (name, token_hash, role, json.dumps(list(districts), ensure_ascii=False), self.clock(), owner_id),
            )
            return _token(tx.one(f"SELECT {TOKEN_COLUMNS} FROM api_tokens WHERE name = ?", (name,)))

    def token(self, token_hash: str) -> dict[str, Any] | None:
        """The token with this hash (revoked ones too: ``revoked_at`` says so), with ``owner`` (the name of the
        account that created it, None for the command line's) and ``owner_disabled``; reading it writes nothing."""
        with self._read() as tx:
            row = tx.one(f"{TOKEN_WITH_OWNER} WHERE t.token_hash = ?", (token_hash,))
        found = _token(row)
        if found is not None:
            found["owner_disabled"] = bool(found["owner_disabled"])
        return found

    def touch_token(self, token_id: int) -> None:
        """Record a token's use now."""
        with self._write() as tx:
            tx.run("UPDATE api_tokens SET last_used_at = ? WHERE id = ?", (self.clock(), token_id))

    def tokens(self) -> list[dict[str, Any]]:
        with self._read() as tx:
            return [_token(r) for r in tx.all(f"SELECT {TOKEN_COLUMNS} FROM api_tokens ORDER BY name")]

    def revoke_token(self, name: str) -> dict[str, Any] | None:
        """Revoke a token (again: unchanged); None when there is none of that name."""
        with self._write() as tx:
            tx.run("UPDATE api_tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL", (self.clock(), name))
            return _token(tx.one(f"SELECT {TOKEN_COLUMNS} FROM api_tokens WHERE name = ?", (name,)))

    # --- the audit log ---------------------------------------------------------------------------

    def audit(
        self,
        actor: str | None,
        action: str,
        target: str | None = None,
        detail: dict[str, Any] | None = None,
        client: str | None = None,
        districts: Sequence[str | None] | None = None,
    ) -> None:
        """Record who (``actor``) did what (``action`` on ``target``), from where (``client``), now, concerning
        ``districts`` (see ``AuditEntry``)."""
        with self._write() as tx:
            write_audit(tx, AuditEntry(actor, action, target, detail or {}, client, districts), self.clock())

    def audit_entries(
        self, limit: int | None = 100, offset: int = 0, action: str | None = None, scope: Scope = None
    ) -> Page:
        """Audit entries, newest first (only ``action``'s, when given; only those ``scope`` may read)."""
        clauses, params = [], []
        if action is not None:
            clauses.append("action = ?")
            params.append(action)
        kept, values = audit_scope_clause(scope)
        if kept:
            clauses.append(kept)
            params.extend(values)
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""
        tail = "" if limit is None else f" LIMIT {int(limit)} OFFSET {int(offset)}"
        with self._read() as tx:
            total = tx.one(f"SELECT count(*) AS n FROM audit_log{where}", params)["n"]
            rows = tx.all(f"SELECT {AUDIT_COLUMNS} FROM audit_log{where} ORDER BY id DESC{tail}", params)
        items = [{**r, "id": int(r["id"]), "detail": json.loads(r["detail"])} for r in rows]
        return Page(int(total), items)
