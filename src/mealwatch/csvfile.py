"""Writing CSV the one way, for every front end: predictions, upload results, the log export.

- a cell that a spreadsheet would run as a formula (starting with ``=``, ``+``, ``-``, ``@``, tab or
  carriage return, after any apostrophes) is prefixed with an apostrophe, so opening an export never executes a
  complaint — except in files written for a program rather than a person (``spreadsheet_safe=False``: training
  files), where the text must stay exactly as written. The guard can be undone (``unguard``): a cell that
  starts with apostrophes and then a formula character lost exactly one apostrophe's worth of meaning, so reading
  an export back gives every text exactly as it was (a text that itself began with ``'=`` is written ``''=``);
- a file for a person (``bom=True``) starts with a UTF-8 byte-order mark, so Excel reads it as UTF-8 (Devanagari
  and every other script intact) instead of the machine's legacy code page;
- every cell holding a line break of any kind (``\\n``, a bare ``\\r``) is quoted, so one complaint
  stays one record;
- labels (a ``labels`` or ``..._labels`` column) are joined by ``labels.LABEL_SEPARATOR``, booleans written
  ``true``/``false``, probabilities with 6 decimals, lists of reasons joined by `` | ``.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from typing import Any

from .labels import LABEL_SEPARATOR

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PROBABILITY_DECIMALS = 6
#: the byte-order mark a file for a spreadsheet starts with
BOM = "\ufeff"
#: a cell a spreadsheet would read as a formula, behind any number of apostrophes (the guard's own included)
_FORMULA = re.compile(r"'*[=+\-@\t\r]")
#: a cell written with the guard: one apostrophe or more, then a formula character
_GUARDED = re.compile(r"'+[=+\-@\t\r]")


def cell(value: Any, column: str = "", *, spreadsheet_safe: bool = True) -> str:
    """One value as CSV text (see the module docstring)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.{PROBABILITY_DECIMALS}f}"
    if isinstance(value, (list, tuple)):
        value = (LABEL_SEPARATOR if column == "labels" or column.endswith("_labels") else " | ").join(
            str(v) for v in value
        )
    text = str(value)
    if spreadsheet_safe and _FORMULA.match(text) and not _is_number(text):
        text = "'" + text
    return text


def unguard(text: str) -> str:
    """A cell as it was before ``cell`` guarded it: one leading apostrophe dropped where a formula character
    follows the apostrophes (``'=x`` -> ``=x``, ``''=x`` -> ``'=x``); any other text unchanged."""
    return text[1:] if _GUARDED.match(text) else text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def write_csv(
    header: Sequence[str], rows: Iterable[Sequence[Any]], *, spreadsheet_safe: bool = True, bom: bool = False
) -> str:
    """CSV text (RFC 4180 line ends, ``\r\n``): the header, then one line per row of values as ``cell`` writes them;
    with ``bom``, a UTF-8 byte-order mark first (a file for a spreadsheet).

    With ``\r\n`` as the line end, the csv module quotes a cell holding ``\r`` as well as ``\n``.
    """
    out = io.StringIO()
    if bom:
        out.write(BOM)
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    for row in rows:
        writer.writerow([cell(v, c, spreadsheet_safe=spreadsheet_safe) for c, v in zip(header, row)])
    return out.getvalue()
