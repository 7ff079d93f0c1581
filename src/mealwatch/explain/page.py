"""The interactive attention page: ONE self-contained HTML file (inline CSS, JS and data; no
network, works from file://) with a head view, a model view and, for a classifier, the
explanation of its prediction. The page's parts live in ``static/`` (page.html, page.css, page.js).
"""

from __future__ import annotations

import html
import json
import re
from importlib.resources import files
from pathlib import Path
from typing import Any

import numpy as np

from ..atomic import write_text_atomically
from .explanation import Explanation
from .word_attention import WordAttention

DECIMALS = 3
#: the template's placeholders, filled in one pass
PLACEHOLDER = re.compile(r"\{\{(title|style|script|data)\}\}")


def _asset(name: str) -> str:
    return (files("mealwatch.explain") / "static" / name).read_text(encoding="utf-8")


def _compact(array: np.ndarray) -> str:
    """A nested JSON list of integers, without spaces."""
    if array.ndim == 1:
        return "[" + ",".join(map(str, array.tolist())) + "]"
    return "[" + ",".join(_compact(sub) for sub in array) + "]"


def page_data(
    wa: WordAttention,
    explanation: Explanation | None = None,
    model: str = "",
    initial: dict[str, Any] | None = None,
) -> str:
    """The JSON embedded in the page.

    Attention is stored to 3 decimals as whole thousandths ("attention_milli": 0.125 -> 125),
    which keeps the page of a 300-word text about half the size of written-out decimals.
    """
    scale = 10**DECIMALS
    milli = np.rint(wa.attention.detach().double().numpy() * scale).astype(np.int64)  # (L, H, W, W)
    head = {
        "text": wa.text,
        "model": model,
        "words": wa.words,
        "special": wa.special,
        "layers": wa.layers,
        "heads": wa.heads,
        "include_special": wa.include_special,
        "renormalised": wa.renormalised,
        "truncated": wa.truncated,
        "initial": initial or {},
        "explanation": explanation.to_dict() if explanation is not None else None,
        "attention_scale": scale,
    }
    body = json.dumps(head, ensure_ascii=False)
    return body[:-1] + ',"attention_milli":' + _compact(milli) + "}"


def render_page(
    wa: WordAttention,
    explanation: Explanation | None = None,
    model: str = "",
    initial: dict[str, Any] | None = None,
    nonce: str | None = None,
) -> str:
    """The whole page as one HTML string.

    ``initial`` may set the first view: ``layer`` (int), ``heads`` (list of ints),
    ``focus`` (a word index to pin) and ``threshold`` (lines below it are not drawn).
    ``nonce`` marks the inline style and script for a Content-Security-Policy that names it.
    """
    # "<" only occurs inside JSON strings; escaping it keeps "</script>" in a text from ending the block
    data = page_data(wa, explanation, model, initial).replace("<", "\\u003c")
    title = "mealwatch attention: " + (wa.text if len(wa.text) <= 60 else wa.text[:57] + "...")
    parts = {"title": html.escape(title), "style": _asset("page.css"), "script": _asset("page.js"), "data": data}
    # one pass over the template: a placeholder's text inside a part (a complaint reading "{{data}}") stays text
    page = PLACEHOLDER.sub(lambda m: parts[m.group(1)], _asset("page.html"))
    if nonce is not None:  # a server's Content-Security-Policy allows exactly these two inline blocks
        page = page.replace("<style>", f'<style nonce="{nonce}">', 1).replace(
            "<script>", f'<script nonce="{nonce}">', 1
        )
    return page


def write_page(path: str | Path, wa: WordAttention, explanation: Explanation | None = None, **kwargs: Any) -> Path:
    """Write the page to ``path`` (must end in .html or .htm) and return the path."""
    path = Path(path)
    if path.suffix.lower() not in (".html", ".htm"):
        raise ValueError(f"{path}: the page must be written to a file ending in .html")
    if not path.parent.is_dir():
        raise ValueError(f"{path}: the folder {path.parent} does not exist")
    write_text_atomically(path, render_page(wa, explanation, **kwargs))
    return path
