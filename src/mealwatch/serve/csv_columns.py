"""The columns of the service's CSV files, read and written: the record's columns and the names an upload may
give them, the columns of the upload's results and of the log export, and how an officer's own column is told
apart from them."""

from __future__ import annotations

from collections.abc import Sequence

#: record field -> the header names an upload may give it (compared after ``header_key``)
RECORD_COLUMNS: dict[str, tuple[str, ...]] = {
    "school": ("school", "school_name", "schoolname", "name_of_school", "vidyalaya"),
    "udise": ("udise", "udise_code", "udise_no", "udise_number", "udise_id"),
    "district": ("district", "district_name", "zila", "jila"),
    "block": ("block", "block_name", "mandal", "taluka", "tehsil"),
    "incident_date": ("incident_date", "incident_at", "incident_time", "incident_day", "date_of_incident", "date",
                      "incident"),
    "channel": ("channel", "received_via", "received_by", "mode"),
    "reporter_phone": ("reporter_phone", "phone", "phone_number", "phone_no", "mobile", "mobile_number",
                       "mobile_no", "contact", "contact_number", "reporter_mobile"),
}  # fmt: skip
#: the complaint and its record, in both files (``incident_date``: a day, or a time, in the officers' zone)
RECORD = ("text", "school", "udise", "district", "block", "incident_date", "channel", "reporter_phone")
PREDICTION = ("labels", "urgency", "severity_level", "children", "needs_review", "review_reasons", "language")
#: the upload's results: the row's line in the file, the id when saved, the record, the prediction
RESULT_COLUMNS = ("line", "id", *RECORD, *PREDICTION, "truncated")
#: the log export: the complaint's id and state, the record, the prediction, what officers added
LOG_COLUMNS = ("id", "created_at", "status", "status_changed_at", *RECORD, *PREDICTION, "corrected_labels",
               "corrected_by", "corrected_at", "assignee", "notes", "model_version")  # fmt: skip
#: the header an officer's column clashing with one of mealwatch's is written under
EXTRA_PREFIX = "extra: "
#: mealwatch's own columns of either file, not the record's (what a re-upload leaves out), and p_<label>
OWN_COLUMNS = frozenset(RESULT_COLUMNS + LOG_COLUMNS) - frozenset(RECORD)
PROBABILITY_PREFIX = "p_"


def header_key(name: str) -> str:
    """A header cell as compared with ``RECORD_COLUMNS``: lower case, spaces, dashes and dots as ``_``."""
    return "_".join(name.strip().lower().replace("-", " ").replace(".", " ").split())


def clashes(name: str) -> bool:
    """Whether an officer's column ``name`` would be read back as something else (the text, a record field, one of
    mealwatch's own columns, a probability): such a column is written ``extra: <name>``."""
    key = header_key(name)
    return (key in READ_AS_OTHER or name in OWN_COLUMNS or name == "extra"
            or name.startswith((PROBABILITY_PREFIX, EXTRA_PREFIX)))  # fmt: skip


#: header keys an upload reads as the text or a record field
READ_AS_OTHER = frozenset({"text", *(v for variants in RECORD_COLUMNS.values() for v in variants)})


def is_own_export(header: Sequence[str]) -> bool:
    """Whether a CSV header is one of these files' (read back: mealwatch's own columns are not the officer's)."""
    names = set(header)
    has_probabilities = any(h.startswith(PROBABILITY_PREFIX) for h in names)
    return has_probabilities and ("model_version" in names or {"line", "urgency", "labels"} <= names)
