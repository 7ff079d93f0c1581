"""The page in headless Chromium against a live server on 127.0.0.1: classify, upload and download a
CSV, change a status. Any page error, console error or request leaving this machine fails the test."""

from __future__ import annotations

import csv
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import pytest
import torch

from test_serve_api import live_server

from mealwatch import Encoder, EncoderConfig, Tokenizer
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.pipeline import Pipeline
from mealwatch.labels import LABELS
from mealwatch.log import open_log

pytestmark = pytest.mark.browser

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LOCAL_HOSTS = {"127.0.0.1"}


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> tuple[Path, Classifier]:
    torch.manual_seed(0)
    tokenizer = Tokenizer.from_pretrained()
    config = EncoderConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
    )
    folder = tmp_path_factory.mktemp("browser") / "run"
    Pipeline(Classifier(Encoder(config), ClassifierConfig(labels=list(LABELS), multi_label=True)), tokenizer).save(
        folder
    )
    return folder, Pipeline.from_folder(folder)


@pytest.fixture(scope="module")
def server(model, tmp_path_factory):
    """The app under uvicorn in a background thread on a free loopback port; yields (base url, db path)."""
    yield from serve(model, tmp_path_factory.mktemp("browser-db") / "log.db")


def serve(model, db: Path, **options):
    """The app under uvicorn in a background thread on a free loopback port; yields (base url, db path)."""
    from mealwatch.serve import create_app

    with live_server(create_app(model[0], db, **options)) as port:
        yield f"http://127.0.0.1:{port}", db


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (apt-get install chromium) to run the browser tests"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    """A fresh page that records page and console errors and blocks every request not to 127.0.0.1."""
    context, problems = watched_context(browser)
    p = context.new_page()
    p.goto(server[0] + "/")
    p.locator("#f-label option").nth(1).wait_for(
        state="attached"
    )  # the labels have loaded (no eval: the page's CSP forbids it)
    p.locator("#log-list li").first.wait_for(state="attached")
    yield p
    context.close()
    assert not problems, "\n".join(problems)


def watched_context(browser):
    """A browser context whose page and console errors, and requests leaving 127.0.0.1, go to ``problems``."""
    context = browser.new_context(viewport={"width": 1280, "height": 800}, accept_downloads=True)
    problems: list[str] = []

    def only_local(route):
        url = urlparse(route.request.url)
        if url.scheme in ("data", "blob") or url.hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            problems.append(f"blocked a request to {route.request.url}")
            route.abort()

    context.route("**/*", only_local)

    def watch(p) -> None:
        p.on("pageerror", lambda e: problems.append(f"page error on {p.url}: {e}"))
        p.on(
            "console",
            lambda m: problems.append(f"console {m.type} on {p.url}: {m.text}") if m.type == "error" else None,
        )

    context.on("page", watch)  # every page of the context, the attention view's tab too
    return context, problems


def test_classify_on_the_page(page, model, server):
    text = "Worms were found in the rice and two children vomited after lunch"
    page.fill("#text", text)
    page.fill("#school", "GPS Rampur")
    page.click("#classify-btn")
    page.wait_for_selector("#result:not([hidden])")
    expected = model[1].predict([text])[0]
    shown = page.locator("#labels li.on").evaluate_all("items => items.map(li => li.dataset.label)")
    assert sorted(shown) == sorted(expected.labels)
    assert page.locator("#labels li").count() == len(LABELS)
    assert page.text_content("#urgency") == f"{expected.urgency} urgency"
    assert page.locator("#words mark").count() == len(model[1].tokenizer([text]).words[0])
    assert page.text_content("#words") == text
    saved = page.text_content("#saved")
    assert saved.startswith("saved as #")
    page.wait_for_selector(f"#log-list li[data-id='{saved.removeprefix('saved as #')}']")
    # the attention view opens in a new tab, from the same server
    with page.context.expect_page() as opened:
        page.click("#attention-link")
    view = opened.value
    view.wait_for_load_state()
    assert "Worms" in view.content()
    view.close()


def test_upload_and_download_a_csv(page, model, server, tmp_path):
    texts = ["The dal was watery, again", "No meal for three days", "A lizard in the sabzi"]
    upload = tmp_path / "week.csv"
    with open(upload, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["text", "school"])
        w.writerows([[t, f"S{i}"] for i, t in enumerate(texts)])
    page.set_input_files("#csv-file", str(upload))
    page.click("#csv-btn")
    page.wait_for_selector("#csv-results:not([hidden])")
    assert page.locator("#csv-table tbody tr").count() == 3
    with page.expect_download() as download:
        page.click("#csv-download")
    assert download.value.suggested_filename == "week-classified.csv"
    path = tmp_path / "down.csv"
    download.value.save_as(path)
    rows = list(csv.DictReader(open(path, encoding="utf-8")))
    assert [r["text"] for r in rows] == texts and [r["school"] for r in rows] == ["S0", "S1", "S2"]
    for row, expected in zip(rows, model[1].predict(texts)):
        assert row["labels"].split(";") == expected.labels and row["urgency"] == expected.urgency
        assert float(row["p_illness"]) == pytest.approx(expected.probabilities["illness"], abs=1e-5)
    log = open_log(server[1])  # what the server saved, read through the log's interface
    stored = {c["text"]: c["school"] for c in log.list(limit=None).items}
    log.close()
    assert all(stored.get(t) == f"S{i}" for i, t in enumerate(texts))
    for row in rows:
        assert stored and int(row["id"]) > 0


def test_change_a_status(page, server):
    page.fill("#text", "The cook did not come today")
    page.click("#classify-btn")
    page.wait_for_selector("#result:not([hidden])")
    cid = page.text_content("#saved").removeprefix("saved as #")
    item = page.locator(f"#log-list li[data-id='{cid}']")
    item.locator("button[data-to='in_progress']").click()
    page.wait_for_selector(f"#log-list li[data-id='{cid}'] .state.in_progress")
    log = open_log(server[1])
    saved = log.get(int(cid))
    log.close()
    status, history = saved["status"], [(h["old_status"], h["new_status"]) for h in saved["history"]]
    assert status == "in_progress" and history == [("new", "in_progress")]
    # the status filter shows it among the complaints in progress
    page.select_option("#f-status", "in_progress")
    deadline = time.monotonic() + 10
    while page.locator("#log-list .state:not(.in_progress)").count() and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert page.locator("#log-list .state:not(.in_progress)").count() == 0
    assert page.locator(f"#log-list li[data-id='{cid}']").count() == 1


def test_the_attention_page_fits_a_phone_screen(page, server):
    """The explanation and the controls fit a phone's width; the head view's canvas scrolls inside its own box."""
    page.set_viewport_size({"width": 390, "height": 844})
    text = "Worms were found in the rice and two children vomited"
    page.goto(f"{server[0]}/attention?text={text}&explain=true")
    page.wait_for_selector("#explanation:not([hidden])")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


def test_fits_a_phone_screen(page):
    page.set_viewport_size({"width": 390, "height": 844})
    page.fill("#text", "Rotten eggs were served and the kitchen smells")
    page.click("#classify-btn")
    page.wait_for_selector("#result:not([hidden])")
    page.wait_for_selector("#chart svg")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390


@pytest.fixture
def other_site(tmp_path):
    """A page of another origin (127.0.0.1 on another port) that posts forms to the service as soon as it opens."""
    import http.server

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(tmp_path), **kwargs)

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield tmp_path, f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_a_form_from_another_site_saves_nothing(browser, server, other_site):
    folder, origin = other_site
    (folder / "attack.html").write_text(
        f"""<!doctype html><html><body>
<form id="csv" method="post" enctype="multipart/form-data" action="{server[0]}/api/classify/csv" target="a">
  <input type="hidden" name="save" value="true"></form>
<iframe name="a"></iframe>
<script>
const f = document.getElementById("csv");
const input = document.createElement("input");
input.type = "file"; input.name = "file";
const data = new DataTransfer();
data.items.add(new File(["text\\nplanted by another site\\n"], "x.csv", {{type: "text/csv"}}));
input.files = data.files;
f.append(input);
f.submit();
fetch("{server[0]}/api/classify", {{method: "POST", mode: "no-cors",
  body: JSON.stringify({{text: "planted", save: true}}), headers: {{"Content-Type": "text/plain"}}}});
</script></body></html>"""
    )
    before = open_log(server[1])
    count = before.count()
    before.close()
    context = browser.new_context()
    page = context.new_page()
    with page.expect_response(lambda r: r.url.endswith("/api/classify/csv")) as answer:
        page.goto(origin + "/attack.html")
    assert answer.value.status == 403
    page.wait_for_timeout(500)
    context.close()
    log = open_log(server[1])
    assert log.count() == count and not [c for c in log.list(limit=None).items if "planted" in c["text"]]
    log.close()


def test_direction_controls_in_a_text_do_not_flip_the_log(page, server):
    text = "invoice for rice \u202egpj.exe\u202c paid"
    page.fill("#text", text)
    page.click("#classify-btn")
    page.wait_for_selector("#result:not([hidden])")
    cid = page.text_content("#saved").removeprefix("saved as #")
    shown = page.locator(f"#log-list li[data-id='{cid}'] p.text")
    shown.wait_for()
    assert shown.text_content() == "invoice for rice gpj.exe paid"  # the controls are not shown
    assert shown.get_attribute("dir") == "auto"
    assert shown.evaluate("e => getComputedStyle(e).unicodeBidi") == "isolate"
    assert page.text_content("#words") == "invoice for rice gpj.exe paid"
    log = open_log(server[1])
    assert log.get(int(cid))["text"] == text  # the log keeps the text whole
    log.close()


def test_the_api_docs_page_lists_the_endpoints(page, server):
    page.goto(server[0] + "/docs")
    page.wait_for_selector("#endpoints section")
    titles = page.locator("#endpoints h2").all_text_contents()
    assert "POST /api/classify" in titles and "PATCH /api/complaints/{complaint_id}" in titles


def test_pages_through_the_log_by_cursor_under_the_csp(page, server):
    """Older/newer follow next_cursor (keyset paging) under the page's Content-Security-Policy: any violation is a
    console error, which fails the test."""
    from mealwatch.log import NewComplaint

    log = open_log(server[1])
    ids = log.add_many(
        [NewComplaint(f"paging {i}", ["other"], {"other": 0.9}, "low", "m1", "Cursor Paging School") for i in range(27)]
    )
    log.close()
    newest_first = [str(i) for i in reversed(ids)]
    shown = lambda: page.locator("#log-list li[data-id]").evaluate_all("items => items.map(i => i.dataset.id)")  # noqa: E731
    assert "script-src 'self'" in page.request.get(server[0] + "/").headers["content-security-policy"]
    page.fill("#f-school", "cursor paging")
    wait_for(lambda: page.text_content("#page-info") == "1–25 of 27")
    assert shown() == newest_first[:25] and page.is_disabled("#prev") and not page.is_disabled("#next")
    with page.expect_request(lambda r: "cursor=" in r.url and "offset" not in r.url):
        page.click("#next")
    wait_for(lambda: page.text_content("#page-info") == "26–27 of 27")
    assert shown() == newest_first[25:] and page.is_disabled("#next") and not page.is_disabled("#prev")
    page.click("#prev")
    wait_for(lambda: page.text_content("#page-info") == "1–25 of 27")
    assert shown() == newest_first[:25]


def wait_for(condition, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the page did not get there in time"
        time.sleep(0.05)  # the page runs in the browser's own process meanwhile


# --- with accounts: log in on the page, then the flows above -------------------------------------------


@pytest.fixture(scope="module")
def accounts_server(model, tmp_path_factory):
    from mealwatch.accounts import hash_password

    db = tmp_path_factory.mktemp("browser-accounts") / "log.db"
    log = open_log(db)
    log.add_user("ravi", hash_password("ravi-officer-pass"), "officer", ["Gaya"])
    log.close()
    yield from serve(model, db)  # accounts are on: the log holds a user


def test_log_in_then_classify_upload_change_and_log_out(browser, accounts_server, tmp_path):
    base, db = accounts_server
    context, problems = watched_context(browser)
    page = context.new_page()
    page.goto(base + "/")
    assert page.url == base + "/login"  # nobody signed in: the login page first
    page.fill("#name", "ravi")
    page.fill("#password", "wrong password")
    page.click("#login-btn")
    page.wait_for_selector("#login-error:not([hidden])")
    assert page.text_content("#login-error") == "wrong name or password"
    refused = "Failed to load resource: the server responded with a status of 401 (Unauthorized)"
    assert problems == [f"console error on {base}/login: {refused}"]  # the browser's own note of the 401: expected
    problems.clear()
    page.fill("#password", "ravi-officer-pass")
    page.click("#login-btn")
    page.wait_for_url(base + "/")
    page.wait_for_selector("#account:not([hidden])")
    assert page.text_content("#account span") == "ravi · officer · Gaya"
    cookie = next(c for c in context.cookies() if c["name"] == "mealwatch_session")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    # classify and save: the complaint lands in the officer's district
    page.fill("#text", "The cook did not come today")
    page.click("#classify-btn")
    page.wait_for_selector("#result:not([hidden])")
    cid = int(page.text_content("#saved").removeprefix("saved as #"))
    # a status change from the page carries the session's CSRF token
    page.locator(f"#log-list li[data-id='{cid}'] button[data-to='in_progress']").click()
    page.wait_for_selector(f"#log-list li[data-id='{cid}'] .state.in_progress")
    # a multipart upload too
    upload = tmp_path / "day.csv"
    upload.write_text("text\nNo eggs again\n", encoding="utf-8")
    page.check("#csv-save")
    page.set_input_files("#csv-file", str(upload))
    page.click("#csv-btn")
    page.wait_for_selector("#csv-results:not([hidden])")
    log = open_log(db)
    saved = log.get(cid)
    changes = log.changes(cid)
    uploaded = [c for c in log.list(limit=None).items if c["text"] == "No eggs again"]
    actions = [e["action"] for e in reversed(log.audit_entries(limit=None).items)]
    log.close()
    assert (saved["district"], saved["status"]) == ("Gaya", "in_progress")
    assert [(c["field"], c["by"]) for c in changes] == [("status", "ravi")]
    assert [c["district"] for c in uploaded] == ["Gaya"]
    assert actions == ["login_failed", "login", "save", "change", "save"]
    page.click("#logout")
    page.wait_for_url(base + "/login")
    assert page.request.get(base + "/api/complaints").status == 401
    context.close()
    assert not problems, "\n".join(problems)
