"""The HTTP API with FastAPI's TestClient over a tiny random model: answers match the classifier,
the log filters, pages, exports and counts correctly, and every bad input is a clear 4xx JSON error."""

from __future__ import annotations

import contextlib
import csv
import io
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import torch
from fastapi.testclient import TestClient
from log_backends import backdate

from mealwatch import Encoder, EncoderConfig, Tokenizer
from mealwatch.classifier import Classifier, ClassifierConfig
from mealwatch.pipeline import Pipeline
from mealwatch.explain import explain
from mealwatch.labels import LABELS
from mealwatch.log import SCHEMA_VERSION
from mealwatch.serve import Predictor, create_app

TEXTS = [
    "Worms were found in the rice and two children vomited.",
    "The dal was watery and tasteless again today.",
    "No meal for three days, the gas cylinder is empty",
]


def local_client(app, **kwargs) -> TestClient:
    """A TestClient addressed to 127.0.0.1 (the service answers to its loopback names only)."""
    return TestClient(app, base_url="http://127.0.0.1", **kwargs)


@contextlib.contextmanager
def live_server(app) -> Iterator[int]:
    """``app`` under uvicorn in a background thread on a free loopback port; yields the port."""
    import uvicorn

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "the test server did not start"
            time.sleep(0.05)
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def post_classify_raw(conn: socket.socket, body: bytes) -> None:
    """Send ``POST /api/classify`` with a JSON ``body`` over an open connection, without waiting for the answer
    (a test then hangs up, as a client that goes away does)."""
    conn.sendall(
        b"POST /api/classify HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )


def tiny_classifier(seed: int) -> Pipeline:
    torch.manual_seed(seed)
    tokenizer = Tokenizer.from_pretrained()
    config = EncoderConfig(
        vocab_size=tokenizer.vocab_size,
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=64,
    )
    return Pipeline(
        Classifier(Encoder(config), ClassifierConfig(labels=list(LABELS), multi_label=True)).eval(), tokenizer
    )


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("models") / "run-a"
    tiny_classifier(0).save(folder)
    return folder


@pytest.fixture(scope="module")
def classifier(model_dir):
    return Pipeline.from_folder(model_dir)


@pytest.fixture(scope="module")
def predictor(model_dir):
    p = Predictor.load(model_dir)
    yield p
    p.close()


@pytest.fixture
def client(predictor, tmp_path):
    return local_client(create_app(db_path=tmp_path / "log.db", predictor=predictor))


@pytest.fixture
def log_client(predictor, log_backend):
    """A client whose log is a fresh SQLite file or PostgreSQL database (see conftest.py); yields (client, db)."""
    with local_client(create_app(db_path=log_backend.db, predictor=predictor)) as client:
        yield client, log_backend.db


def post_csv(client, content: bytes, name="upload.csv", save=False, fmt="json"):
    return client.post(
        f"/api/classify/csv?format={fmt}", files={"file": (name, content, "text/csv")}, data={"save": str(save).lower()}
    )


def assert_same_prediction(answer: dict, expected) -> None:
    assert answer["labels"] == expected.labels
    assert answer["urgency"] == expected.urgency
    assert answer["probabilities"].keys() == expected.probabilities.keys()
    for label, p in expected.probabilities.items():
        assert answer["probabilities"][label] == pytest.approx(p, abs=1e-5)


# --- classification -------------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["grad", "none"])
def test_classify_matches_classifier_predict(client, classifier, method):
    for text, expected in zip(TEXTS, classifier.predict(TEXTS)):
        r = client.post("/api/classify", json={"text": text, "explain": method})
        assert r.status_code == 200, r.text
        body = r.json()
        assert_same_prediction(body, expected)
        assert body["id"] is None and body["model_version"].startswith("run-a-")
        assert (body["importance"] is None) == (method == "none")


def test_importance_is_computed_only_when_asked(client, classifier):
    plain = client.post("/api/classify", json={"text": TEXTS[0]}).json()
    assert plain["importance"] is None  # the default: none
    asked = client.post("/api/classify", json={"text": TEXTS[0], "explain": "grad"}).json()
    assert asked["importance"]["method"] == "grad"
    assert [w["word"] for w in asked["importance"]["words"]] == classifier.tokenizer([TEXTS[0]]).words[0]
    assert asked["probabilities"] == pytest.approx(plain["probabilities"], abs=1e-6)


@pytest.mark.parametrize("method", ["none", "grad", "ig"])
def test_a_text_longer_than_the_model_reads_is_flagged(client, method):
    long_text = " ".join(["worms were found in the rice"] * 30)  # 180 words: over 128 word pieces
    body = client.post("/api/classify", json={"text": long_text, "explain": method, "steps": 4}).json()
    assert body["truncated"] is True and body["text"] == long_text
    assert (
        client.post("/api/classify", json={"text": TEXTS[0], "explain": method, "steps": 4}).json()["truncated"]
        is False
    )
    batch = client.post("/api/classify/batch", json={"texts": [TEXTS[1], long_text], "explain": method}).json()
    assert [r["truncated"] for r in batch["results"]] == [False, True]


def test_grad_importance_is_the_directional_derivative_per_word(client, classifier):
    """A word's score is dz/dε of the label's logit z(x_w + ε (x_w − pad)) at ε = 0: checked by central differences."""
    text = TEXTS[0]
    imp = client.post("/api/classify", json={"text": text, "explain": "grad"}).json()["importance"]
    batch = classifier.tokenizer([text])
    assert [w["word"] for w in imp["words"]] == batch.words[0]
    assert [text[w["start"] : w["end"]] for w in imp["words"]] == batch.words[0]
    embed = classifier.encoder.embeddings.word
    with torch.no_grad():
        x = embed(batch.input_ids)  # (1, T, H)
        pad = embed.weight[classifier.tokenizer.pad_token_id]  # (H,)
    assert len(imp["scores"]) >= 2  # several predicted labels: one batched backward pass serves them all

    def prob(k: int, eps: float, word: int) -> float:
        on = torch.tensor([w == word for w in batch.word_ids[0]])[None, :, None]  # (1, T, 1)
        moved = torch.where(on, x + eps * (x - pad), x)
        with torch.no_grad():
            logits = classifier.model(inputs_embeds=moved, attention_mask=batch.attention_mask).logits
        return float(logits[0, k])

    eps = 0.05
    for label, scores in imp["scores"].items():
        k = classifier.labels.index(label)
        numeric = [(prob(k, eps, w) - prob(k, -eps, w)) / (2 * eps) for w in range(len(scores))]
        assert scores == pytest.approx(numeric, abs=2e-4, rel=0.05), label
        assert max(map(abs, numeric)) > 1e-4  # the check is not vacuous


def test_integrated_gradients_on_request_match_explain(client, classifier):
    text = TEXTS[1]
    body = client.post("/api/classify", json={"text": text, "explain": "ig", "steps": 6}).json()
    expected = explain(classifier, text, steps=6)
    assert body["labels"] == expected.labels
    assert body["importance"]["method"] == "ig" and body["importance"]["steps"] == 6
    for label, values in expected.attributions.items():
        assert body["importance"]["scores"][label] == pytest.approx(values, abs=1e-4)
    assert body["importance"]["delta"].keys() == expected.delta.keys()


def test_batch_keeps_order_and_matches_predict(client, classifier):
    texts = TEXTS * 3 + ["short", "a much longer complaint about the cook who did not come to school at all today"]
    r = client.post("/api/classify/batch", json={"texts": texts})
    assert r.status_code == 200
    body = r.json()
    assert body["count"] == len(texts)
    assert [x["text"] for x in body["results"]] == texts
    for answer, expected in zip(body["results"], classifier.predict(texts)):
        assert_same_prediction(answer, expected)
        assert answer["importance"] is None
    items = [{"text": t, "school": f"S{i}"} for i, t in enumerate(TEXTS)]
    saved = client.post("/api/classify/batch", json={"items": items, "save": True, "explain": "grad"}).json()["results"]
    assert [x["school"] for x in saved] == ["S0", "S1", "S2"]
    assert all(x["importance"]["method"] == "grad" for x in saved)
    for answer in saved:  # batched (grouped by number of labels) = one at a time
        alone = client.post("/api/classify", json={"text": answer["text"], "explain": "grad"}).json()["importance"]
        assert answer["importance"]["words"] == alone["words"]
        assert answer["importance"]["scores"].keys() == alone["scores"].keys()
        for label, values in alone["scores"].items():
            assert answer["importance"]["scores"][label] == pytest.approx(values, abs=1e-4)
    ids = [x["id"] for x in saved]
    assert [client.get(f"/api/complaints/{i}").json()["text"] for i in ids] == TEXTS


def test_attention_matches_word_attention(client, classifier):
    text = "The dal was cold and the rice smelt bad"
    expected = classifier.word_attention(text)
    full = client.post("/api/attention", json={"text": text}).json()
    assert full["words"] == expected.words
    got = torch.tensor(full["attention"])
    assert got.shape == expected.attention.shape
    assert torch.allclose(got, expected.attention, atol=1e-4)
    one = client.post("/api/attention", json={"text": text, "layer": 1, "head": 3}).json()
    assert one["layers"] == [1] and one["heads"] == [3]
    assert torch.allclose(torch.tensor(one["attention"])[0, 0], expected.attention[1, 3], atol=1e-4)
    for bad, message in [
        ({"layer": 2}, "layer 2 is out of range: this model has 2 layers, numbered 0 to 1"),
        ({"layer": 0, "head": 4}, "head 4 is out of range"),
        ({"head": 1}, "a head needs a layer"),
    ]:
        r = client.post("/api/attention", json={"text": text, **bad})
        assert r.status_code == 422 and message in r.json()["error"]


def test_attention_page(client):
    r = client.get("/attention", params={"text": "The dal was cold"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert '"dal"' in r.text
    assert not any(f'{attr}="{scheme}' in r.text for attr in ("src", "href") for scheme in ("http:", "https:", "//"))
    assert client.get("/attention", params={"text": "  "}).status_code == 422


# --- the log --------------------------------------------------------------------------------------


def seed_log(client, db_path) -> list[dict]:
    """Five saved complaints over three days (backdated in the log) and one status change."""
    rows = [
        ("Lizard found in the khichdi", "S1", "2024-05-01T08:00:00.000000Z"),
        ("Children vomited after lunch", "S2", "2024-05-01T09:00:00.000000Z"),
        ("The dal was watery", "S1", "2024-05-02T10:00:00.000000Z"),
        ("No eggs on Wednesday", "S3", "2024-05-03T11:00:00.000000Z"),
        ("Kitchen is dirty and full of flies", "S1", "2024-05-03T12:00:00.000000Z"),
    ]
    saved = []
    for text, school, when in rows:
        body = client.post(
            "/api/classify", json={"text": text, "school": school, "save": True, "explain": "none"}
        ).json()
        backdate(db_path, body["id"], when)
        saved.append(body | {"created_at": when})
    assert client.patch(f"/api/complaints/{saved[2]['id']}", json={"status": "in_progress"}).status_code == 200
    return saved


def test_list_filters_order_and_paging(log_client):
    client, db = log_client
    saved = seed_log(client, db)
    rank = {"high": 0, "medium": 1, "low": 2}
    expected = sorted(saved, key=lambda c: (rank[c["urgency"]], [-ord(ch) for ch in c["created_at"]]))
    page = client.get("/api/complaints").json()
    assert page["total"] == 5 and [c["id"] for c in page["items"]] == [c["id"] for c in expected]
    paged = client.get("/api/complaints", params={"limit": 2, "offset": 2}).json()
    assert paged["total"] == 5 and [c["id"] for c in paged["items"]] == [c["id"] for c in expected[2:4]]

    def ids(**params):
        return sorted(c["id"] for c in client.get("/api/complaints", params=params).json()["items"])

    by_id = {c["id"]: c for c in saved}
    assert ids(school="S1") == sorted(i for i, c in by_id.items() if c["school"] == "S1")
    assert ids(status="in_progress") == [saved[2]["id"]]
    label = saved[0]["labels"][0]
    assert ids(label=label) == sorted(i for i, c in by_id.items() if label in c["labels"])
    urgency = saved[0]["urgency"]
    assert ids(urgency=urgency) == sorted(i for i, c in by_id.items() if c["urgency"] == urgency)
    assert ids(**{"from": "2024-05-02", "to": "2024-05-02"}) == [saved[2]["id"]]
    assert ids(**{"from": "2024-05-03"}) == [saved[3]["id"], saved[4]["id"]]
    assert ids(to="2024-05-01T08:30:00Z") == [saved[0]["id"]]


def test_get_and_status_changes(log_client):
    client, db = log_client
    saved = seed_log(client, db)
    i = saved[2]["id"]
    got = client.get(f"/api/complaints/{i}").json()
    assert got["status"] == "in_progress" and got["history"][0]["new_status"] == "in_progress"
    assert got["labels"] == saved[2]["labels"] and got["probabilities"] == pytest.approx(saved[2]["probabilities"])
    assert client.patch(f"/api/complaints/{i}", json={"status": "resolved"}).json()["status"] == "resolved"
    r = client.patch(f"/api/complaints/{saved[0]['id']}", json={"status": "resolved"})
    assert r.status_code == 409 and "cannot move to 'resolved'" in r.json()["error"]
    r = client.patch(f"/api/complaints/{i}", json={"status": "closed"})
    assert r.status_code == 422 and "'new', 'in_progress' or 'resolved'" in r.json()["error"]
    r = client.patch("/api/complaints/9999", json={"status": "in_progress"})
    assert r.status_code == 404 and r.json() == {"error": "no complaint with id 9999"}
    assert client.get("/api/complaints/9999").status_code == 404


def test_csv_export_has_every_column_and_honours_filters(log_client, classifier):
    client, db = log_client
    saved = seed_log(client, db)
    r = client.get("/api/complaints.csv")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/csv")
    assert r.text.startswith("\ufeffid,")  # a byte-order mark: Excel reads the file as UTF-8
    rows = list(csv.DictReader(io.StringIO(r.text.removeprefix("\ufeff"))))
    assert len(rows) == 5
    assert list(rows[0]) == ["id", "created_at", "status", "status_changed_at", "text", "school", "udise", "district",
                             "block", "incident_date", "channel", "reporter_phone", "labels", "urgency",
                             "severity_level", "children", "needs_review", "review_reasons", "language",
                             "corrected_labels", "corrected_by",
                             "corrected_at", "assignee", "notes", "model_version",
                             *(f"p_{label}" for label in classifier.labels)]  # fmt: skip
    by_id = {int(row["id"]): row for row in rows}
    for c in saved:
        row = by_id[c["id"]]
        local = c["created_at"][:10] + " " + c["created_at"][11:19]  # the test app's zone is UTC; to the second
        assert (row["text"], row["school"], row["created_at"]) == (c["text"], c["school"], local)
        assert row["labels"].split(";") == c["labels"] and row["urgency"] == c["urgency"]
        for label, p in c["probabilities"].items():
            assert float(row[f"p_{label}"]) == pytest.approx(p, abs=1e-6)
    only_s1 = list(csv.DictReader(io.StringIO(client.get("/api/complaints.csv", params={"school": "S1"}).text[1:])))
    assert sorted(int(r["id"]) for r in only_s1) == sorted(c["id"] for c in saved if c["school"] == "S1")


def test_stats_count_by_hand(log_client):
    client, db = log_client
    saved = seed_log(client, db)
    stats = client.get("/api/stats", params={"from": "2024-04-30", "to": "2024-05-03"}).json()
    assert stats["days"] == ["2024-04-30", "2024-05-01", "2024-05-02", "2024-05-03"]
    for label in stats["labels"]:
        expected = [
            sum(1 for c in saved if c["created_at"].startswith(day) and label in c["labels"]) for day in stats["days"]
        ]
        assert stats["counts"][label] == expected, label
        assert stats["totals"][label] == sum(expected)
    assert sum(stats["totals"].values()) == sum(len(c["labels"]) for c in saved)
    unbounded = client.get("/api/stats").json()
    assert unbounded["days"] == ["2024-05-01", "2024-05-02", "2024-05-03"]


def test_health_and_labels(client):
    client.post("/api/classify", json={"text": TEXTS[0], "save": True})
    health = client.get("/api/health").json()
    assert health["status"] == "ok" and health["complaints_stored"] == 1 and health["schema_version"] == SCHEMA_VERSION
    labels = client.get("/api/labels").json()
    assert [x["label"] for x in labels] == list(LABELS)
    assert {x["label"]: x["urgency"] for x in labels}["illness"] == "high"
    assert all(x["definition"] for x in labels)


def test_csv_upload_json_csv_and_save(client, classifier):
    content = 'school,text\nS1,"Rice had stones,\nand worms"\nS2,The dal was watery\n\n,No meal today\n'.encode()
    body = post_csv(client, content).json()
    texts = ["Rice had stones,\nand worms", "The dal was watery", "No meal today"]
    assert body["count"] == 3 and [x["text"] for x in body["results"]] == texts
    assert [x["line"] for x in body["results"]] == [2, 4, 6] and [x["school"] for x in body["results"]] == [
        "S1",
        "S2",
        None,
    ]
    for answer, expected in zip(body["results"], classifier.predict(texts)):
        assert_same_prediction(answer, expected)
    r = post_csv(client, content, fmt="csv", save=True)
    assert r.status_code == 200 and 'filename="upload-classified.csv"' in r.headers["content-disposition"]
    rows = list(csv.DictReader(io.StringIO(r.text)))
    assert [row["text"] for row in rows] == texts and all(row["id"] for row in rows)
    assert client.get("/api/complaints", params={"school": "S1"}).json()["items"][0]["text"] == texts[0]
    assert client.get("/api/health").json()["complaints_stored"] == 3


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body, message",
    [
        ({"text": ""}, "the text is empty"),
        ({"text": " \n\t "}, "the text is empty"),
        ({"text": "x" * 5001}, "5,001 characters long; the limit is 5,000"),
        ({"text": 5}, "field 'text' must be a string"),
        ({"text": "ok", "save": "yes"}, "field 'save' must be true or false"),
        ({"text": "ok", "explain": "shap"}, "field 'explain'"),
        ({"text": "ok", "steps": 0}, "field 'steps' must be at least 1"),
        ({"txt": "ok"}, "field 'text' is missing"),
        ({"text": "ok", "colour": 1}, "field 'colour' is not a field of this request"),
        (["ok"], "the request body must be a JSON object"),
    ],
)
def test_bad_classify_bodies(client, body, message):
    r = client.post("/api/classify", json=body)
    assert r.status_code == 422 and message in r.json()["error"], r.text


def test_non_json_bodies(client):
    r = client.post("/api/classify", content=b"{text: oops", headers={"content-type": "application/json"})
    assert r.status_code == 422 and "not valid JSON" in r.json()["error"]
    r = client.post(
        "/api/classify", content=b"text=oops", headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert r.status_code == 422 and "Content-Type: application/json" in r.json()["error"]
    assert (
        "is missing"
        in client.post("/api/classify", content=b"", headers={"content-type": "application/json"}).json()["error"]
    )


@pytest.mark.parametrize(
    "body, message",
    [
        ({"texts": ["a"] * 257}, "257 complaints; the limit is 256"),
        ({"texts": []}, "the batch is empty"),
        ({"texts": ["a", "  "]}, "texts[1]: the text is empty"),
        ({"texts": ["a"], "items": [{"text": "b"}]}, "exactly one of"),
        ({"items": [{"text": "b", "school": 3}]}, "field 'items[0].school' must be a string"),
        ({"texts": "one text"}, "field 'texts' must be a list"),
    ],
)
def test_bad_batches(client, body, message):
    r = client.post("/api/classify/batch", json=body)
    assert r.status_code == 422 and message in r.json()["error"], r.text


@pytest.mark.parametrize(
    "content, message",
    [
        (b"txt,school\nhello,S1\n", "has no 'text' column (its header is: txt, school)"),
        ("text\nkhichdi was cold\nthe dal was caf\u00e9\n".encode("latin-1"), "is not UTF-8 text (byte 0xe9 on line 3"),
        (b"text\nrice, dal and worms\n", "line 2: it has 2 cells but the header has 1"),
        (b"text,school\n,S1\nfine,S2\n", "line 2: the text is empty"),
        (b"text\n", "a header but no complaints"),
        (b"", "is empty"),
    ],
)
def test_bad_csv_uploads_are_refused_whole(client, content, message):
    r = post_csv(client, content, save=True)
    assert r.status_code == 422 and message in r.json()["error"], r.text
    assert client.get("/api/health").json()["complaints_stored"] == 0


def test_bad_queries_and_paths(client):
    cases = [
        ("/api/complaints?limit=0", "query parameter 'limit' must be at least 1"),
        ("/api/complaints?limit=501", "must be at most 500"),
        ("/api/complaints?from=2024-13-01", "query parameter 'from' must be a date"),
        ("/api/complaints?from=2024-05-03&to=2024-05-01", "the date range is empty"),
        ("/api/complaints?label=rats", "unknown label 'rats'"),
        ("/api/complaints?urgency=urgent", "query parameter 'urgency'"),
        ("/api/complaints/abc", "path parameter 'complaint_id' must be a whole number"),
        ("/api/stats?from=1900-01-01&to=2024-01-01", "more than 3660 days"),
    ]
    for url, message in cases:
        r = client.get(url)
        assert r.status_code == 422 and message in r.json()["error"], (url, r.text)
    r = client.get("/api/nothing")
    assert r.status_code == 404 and "no such page" in r.json()["error"]
    r = client.delete("/api/complaints/1")
    assert r.status_code == 405 and "error" in r.json()


def test_unexpected_error_is_a_generic_500(predictor, tmp_path, monkeypatch, caplog):
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor)
    client = local_client(app, raise_server_exceptions=False)

    def broken(*args, **kwargs):
        raise RuntimeError("secret internal detail")

    monkeypatch.setattr(app.state.service.predictor, "start_classify", broken)
    with caplog.at_level("ERROR", logger="mealwatch.serve"):
        r = client.post("/api/classify", json={"text": "fine"})
    assert r.status_code == 500
    assert r.json() == {
        "error": "internal error: the server could not complete the request (the details are in its log)"
    }
    assert "secret" not in r.text and "Traceback" not in r.text
    assert "secret internal detail" in caplog.text


# --- concurrency, restarts, model changes ---------------------------------------------------------


def test_concurrent_saves_lose_nothing_and_a_restart_keeps_them(predictor, tmp_path):
    db = tmp_path / "log.db"
    client = local_client(create_app(db_path=db, predictor=predictor))
    failures = []

    def save(worker: int) -> None:
        for n in range(25):
            r = client.post("/api/classify", json={"text": f"complaint {n} from worker {worker}", "save": True})
            if r.status_code != 200:
                failures.append(r.text)

    threads = [threading.Thread(target=save, args=(w,)) for w in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures
    restarted = local_client(create_app(db_path=db, predictor=predictor))
    page = restarted.get("/api/complaints", params={"limit": 500}).json()
    assert page["total"] == 200
    assert {c["text"] for c in page["items"]} == {f"complaint {n} from worker {w}" for w in range(8) for n in range(25)}


def test_a_new_model_never_rewrites_old_predictions(model_dir, tmp_path):
    db = tmp_path / "log.db"
    with local_client(create_app(model_dir, db)) as a:
        old = a.post("/api/classify", json={"text": TEXTS[0], "save": True}).json()
    other = tiny_classifier(1)
    with torch.no_grad():
        other.model.head.bias.fill_(-10.0)
        other.model.head.bias[LABELS.index("other")] = 10.0  # model B calls everything "other"
    other.save(tmp_path / "run-b")
    with local_client(create_app(tmp_path / "run-b", db)) as b:
        new = b.post("/api/classify", json={"text": TEXTS[0], "save": True}).json()
        assert new["labels"] == ["other"] and old["labels"] != ["other"]
        assert new["model_version"] != old["model_version"] and new["model_version"].startswith("run-b-")
        kept = b.get(f"/api/complaints/{old['id']}").json()
    assert kept["labels"] == old["labels"] and kept["model_version"] == old["model_version"]
    assert kept["probabilities"] == pytest.approx(old["probabilities"])


# --- the command ----------------------------------------------------------------------------------


def test_serve_command_refuses_bad_arguments_in_one_line(tmp_path, capsys):
    from mealwatch.cli import main

    assert main(["serve", "--model", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mealwatch serve: error: model folder") and "does not exist" in err and "Traceback" not in err
    assert main(["serve", "--port", "70000"]) == 2
    assert "--port must be between 1 and 65535" in capsys.readouterr().err
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        assert main(["serve", "--port", str(busy.getsockname()[1])]) == 2
    assert "cannot listen on 127.0.0.1" in capsys.readouterr().err


def test_serve_command_refuses_a_file_that_is_not_a_complaint_log(model_dir, tmp_path, capsys):
    from mealwatch.cli import main

    junk = tmp_path / "notes.db"
    junk.write_bytes(b"not a database" * 100)
    assert main(["serve", "--model", str(model_dir), "--db", str(junk), "--port", "0"]) == 2  # port checked first
    assert main(["serve", "--model", str(model_dir), "--db", str(junk), "--port", str(free_port())]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(f"mealwatch serve: error: {junk} cannot be opened as a complaint log")


def test_serve_command_refuses_a_postgres_log_it_cannot_use_in_one_line(model_dir, pg_cluster, capsys):
    from log_backends import PostgresBackend

    from mealwatch.cli import main
    from mealwatch.log import SCHEMA_VERSION, redact

    newer = PostgresBackend(pg_cluster)
    newer.migrate_to(SCHEMA_VERSION)
    newer.set_version(SCHEMA_VERSION + 1)
    refused = f"postgresql://mealwatch:secret@127.0.0.1:{free_port()}/log"
    wrong_password = pg_cluster.url(pg_cluster.create_database(), password="secret")
    cases = [
        (refused, f"cannot open the complaint log {redact(refused)} (", "Connection refused"),
        (wrong_password, f"cannot open the complaint log {redact(wrong_password)} (", "password authentication failed"),
        (
            newer.db,
            f"{redact(newer.db)}: the complaint log has schema version {SCHEMA_VERSION + 1}, newer than this mealwatch",
            "upgrade",
        ),
    ]
    for url, start, reason in cases:
        assert main(["serve", "--model", str(model_dir), "--db", url, "--port", str(free_port())]) == 2
        out = capsys.readouterr()
        [line] = out.err.splitlines()
        assert line.startswith(f"mealwatch serve: error: {start}") and reason in line, line
        assert "secret" not in out.err + out.out and "test-password" not in out.err + out.out


def test_two_serve_processes_share_one_postgres_log(model_dir, pg_cluster):
    """Two `mealwatch serve` processes start together on an empty database (they take turns migrating), then
    save concurrently from several clients each: every acknowledged id is in the log exactly once."""
    import subprocess
    import sys
    import time

    import httpx
    from log_backends import PostgresBackend

    db = PostgresBackend(pg_cluster).db
    urls = [f"http://127.0.0.1:{free_port()}" for _ in range(2)]
    command = [sys.executable, "-m", "mealwatch", "serve", "--model", str(model_dir), "--db", db]
    servers = [
        subprocess.Popen(
            [*command, "--port", url.rsplit(":", 1)[1]], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        for url in urls
    ]
    try:
        deadline = time.monotonic() + 90
        for url, server in zip(urls, servers):
            while True:
                try:
                    assert httpx.get(url + "/api/health", timeout=2).json()["schema_version"] == SCHEMA_VERSION
                    break
                except httpx.HTTPError:
                    assert server.poll() is None, f"the server stopped: {server.communicate()[0]}"
                    assert time.monotonic() < deadline, "the server did not start in 90 s"
                    time.sleep(0.1)
        acknowledged: list[tuple[int, str]] = []
        failures: list[str] = []

        def client(url: str, worker: int) -> None:
            with httpx.Client(base_url=url, timeout=60) as http:
                for n in range(8):
                    texts = [f"{url[-5:]}/{worker} complaint {n}.{k}" for k in range(1 + n % 3)]
                    r = http.post("/api/classify/batch", json={"texts": texts, "save": True})
                    if r.status_code != 200:
                        failures.append(r.text)
                        continue
                    acknowledged.extend((x["id"], x["text"]) for x in r.json()["results"])

        threads = [threading.Thread(target=client, args=(url, w)) for url in urls for w in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not failures
        expected = 2 * 4 * sum(1 + n % 3 for n in range(8))
        ids = [i for i, _ in acknowledged]
        assert len(ids) == len(set(ids)) == expected
        for url in urls:
            assert httpx.get(url + "/api/health").json()["complaints_stored"] == expected
        page = httpx.get(urls[1] + "/api/complaints", params={"limit": 500}).json()
        assert page["total"] == expected and {c["id"]: c["text"] for c in page["items"]} == dict(acknowledged)
    finally:
        for server in servers:
            server.terminate()
        for server in servers:
            server.wait(timeout=30)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_csv_upload_with_a_non_latin_file_name_answers_csv_once(client):
    data = "text,school\nखाने में छिपकली,प्राथमिक विद्यालय\n".encode()
    before = client.get("/api/complaints").json()["total"]
    r = client.post("/api/classify/csv?format=csv", files={"file": ("शिकायतें.csv", data, "text/csv")},
                    data={"save": "true"})  # fmt: skip
    assert r.status_code == 200
    assert "filename*=UTF-8''%E0%A4%B6" in r.headers["content-disposition"]
    assert client.get("/api/complaints").json()["total"] == before + 1
    rows = list(csv.DictReader(io.StringIO(r.text, newline="")))
    assert rows[0]["text"] == "खाने में छिपकली" and rows[0]["school"] == "प्राथमिक विद्यालय"


def test_page_csv_comes_from_the_server(client):
    data = b"text\n=cmd|' /C calc'!A0 the dal was sour\n"
    body = client.post("/api/classify/csv?with_csv=true", files={"file": ("x.csv", data, "text/csv")}).json()
    rows = list(csv.DictReader(io.StringIO(body["csv"], newline="")))
    assert rows[0]["text"].startswith("'=cmd")  # never a formula in a spreadsheet


def test_a_nul_character_is_refused_before_anything_is_saved(client):
    before = client.get("/api/complaints").json()["total"]
    for body in ({"text": "dal\x00 sour", "save": True}, {"text": "dal sour", "school": "UPS\x00", "save": True}):
        r = client.post("/api/classify", json=body)
        assert r.status_code == 422 and "NUL" in r.json()["error"]
    assert client.get("/api/complaints").json()["total"] == before
