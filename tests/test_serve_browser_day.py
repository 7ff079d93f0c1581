"""A day at the district office, in headless Chromium against a live server (time zone Asia/Kolkata): paste 20
complaints with schools and dates, see the outbreak alert, acknowledge it, correct two labels, export the
training file, retrain a tiny model on it with `mealwatch train --add`, and see the corrected complaints now
predicted right. Any page error, console error or request leaving this machine fails the test."""

from __future__ import annotations

import csv
import time

import pytest
import torch
from test_serve_browser import CHROMIUM, browser, page, serve  # noqa: F401 - the browser and a watched page

from mealwatch import Encoder, EncoderConfig, Tokenizer
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.cli import main
from mealwatch.labels import LABELS
from mealwatch.log import open_log
from mealwatch.pipeline import Pipeline

pytestmark = [pytest.mark.browser, pytest.mark.usefixtures("one_thread")]

SCHOOLS = ["GPS Rampur", "GPS Kheri", "UMS Belaganj", "MS Tekari", "GMS Wazirganj"]
#: the day's complaints; the fourth mentions a hospital admission, which raises an alert at once
DAY = [
    "Khichdi me keede the", "Dal was watery and tasteless", "No meal today, gas over",
    "Do bachche aspatal me bhartee hain khana khane ke baad", "The cook came drunk again", "Rice was half cooked",
    "Eggs not given on Wednesday", "Kitchen full of flies", "Bachon ko kam khana mila", "Hair found in the sabzi",
    "Food smelled rotten", "Meal served at 3 pm", "The plates were not washed", "Only rice and salt today",
    "Headmaster took the grain home", "Water tank is dirty", "A stone in the rice", "Sabzi had no vegetables",
    "The roti was burnt", "Thank you, food was good today",
]  # fmt: skip
#: the two corrections: (line of DAY, its true label)
CORRECTIONS = [(3, "illness"), (4, "staff_misconduct")]
#: the tiny training data the model is retrained on (the corrections are added to it); its validation split
#: holds complaints of the corrected kinds, so the epoch kept is one that learnt them
BASE = [
    ("Worms were found in the rice", "foreign_object"), ("A lizard fell into the dal", "foreign_object"),
    ("No meal was served today at the school", "meal_not_served"),
    ("The kitchen is closed, no food", "meal_not_served"),
    ("Thank you, the food is better now", "other"), ("When will the new menu be put up?", "other"),
    ("Children fell sick and vomited after lunch", "illness"), ("The cook shouted at the children", "staff_misconduct"),
]  # fmt: skip
VALIDATION = [
    ("Teen bachche aspatal me bhartee hain khana khane ke baad", "illness"),
    ("The cook came drunk to school today", "staff_misconduct"),
    ("Insects were in the khichdi", "foreign_object"), ("No lunch given today", "meal_not_served"),
    ("The food is tasty, thank you", "other"),
]  # fmt: skip


def tiny_random_model(folder):
    torch.manual_seed(0)
    tokenizer = Tokenizer.from_pretrained()
    config = EncoderConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2,
                           num_attention_heads=4, intermediate_size=64)  # fmt: skip
    Pipeline(Classifier(Encoder(config), ClassifierConfig(labels=list(LABELS), multi_label=True)), tokenizer).save(
        folder
    )
    return Pipeline.from_folder(folder)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("day")
    model = tiny_random_model(root / "model")
    for url, db in serve((root / "model",), root / "log.db", timezone="Asia/Kolkata"):
        yield url, db, model


def wait_for_text(view, selector: str, text: str, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while view.text_content(selector) != text:
        assert time.monotonic() < deadline, f"{selector} shows {view.text_content(selector)!r}, not {text!r}"
        view.wait_for_timeout(50)


def write_rows(path, rows) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["text", "labels"])
        w.writerows(rows)


def test_a_day_at_the_district_office(page, server, tiny_encoder_dir, tmp_path, capsys):  # noqa: F811
    _, db, model = server
    assert CHROMIUM.exists()
    # 1. paste the day's 20 complaints, each with its school and incident date; block and district for all
    lines = [f"{text} | {SCHOOLS[i % 5]} | 2025-03-0{1 + i % 2}" for i, text in enumerate(DAY)]
    page.fill("#bulk-text", "\n".join(lines))
    page.fill("#bulk-block", "Bodh Gaya")
    page.fill("#bulk-district", "Gaya")
    page.select_option("#bulk-channel", "phone")
    page.click("#bulk-btn")
    page.wait_for_selector("#bulk-done:not([hidden])")
    assert page.text_content("#bulk-done") == "20 complaints classified and saved"
    log = open_log(db)
    saved = {c["text"]: c for c in log.list(limit=None).items}
    assert len(saved) == 20 and {c["block"] for c in saved.values()} == {"Bodh Gaya"}
    hospital = saved[DAY[3]]
    assert (hospital["school"], hospital["incident_at"], hospital["channel"]) == (
        "MS Tekari", "2025-03-01T18:30:00.000000Z", "phone")  # midnight of 2 March in Kolkata  # fmt: skip

    # 2. the alert is on the banner at once, its time shown in Kolkata's zone
    [alert] = [a for a in log.list_alerts().items if a["rule"] == "death_or_hospital"]
    item = page.locator(f"#alert-list li[data-alert-id='{alert['id']}']")
    item.wait_for()
    assert page.locator("#alert-banner").is_visible()
    assert "a death or a hospital admission reported at MS Tekari" in item.text_content()
    assert "02/03/2025 ·" in item.text_content() and f"#{hospital['id']}" in item.text_content()  # a day: no 00:00

    # 3. acknowledge it: it leaves the banner and the log says who
    page.fill("#officer", "DPO Gaya")
    page.dispatch_event("#officer", "change")
    item.locator("button[data-alert]").click()
    item.wait_for(state="detached")
    assert log.get_alert(alert["id"])["status"] == "acknowledged"
    assert log.get_alert(alert["id"])["acknowledged_by"] == "DPO Gaya"

    # 4. correct two labels the model got wrong
    for line, label in CORRECTIONS:
        c = saved[DAY[line]]
        assert label not in model.predict([c["text"]])[0].labels  # the model is wrong about it today
        page.fill("#f-school", c["school"].lower()[-5:])  # a partial name, any case
        wait_for_text(page, "#page-info", "1–4 of 4")  # the list shows only that school's four complaints
        row = page.locator(f"#log-list li[data-id='{c['id']}']")
        row.locator("button[data-correct]").click()
        for box in row.locator(".editor input[data-label]").all():
            box.set_checked(box.get_attribute("value") == label)
        row.locator(".save-correction").click()
        page.locator(f"#log-list li[data-id='{c['id']}'] .chip.corrected").wait_for()
        stored = log.get(c["id"])
        assert (stored["corrected_labels"], stored["corrected_by"]) == ([label], "DPO Gaya")
        assert stored["labels"] == c["labels"]  # the prediction is kept beside the correction
    log.close()

    # 5. export the training file: only the two corrected complaints
    corrected = tmp_path / "corrected.csv"
    assert main(["export-training", "--db", str(db), "--out", str(corrected)]) == 0
    rows = list(csv.DictReader(open(corrected, encoding="utf-8")))
    assert rows == [{"text": DAY[line], "labels": label} for line, label in CORRECTIONS]

    # 6. retrain a tiny model on the bundled-style data plus the corrections
    base, validation, run = tmp_path / "train.csv", tmp_path / "validation.csv", tmp_path / "retrained"
    write_rows(base, BASE)
    write_rows(validation, VALIDATION)
    capsys.readouterr()
    args = ["train", "--data", str(base), "--validation", str(validation), "--add", str(corrected),
            "--encoder", str(tiny_encoder_dir), "--labels", ",".join(LABELS), "--epochs", "30",
            "--patience", "30", "--lr", "3e-3", "--batch-size", "4", "--seed", "0", "--out", str(run),
            "--quiet"]  # fmt: skip
    assert main(args) == 0
    assert "Corrections from" in capsys.readouterr().out

    # 7. the corrected complaints are now predicted right
    retrained = Pipeline.from_folder(run)
    for (line, label), prediction in zip(CORRECTIONS, retrained.predict([DAY[line] for line, _ in CORRECTIONS])):
        assert prediction.labels == [label], (DAY[line], prediction.probabilities)
