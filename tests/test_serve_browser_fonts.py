"""Every Indian script the complaints come in renders in Chromium with real glyphs, not boxes ("tofu"): each
grapheme of the complaints of data/languages (and the bundled Hindi) is drawn with the triage page's fonts and the
attention page's, and compared with what the browser draws for a character no font has. setup.sh installs the fonts
(Debian's fonts-noto-core: Noto Sans for each Brahmic script, Noto Nastaliq Urdu and Noto Naskh Arabic)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
from test_serve_browser import browser, model, page, server  # noqa: F401 - a page of the service in Chromium

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[1]
#: language -> its script's name, as the issue lists them (Marathi shares Hindi's Devanagari)
SCRIPTS = {"hi": "Devanagari", "bn": "Bengali", "pa": "Gurmukhi", "gu": "Gujarati", "or": "Odia", "ta": "Tamil",
           "te": "Telugu", "kn": "Kannada", "ml": "Malayalam", "ur": "Urdu (Nastaliq/Naskh)"}  # fmt: skip

FIND_TOFU = """([family, text]) => {
  const canvas = document.createElement("canvas");
  canvas.width = 72; canvas.height = 56;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  const draw = (g) => {
    ctx.clearRect(0, 0, 72, 56);
    ctx.font = `30px ${family}`;
    ctx.fillStyle = "#000";
    ctx.fillText(g, 6, 40);
    return ctx.getImageData(0, 0, 72, 56).data;
  };
  const same = (a, b) => a.every((v, i) => v === b[i]);
  const blank = (d) => d.every((v, i) => i % 4 !== 3 || v === 0);
  const boxes = ["\\u{10FFFD}", "\\u0378", "\\u{E01EF}\\u{10FFFE}"].map(draw);  // characters no font has
  const missing = new Set();
  for (const { segment } of new Intl.Segmenter("und", { granularity: "grapheme" }).segment(text)) {
    if (/^[\\s\\p{Cf}\\p{P}\\p{N}]+$/u.test(segment) || /^[\\x00-\\x7f]+$/.test(segment)) continue;
    const d = draw(segment);
    if (blank(d) || boxes.some((b) => same(d, b))) missing.add(segment);
  }
  return { missing: [...missing], boxInked: !blank(boxes[1]) };
}"""


def complaints_in(language: str) -> str:
    """Each grapheme cluster of the language's test complaints once, space-separated."""
    import regex

    if language == "hi":
        rows = csv.DictReader(open(ROOT / "data" / "complaints" / "test.csv", encoding="utf-8"))
        texts = [r["text"] for r in rows if r["script"] == "deva"]
    else:
        rows = csv.DictReader(open(ROOT / "data" / "languages" / "test.csv", encoding="utf-8"))
        texts = [r["text"] for r in rows if r["language"] == language]
    return " ".join(dict.fromkeys(g for text in texts for g in regex.findall(r"\X", text) if not g.isspace()))


def families(page) -> dict[str, str]:  # noqa: F811
    """The font stacks of the triage page (its body) and of the attention page (explain/static/page.css)."""
    css = (ROOT / "src" / "mealwatch" / "explain" / "static" / "page.css").read_text(encoding="utf-8")
    attention = re.search(r"font-family:\s*([^;]+);", css).group(1)
    return {"triage page": page.evaluate("getComputedStyle(document.body).fontFamily"),
            "attention page": " ".join(attention.split())}  # fmt: skip


@pytest.mark.parametrize("language", list(SCRIPTS))
def test_every_script_renders_without_boxes(page, language):  # noqa: F811
    text = complaints_in(language)
    assert len(text) > 100, f"no complaints in {SCRIPTS[language]} to draw"
    for where, family in families(page).items():
        found = page.evaluate(FIND_TOFU, [family, text])
        assert not found["missing"], f"{SCRIPTS[language]} on the {where}: boxes for {found['missing'][:20]}"


def test_the_box_finder_finds_boxes(page):  # noqa: F811
    """A character no installed font has (an unassigned code point) is reported: the check can fail."""
    found = page.evaluate(FIND_TOFU, [families(page)["triage page"], "க \u0378 \U0010fffd"])
    assert found["missing"] == ["\u0378", "\U0010fffd"]
