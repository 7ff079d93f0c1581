"""What a user chose for the page, kept with their account: the language it speaks to them in (schema version 10).

Keyed by the user's name as compared (``account_store.name_key``), so it follows the account, not a session.
"""

from __future__ import annotations


from .account_store import name_key
from .shapes import Store

#: the languages the page speaks (``serve/static/i18n.js``)
LANGUAGES = ("en", "hi")


class PreferenceStore(Store):
    """Each user's language for the page, each call one transaction (mixed into ``ComplaintLog``)."""

    def language(self, user: str) -> str | None:
        """The language ``user`` chose for the page, or None (not chosen: the browser's is used)."""
        with self._read() as tx:
            row = tx.one("SELECT language FROM user_preferences WHERE name_key = ?", (name_key(user),))
        return row["language"] if row else None

    def set_language(self, user: str, language: str) -> None:
        """Keep ``language`` (one of ``LANGUAGES``) as ``user``'s; ValueError for another."""
        if language not in LANGUAGES:
            raise ValueError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
        with self._write() as tx:
            tx.run(
                "INSERT INTO user_preferences (name_key, language, updated_at) VALUES (?, ?, ?)"
                " ON CONFLICT (name_key) DO UPDATE SET language = excluded.language, updated_at = excluded.updated_at",
                (name_key(user), language, self.clock()),
            )
