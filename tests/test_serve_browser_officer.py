"""The officer's day (issue 24), in headless Chromium against a live server with accounts on, at a laptop's
1366×768 and a phone's 390×844, in English and in Hindi: log in, paste a day's complaints (one line with a bad
date, one of another district: refused by line, the others saved), upload the district's CSV (its own columns
kept, a Patna row refused by line), work the triage queue (the hospital case first, review reasons in words),
open an alert's complaints, a complaint's detail (record, how sure, why, history), correct its labels (and see
it confirmed), acknowledge the alert, export the CSV (a byte-order mark, local times, the officer's columns), switch
the page's language (kept with the account); and a state officer routes a complaint saved with no district, which
the district officer then sees. Any page error, console error or request leaving this machine fails the test.

With MEALWATCH_SCREENSHOTS=<folder>, a screenshot of every step is written there (else in the test's tmp folder).
"""

from __future__ import annotations

import csv
import io
import os
import re
import time
from pathlib import Path

import pytest
import torch
from test_serve_browser import CHROMIUM_ARGS, CHROMIUM, watched_context  # noqa: F401
from test_serve_api import live_server

from mealwatch import Encoder, EncoderConfig, Tokenizer
from mealwatch.accounts import hash_password
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.data import Dataset, read_splits
from mealwatch.labels import LABELS
from mealwatch.log import open_log
from mealwatch.learning.ngram_training import fit_ngram_channel
from mealwatch.pipeline import Pipeline

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("one_thread")]
PASSWORDS = {"asha": "asha-state-admin", "ravi": "ravi-gaya-officer"}
SIZES = {"laptop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}
#: the day's paste: line 3 has a date no calendar has, line 5 is Patna's (Ravi is Gaya's officer)
PASTE = [
    "Bachche ulti kar rahe the khichdi ke baad | GPS Rampur | 27/05/2025 | Bodh Gaya",
    "दाल में कीड़े थे | GPS Kheri | 2025-05-27 | Bodh Gaya",
    "Rice was half cooked | UMS Belaganj | 31/02/2025 | Belaganj",
    "12 bachche khichdi khane ke baad bimar, ulti aur pet dard, 3 aspatal me bhartee | MS Tekari | 27/05/2025 | Tekari",
    "No eggs on Wednesday | GPS Danapur | 27/05/2025 | Danapur | Patna",
    "Kitchen full of flies | GMS Wazirganj | 26/05/2025 | Wazirganj",
]
UPLOAD = ("Text,School,Block,District,Date,Mobile,Ward,Remarks\r\n"
          "Khane me chhipkali thi,GPS Rampur,Bodh Gaya,Gaya,27/05/2025,98765 43210,7,called twice\r\n"
          "Only rice and salt today,GPS Kheri,Bodh Gaya,Gaya,27/05/2025,,8,\r\n"
          "The cook came drunk,GPS Danapur,Danapur,Patna,27/05/2025,,,\r\n")  # fmt: skip
HINDI = {"queue": "छँटाई सूची", "hospital": "अस्पताल में भर्ती", "saved": "सहेजा गया", "refused": "रोकी गई"}
ENGLISH = {"queue": "Triage queue", "hospital": "admitted to hospital", "saved": "Saved", "refused": "refused"}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    """A tiny random encoder fused at 0.6 with an n-gram channel fitted on 600 bundled complaints: the page's "why"
    then has both parts."""
    train, validation = read_splits()["train"], read_splits()["validation"]
    subset = lambda d, n: Dataset.from_examples(d.examples[:n], d.label_set, d.multi_label)  # noqa: E731
    channel = fit_ngram_channel(subset(train, 600), subset(validation, 150))
    torch.manual_seed(0)
    tokenizer = Tokenizer.from_pretrained()
    config = EncoderConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                           intermediate_size=64)  # fmt: skip
    pipeline = Pipeline(Classifier(Encoder(config), ClassifierConfig(list(LABELS), True)).eval(), tokenizer)
    pipeline.fuse_ngram_channel(channel, 0.6, [0.5] * len(LABELS))
    folder = tmp_path_factory.mktemp("officer") / "model"
    pipeline.save(folder)
    return folder


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    assert CHROMIUM.exists(), f"{CHROMIUM} is missing: apt-get install chromium"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


def server(model_dir, db):
    from mealwatch.serve import create_app

    log = open_log(db)
    log.add_user("asha", hash_password(PASSWORDS["asha"]), "admin", ["*"])
    log.add_user("ravi", hash_password(PASSWORDS["ravi"]), "officer", ["Gaya"])
    log.close()
    return live_server(create_app(model_dir, db, timezone="Asia/Kolkata"))


class Shots:
    """Numbered screenshots of the steps, in MEALWATCH_SCREENSHOTS (else the test's folder)."""

    def __init__(self, folder: Path, prefix: str) -> None:
        self.folder, self.prefix, self.n = folder, prefix, 0
        folder.mkdir(parents=True, exist_ok=True)

    def __call__(self, page, step: str, full: bool = False) -> None:
        self.n += 1
        page.screenshot(path=str(self.folder / f"{self.prefix}-{self.n:02d}-{step}.png"), full_page=full)


def wait_until(condition, seconds: float = 15) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the page did not get there in time"
        time.sleep(0.05)


def fits(page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width, "the page is wider than the screen"


def log_in(context, base: str, name: str):
    page = context.new_page()
    page.goto(base + "/")
    page.wait_for_url(base + "/login")
    page.fill("#name", name)
    page.fill("#password", PASSWORDS[name])
    page.click("#login-btn")
    page.wait_for_url(base + "/")
    page.wait_for_selector("body[data-ready='true']")
    return page


@pytest.mark.parametrize("size", ["laptop", "phone"])
@pytest.mark.parametrize("lang", ["en", "hi"])
def test_the_officers_day(browser, model_dir, tmp_path, size, lang):
    words = HINDI if lang == "hi" else ENGLISH
    shots = Shots(Path(os.environ.get("MEALWATCH_SCREENSHOTS") or tmp_path / "screens"), f"{size}-{lang}")
    viewport = SIZES[size]
    db = tmp_path / "log.db"
    with server(model_dir, db) as port:
        base = f"http://127.0.0.1:{port}"
        # a state officer saved a complaint naming no district last night (the single form without one)
        state_context, state_problems = watched_context(browser)
        asha = log_in(state_context, base, "asha")
        asha.fill("#text", "Khana nahi mila aaj, rasoi band hai")
        asha.click("#classify-btn")
        asha.wait_for_selector("#no-district:not([hidden])")  # warned: district officers will not see it
        unassigned_id = int(re.sub(r"\D", "", asha.text_content("#saved")))

        context, problems = watched_context(browser)
        context.set_extra_http_headers({"Accept-Language": "hi-IN,hi;q=0.9,en;q=0.5" if lang == "hi" else "en-GB,en"})
        page = context.new_page()
        page.set_viewport_size(viewport)
        page.goto(base + "/")
        page.wait_for_url(base + "/login")
        wait_until(lambda: page.text_content("#login-title") == ("लॉग इन" if lang == "hi" else "Log in"))
        shots(page, "login")
        page.fill("#name", "ravi")
        page.fill("#password", PASSWORDS["ravi"])
        page.click("#login-btn")
        page.wait_for_url(base + "/")
        page.wait_for_selector("body[data-ready='true']")
        assert page.evaluate("document.documentElement.lang") == lang
        assert page.text_content("#log-title span") == words["queue"]
        if size == "phone":  # the queue first: its card starts on the first screen, above every form
            top = lambda card: page.evaluate(f"document.querySelector('{card}').getBoundingClientRect().top")  # noqa: E731
            assert top("#log-card") < 300 and top("#log-card") < top("#classify-card")
        fits(page, viewport["width"])

        # 1. paste the day's complaints: the bad date and the Patna line are refused by line, the others saved
        page.fill("#bulk-text", "\n".join(PASTE))
        page.fill("#bulk-district", "Gaya")
        page.select_option("#bulk-channel", "phone")
        page.click("#bulk-btn")
        page.wait_for_selector("#bulk-results:not([hidden])")
        rows = page.locator("#bulk-table tbody tr")
        assert rows.count() == 6
        refused = page.locator("#bulk-table tbody tr.refused").evaluate_all("rows => rows.map(r => r.dataset.line)")
        assert refused == ["3", "5"]
        assert words["refused"] in page.text_content("#bulk-table tr[data-line='3']")
        said = page.text_content("#bulk-table tr[data-line='3']")  # the server's refusal, in the page's language
        assert ("घटना की तारीख़ “31/02/2025”" if lang == "hi" else "incident_date must be a day") in said
        assert "Patna" in page.text_content("#bulk-table tr[data-line='5']")
        page.locator("#bulk-card").scroll_into_view_if_needed()
        fits(page, viewport["width"])
        shots(page, "paste")
        log = open_log(db)
        saved = {c["text"]: c for c in log.list(limit=None).items}
        log.close()
        assert len(saved) == 5  # the state officer's one and four of the six lines
        hospital = saved[PASTE[3].split(" | ")[0]]
        assert (hospital["district"], hospital["incident_at"]) == ("Gaya", "2025-05-26T18:30:00.000000Z")

        # 2. upload the district's file: its Ward and Remarks columns kept, the Patna row refused by its line
        upload = tmp_path / "gaya-27-may.csv"
        upload.write_text(UPLOAD, encoding="utf-8")
        page.set_input_files("#csv-file", str(upload))
        page.click("#csv-btn")
        page.wait_for_selector("#csv-results:not([hidden])")
        assert page.locator("#csv-table tbody tr").count() == 3
        assert page.locator("#csv-table tbody tr.refused").evaluate_all("r => r.map(x => x.dataset.line)") == ["4"]
        page.locator("#csv-results").scroll_into_view_if_needed()
        fits(page, viewport["width"])
        shots(page, "upload")
        with page.expect_download() as download:
            page.click("#csv-download")
        data = Path(download.value.path()).read_bytes()
        assert data.startswith(b"\xef\xbb\xbf")  # a byte-order mark: Excel reads it as UTF-8
        results = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))
        assert [r["line"] for r in results] == ["2", "3"] and results[0]["Ward"] == "7"
        assert (results[0]["incident_date"], results[0]["district"]) == ("2025-05-27", "Gaya")

        # 3. the queue: the hospital case first, its reasons (if any) in words, none of the state officer's
        page.evaluate("window.scrollTo(0, 0)")
        first = page.locator("#log-list > li").first
        wait_until(lambda: first.get_attribute("data-id") == str(hospital["id"]))
        assert words["hospital"] in first.text_content()
        assert page.locator(f"#log-list li[data-id='{unassigned_id}']").count() == 0
        for item in page.locator("#log-list > li .reasons li").all():
            assert "threshold" not in item.text_content()  # plain words, not the model's numbers
        fits(page, viewport["width"])
        shots(page, "queue")

        # 4. the alert opens its complaint; the complaint's detail: record, why (both parts), history
        alert_item = page.locator("#alert-list li").first
        alert_item.wait_for()
        alert_item.locator("button.open-alert").click()
        page.wait_for_selector(f"#detail-body li[data-id='{hospital['id']}']")
        shots(page, "alert")
        page.locator(f"#detail-body li[data-id='{hospital['id']}'] button[data-open]").click()
        page.wait_for_selector("#detail-body .why mark")
        marks = page.locator("#detail-body .why mark")
        assert marks.count() >= 8
        title = marks.first.get_attribute("title")
        assert ("एनकोडर" if lang == "hi" else "encoder") in title  # each word says which part its colour comes from
        assert page.locator("#detail-body table.record").count() >= 1
        assert "हिन्दी" in page.text_content("#detail-body table.record")  # romanised Hindi, named in its own script
        fits(page, viewport["width"])
        shots(page, "detail")

        # 5. correct its labels in the detail: confirmed in words, recorded in its history
        editor = page.locator("#detail-body .editor")
        for box in editor.locator("input[data-label]").all():
            box.set_checked(box.get_attribute("value") == "illness")
        editor.locator(".save-correction").click()
        page.wait_for_selector("#detail-body p.done")  # said where the officer looks: at the top of the detail
        done = page.text_content("#detail-body p.done")
        assert words["saved"] in done and f"#{hospital['id']}" in done
        page.wait_for_selector("#detail-body .history li:not(.muted)")
        shots(page, "corrected")
        page.click("#detail-close")
        log = open_log(db)
        assert log.get(hospital["id"])["corrected_labels"] == ["illness"]
        assert log.get(hospital["id"])["corrected_by"] == "ravi"
        log.close()

        # 6. acknowledge the alert: the banner goes
        page.locator("#alert-list li button[data-alert]").first.click()
        page.wait_for_selector("#alert-banner", state="hidden")
        shots(page, "acknowledged")

        # 7. export: the queue's file, ready for a spreadsheet
        href = page.get_attribute("#export", "href")
        exported = page.request.get(base + href)
        assert exported.status == 200 and exported.body().startswith(b"\xef\xbb\xbf")
        rows = list(csv.DictReader(io.StringIO(exported.body().decode("utf-8-sig"))))
        by_text = {r["text"]: r for r in rows}
        assert len(rows) == 6 and by_text["Khane me chhipkali thi"]["Ward"] == "7"
        assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", rows[0]["created_at"])
        assert by_text[PASTE[3].split(" | ")[0]]["incident_date"] == "2025-05-27"

        # 8. the other language, kept with the account
        other = "en" if lang == "hi" else "hi"
        page.click(f"button.lang[data-lang='{other}']")
        wait_until(lambda: page.evaluate("document.documentElement.lang") == other)
        assert page.text_content("#log-title span") == (ENGLISH if other == "en" else HINDI)["queue"]
        wait_until(lambda: page.request.get(base + "/api/preferences").json()["language"] == other)
        fits(page, viewport["width"])
        shots(page, "language")

        # 9. the state officer routes last night's complaint to Gaya; the district officer now sees it
        asha.reload()
        asha.wait_for_selector("body[data-ready='true']")
        asha.check("#f-unassigned")
        asha.locator(f"#log-list li[data-id='{unassigned_id}'] button[data-open]").click()
        asha.locator("#detail-body .editor .move-district").fill("Gaya")
        asha.locator("#detail-body .editor .save-correction").click()
        asha.wait_for_selector("#log-done:not([hidden])")
        asha.click("#detail-close")
        page.reload()
        page.wait_for_selector(f"#log-list li[data-id='{unassigned_id}']")
        assert page.evaluate("document.documentElement.lang") == other  # the choice came back from the account
        shots(page, "routed")
        state_context.close()
        context.close()
    assert not problems, "\n".join(problems)
    assert not state_problems, "\n".join(state_problems)
