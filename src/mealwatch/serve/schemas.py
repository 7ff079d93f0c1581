"""Request and response bodies of the HTTP API, with their limits.

Requests are strict: a field of the wrong type is an error, never converted ("yes" is not a
boolean, 5 is not a text), and an unknown field is an error too, so a misspelt field name
cannot be silently ignored.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator

from ..records import MAX_NAME_CHARS, MAX_NOTES_CHARS, clean_name
from ..text import check_text
from .record_fields import CorrectionOut, RecordFields, RecordOut

#: the longest complaint text accepted, in characters
MAX_TEXT_CHARS = 5000
#: the most texts in one batch request
MAX_BATCH = 256
#: an uploaded CSV file: at most this many bytes and complaint rows
MAX_CSV_BYTES = 2_000_000
MAX_CSV_ROWS = 2000
#: the most complaints one page of the log returns
MAX_PAGE = 500
#: the largest offset into the log (a 64-bit integer, as the databases count)
MAX_OFFSET = 2**63 - 1
#: integrated gradients: the most interpolation steps one request may ask for
MAX_IG_STEPS = 300
#: the daily counts: the most days one request may span
MAX_STATS_DAYS = 3660
#: search: the longest query, in characters
MAX_QUERY_CHARS = 500
#: incidents: the most ids one merge or split may name
MAX_IDS = 200

Importance = Literal["none", "grad", "ig", "why"]
Status = Literal["new", "in_progress", "resolved"]
Urgency = Literal["high", "medium", "low"]


def check_complaint_text(text: str) -> str:
    """The text itself if it is a complaint we can classify (``text.check_text`` with the service's limit)."""
    return check_text(text, MAX_TEXT_CHARS)


class _Request(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class ClassifyRequest(_Request, RecordFields):
    """One complaint to classify (and, with ``save``, to add to the log), with its record."""

    text: str = Field(description=f"the complaint, 1 to {MAX_TEXT_CHARS} characters, not only whitespace")
    save: bool = Field(False, description="add the complaint and its prediction to the log")
    explain: Importance = Field(
        "none",
        description="per-word importance, computed only when asked: 'none' (the default), 'grad' gradient × input "
        "(one backward pass), 'ig' integrated gradients (slow, exact up to its delta), 'why' each word's share of "
        "the decision shown (integrated gradients of the encoder and the n-gram channel's exact share, fused as "
        "the labels are: what the page shows)",
    )
    steps: int = Field(50, ge=1, le=MAX_IG_STEPS, description="integrated-gradients steps (explain='ig' or 'why')")

    _text = field_validator("text")(check_complaint_text)


class BatchItem(_Request, RecordFields):
    text: str

    _text = field_validator("text")(check_complaint_text)


class BatchRequest(_Request):
    """Several complaints: either ``texts`` (plain strings) or ``items`` (text and school), not both."""

    # the length is checked before any item, so a list of a million is refused at once
    texts: list[str] | None = Field(None, max_length=MAX_BATCH, description=f"1 to {MAX_BATCH} complaint texts")
    items: list[BatchItem] | None = Field(
        None, max_length=MAX_BATCH, description=f"1 to {MAX_BATCH} complaints with their records"
    )
    save: bool = False
    partial: bool = Field(
        False,
        description="items whose fields cannot be read, or (with save) that the caller may not save, are left out "
        "and listed in 'refused' while the others are classified and saved (true); or one such item refuses "
        "the whole batch (false, the default)",
    )
    explain: Importance = Field("none", description="per-word importance for every text (default: none)")
    steps: int = Field(50, ge=1, le=MAX_IG_STEPS)
    _refused: dict[int, str] = PrivateAttr(default_factory=dict)  # with partial: position in the request -> why
    _positions: list[int] | None = PrivateAttr(default=None)  # with partial: the positions of the items kept

    @model_validator(mode="wrap")
    @classmethod
    def _each_item(cls, data: Any, handler: Any) -> "BatchRequest":
        """With ``partial``, each item is checked on its own: the unreadable ones are left out and named."""
        items = data.get("items") if isinstance(data, dict) else None
        if not (isinstance(data, dict) and data.get("partial") is True and isinstance(items, list)):
            return handler(data)
        from .errors import describe

        kept, refused = [], {}
        for i, item in enumerate(items):
            try:
                BatchItem.model_validate(item)
            except ValidationError as e:
                said = (describe({**error, "loc": ("body", *error["loc"])}) for error in e.errors())  # "field 'x'"
                refused[i] = "; ".join(dict.fromkeys(said))
            else:
                kept.append(i)
        if items and not kept:
            shown = "; ".join(f"items[{i}]: {why}" for i, why in list(refused.items())[:10])
            raise ValueError(f"no item of the batch can be read: {shown}")
        model = handler({**data, "items": [items[i] for i in kept]})
        model._refused, model._positions = refused, kept
        return model

    @field_validator("texts")
    @classmethod
    def _texts(cls, texts: list[str] | None) -> list[str] | None:
        if texts is None:
            return None
        for i, text in enumerate(texts):
            try:
                check_complaint_text(text)
            except ValueError as e:
                raise ValueError(f"texts[{i}]: {e}") from None
        return texts

    @model_validator(mode="after")
    def _one_list(self) -> "BatchRequest":
        if (self.texts is None) == (self.items is None):
            raise ValueError('give exactly one of "texts" (a list of strings) or "items" (a list of {text, school})')
        n = len(self.texts if self.texts is not None else self.items)
        if n == 0:
            raise ValueError("the batch is empty: expected at least one complaint")
        if n > MAX_BATCH:
            raise ValueError(f"the batch holds {n:,} complaints; the limit is {MAX_BATCH}: send it in several requests")
        return self

    def complaints(self) -> list[tuple[str, RecordFields]]:
        """(text, record fields) per complaint kept, in order."""
        if self.texts is not None:
            return [(t, RecordFields()) for t in self.texts]
        return [(item.text, item) for item in self.items or []]

    def positions(self) -> list[int]:
        """Each kept complaint's position in the request (with ``partial``, the refused ones are skipped)."""
        return self._positions if self._positions is not None else list(range(len(self.complaints())))

    def refused(self) -> dict[int, str]:
        """With ``partial``: the position of each item left out, and why."""
        return dict(self._refused)


class AttentionRequest(_Request):
    text: str = Field(description=f"the text, 1 to {MAX_TEXT_CHARS} characters")
    layer: int | None = Field(None, description="only this layer (from 0); all layers when absent")
    head: int | None = Field(None, description="only this head of the layer (from 0); needs layer")
    include_special: bool = Field(True, description="show [CLS] and [SEP] as words (else rows are rescaled)")

    _text = field_validator("text")(check_complaint_text)


class ComplaintPatch(_Request):
    """Changes to a saved complaint, applied together (at least one); each is recorded in its history."""

    status: Status | None = Field(
        None, description="new -> in_progress -> resolved (in_progress -> new and resolved -> in_progress undo)"
    )
    labels: list[str] | None = Field(
        None,
        max_length=100,
        description="the true labels (a correction, stored beside the predicted ones; at least one label)",
    )
    assignee: str | None = Field(None, description=f"who works on it, up to {MAX_NAME_CHARS} characters; '' clears")
    notes: str | None = Field(None, description=f"notes, up to {MAX_NOTES_CHARS} characters; '' clears")
    district: str | None = Field(
        None, description="put it in this district (one of the caller's); '' takes it out of any (unassigned)"
    )
    block: str | None = Field(None, description="put it in this block; '' clears")
    by: str | None = Field(None, description="who makes the change (else the X-Officer header)")

    @field_validator("assignee", "by", "district", "block")
    @classmethod
    def _name(cls, v: str | None, info: Any) -> str | None:
        return None if v is None else (clean_name(v, info.field_name) or "")

    @field_validator("notes")
    @classmethod
    def _notes(cls, v: str | None) -> str | None:
        return None if v is None else (clean_name(v, "notes", MAX_NOTES_CHARS) or "")

    @model_validator(mode="after")
    def _something(self) -> "ComplaintPatch":
        if all(getattr(self, f) is None for f in ("status", "labels", "assignee", "notes", "district", "block")):
            raise ValueError("nothing to change: send status, labels, assignee, notes, district or block")
        return self


class ClassifyResult(RecordOut):
    text: str
    school: str | None = None
    labels: list[str]
    probabilities: dict[str, float]
    urgency: Urgency | None = Field(
        description="high, medium or low; null for a model whose labels are not the complaint labels"
    )
    truncated: bool = Field(
        False, description="true when the text was longer than the model reads; it was judged on its start"
    )
    needs_review: bool = Field(False, description="true when the labels should not be trusted without a person's check")
    review_reasons: list[str] = Field(default_factory=list, description="why it needs review (empty when it does not)")
    language: str | None = Field(None, description="the text's language (ISO 639-1; 'und' when it cannot be told)")
    severity_level: str | None = Field(
        None, description="the worst that happened to a child: none, unwell, clinic, hospital or death"
    )
    children: str | None = Field(None, description="the children it says were affected: a number, or 'all'")
    importance: dict[str, Any] | None = Field(None, description="per-word importance (see the 'explain' field)")
    id: int | None = Field(None, description="the complaint's id in the log, when saved")
    model_version: str


class RefusedItem(BaseModel):
    index: int = Field(description="the item's position in the request, from 0")
    error: str = Field(description="why it was left out")


class BatchResult(BaseModel):
    count: int
    results: list[ClassifyResult]
    refused: list[RefusedItem] = Field(default_factory=list, description="with partial: the items left out, and why")


class CsvResultRow(ClassifyResult):
    line: int = Field(description="the row's line in the uploaded file (the header is line 1)")


class RefusedLine(BaseModel):
    line: int = Field(description="the row's line in the uploaded file (the header is line 1)")
    error: str = Field(description="why it was left out")


class CsvResult(BaseModel):
    count: int
    results: list[CsvResultRow]
    csv: str | None = Field(None, description="the results as the CSV download writes them (with with_csv=true)")
    refused: list[RefusedLine] = Field(default_factory=list, description="with partial: the lines left out, and why")
    left_out_columns: list[str] = Field(
        default_factory=list, description="a file mealwatch exported: its own columns (ids, labels, p_...), not kept"
    )


class Complaint(CorrectionOut):
    id: int
    text: str
    school: str | None
    labels: list[str]
    probabilities: dict[str, float]
    urgency: Urgency
    needs_review: bool = False
    review_reasons: list[str] = Field(default_factory=list)
    model_version: str
    created_at: str
    status: Status
    status_changed_at: str
    severity: int = Field(0, description="the triage key (the level of care, the urgency, the children named)")
    severity_level: str = Field(
        "none", description="the worst that happened to a child: none, unwell, clinic, hospital or death"
    )
    children: str | None = Field(None, description="the children it says were affected: a number, or 'all'")
    language: str | None = Field(None, description="the text's language (ISO 639-1; 'und' when it cannot be told)")
    history: list[dict[str, str]] | None = None
    incident_id: int | None = Field(None, description="the incident it belongs to (null: not grouped yet)")
    signals: list[str] = Field(
        default_factory=list, description="what it says (any language) that an alert rule counts: death_or_hospital"
    )


class ComplaintPage(BaseModel):
    total: int
    limit: int
    offset: int
    next_cursor: str | None = Field(description="pass as cursor= for the next page; null: this is the last page")
    items: list[Complaint]
