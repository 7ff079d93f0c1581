"""The attention page in a real browser (headless Debian Chromium through Playwright), opened from file://."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
import torch
from torch import nn

from mealwatch import Encoder, EncoderConfig
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.pipeline import Pipeline
from mealwatch.explain import explain, word_attention, write_page

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
TEXT = "The meal was served without dal because it was spoiled."
ARTIFACTS = Path(__file__).resolve().parent.parent / "test-artifacts"


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} is missing: the page tests need Debian's chromium (apt-get install chromium); "
            "they do not download a browser"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        yield b
        b.close()


class Opened:
    """A page opened from disk, with its errors and any non-file request recorded (and blocked)."""

    def __init__(self, browser, path: Path):
        self.page = browser.new_page(viewport={"width": 1200, "height": 900})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on(
            "request", lambda r: None if r.url.startswith(("file://", "data:")) else self.requests.append(r.url)
        )
        self.page.route(
            "**/*", lambda route: route.continue_() if route.request.url.startswith("file://") else route.abort()
        )
        self.page.goto(path.as_uri())

    def view(self) -> dict:
        return self.page.evaluate("window.mealwatchView")

    def canvas(self) -> str:
        return self.page.evaluate("document.getElementById('head-canvas').toDataURL()")

    def clean(self) -> None:
        assert self.errors == [], self.errors
        assert self.requests == [], f"the page asked the network for {self.requests}"

    def screenshot(self, tmp_path: Path, name: str) -> None:
        png = self.page.screenshot(path=str(tmp_path / name), full_page=True)
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / name).write_bytes(png)


def config(vocab_size: int, positions: int = 128) -> EncoderConfig:
    return EncoderConfig(
        vocab_size=vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
        max_position_embeddings=positions,
    )


def test_head_view_model_view_and_hover(browser, tokenizer, tmp_path):
    torch.manual_seed(0)
    wa = word_attention(Encoder(config(tokenizer.vocab_size)).eval(), tokenizer, TEXT)
    opened = Opened(browser, write_page(tmp_path / "page.html", wa, model="tiny random"))
    page = opened.page
    view = opened.view()
    assert view["words"] == [
        "[CLS]",
        "The",
        "meal",
        "was@1",
        "served",
        "without",
        "dal",
        "because",
        "it",
        "was@2",
        "spoiled",
        ".",
        "[SEP]",
    ]
    assert view["layer"] == 0 and view["heads"] == [0, 1, 2, 3] and view["lines"] > 0
    before = opened.canvas()

    page.select_option("#layer", "1")
    page.click("#no-heads")
    page.check('input[data-head="2"]')
    view = opened.view()
    assert view["layer"] == 1 and view["heads"] == [2]
    # head 2 of layer 1 draws one line per weight at or above the threshold
    expected = int((wa.attention[1, 2] >= view["threshold"]).sum())
    assert view["lines"] == expected
    assert opened.canvas() != before

    # hovering "it" on the left keeps only its lines
    g, it = view["geometry"], view["words"].index("it")
    box = page.locator("#head-canvas").bounding_box()
    page.mouse.move(box["x"] + g["left"] - 15, box["y"] + g["top"] + it * g["row"] + g["row"] / 2)
    view = opened.view()
    assert view["focus"] == {"side": "q", "index": it}
    assert view["lines"] == int((wa.attention[1, 2, it] >= view["threshold"]).sum())

    # the model view opens a head in the head view
    page.click("#tab-model")
    assert page.locator("#model-grid canvas").count() == 2 * 4
    page.click('#model-grid canvas[data-layer="0"][data-head="3"]')
    assert page.locator("#head-view").is_visible() and not page.locator("#model-view").is_visible()
    view = opened.view()
    assert view["layer"] == 0 and view["heads"] == [3]
    opened.screenshot(tmp_path, "attention-page.png")
    opened.clean()


def test_a_long_text_of_300_words(browser, tokenizer, tmp_path):
    rng = random.Random(0)
    vocabulary = "the rice dal was cold and children got sick after eating food in school today it smelled bad".split()
    text = " ".join(rng.choice(vocabulary) for _ in range(300))
    torch.manual_seed(0)
    encoder = Encoder(config(tokenizer.vocab_size, positions=512)).eval()
    with torch.no_grad():
        for name, weight in encoder.named_parameters():  # sharpen the random attention, as a trained model's is
            if ".attention." in name and weight.dim() == 2:
                weight.mul_(6)
    wa = word_attention(encoder, tokenizer, text)
    assert len(wa.words) == 302
    opened = Opened(browser, write_page(tmp_path / "long.html", wa))
    view = opened.view()
    assert len(view["words"]) == 302 and view["layer"] == 0
    before = opened.canvas()
    # the most a long text draws: every line of layer 1 at the lowest threshold the page allows
    opened.page.select_option("#layer", "1")
    opened.page.fill("#threshold", "0")
    opened.page.dispatch_event("#threshold", "input")
    view = opened.view()
    assert view["layer"] == 1 and view["threshold"] == 0.01
    assert view["lines"] == int((wa.attention[1].double().round(decimals=3) >= 0.01).sum()) > 1000
    assert opened.canvas() != before
    opened.page.click("#tab-model")
    assert opened.page.locator("#model-grid canvas").count() == 8
    opened.clean()


def test_a_classifier_page_shows_the_explanation(browser, tokenizer, tmp_path):
    torch.manual_seed(3)
    network = Classifier(
        Encoder(config(tokenizer.vocab_size)),
        ClassifierConfig(["spoiled_food", "menu_not_followed", "other"], multi_label=True),
    )
    nn.init.normal_(network.head.weight, std=3.0)
    model = Pipeline(network.eval(), tokenizer)
    explanation = explain(model, TEXT, steps=8)
    wa = model.word_attention(TEXT)
    opened = Opened(browser, write_page(tmp_path / "explained.html", wa, explanation, model="tiny classifier"))
    page = opened.page
    assert page.locator("#explanation").is_visible()
    assert page.locator("#ig-words span").all_inner_texts() == explanation.words
    assert page.locator("#rollout-words span").count() == len(explanation.words)
    assert page.locator("#label-tabs button").all_inner_texts() == explanation.predicted
    label = explanation.predicted[-1]
    page.click(f'#label-tabs button[data-label="{label}"]')
    titles = page.locator("#ig-words span").evaluate_all("spans => spans.map(s => +s.title)")
    assert titles == pytest.approx(explanation.attributions[label], abs=1e-4)
    opened.screenshot(tmp_path, "explanation-page.png")
    opened.clean()
