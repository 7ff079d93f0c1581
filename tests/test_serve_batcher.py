"""The request batcher: concurrent requests share passes through the model and get exactly what they would get
alone; the wait, the pass and the queue are bounded; a request whose client left never reaches the model; a full
queue is a 503 with Retry-After that saves nothing."""

from __future__ import annotations

import socket
import threading
import time

import httpx
import pytest
from test_serve_api import live_server, local_client, post_classify_raw, tiny_classifier

from mealwatch.serve import Predictor, create_app
from mealwatch.serve.batcher import Batcher, Overloaded, Pass


class Gate:
    """A fake model: each text's result is the text upper-cased; the first pass waits until ``open()``."""

    def __init__(self, block_first: bool = True) -> None:
        self.passes: list[list[str]] = []
        self.entered = threading.Event()
        self._open = threading.Event()
        if not block_first:
            self._open.set()

    def run(self, texts: list[str]) -> list[str]:
        self.passes.append(list(texts))
        self.entered.set()
        assert self._open.wait(10)
        return [t.upper() for t in texts]

    @staticmethod
    def lengths(texts: list[str]) -> list[int]:
        return [len(t.split()) for t in texts]  # one "word piece" per word

    def open(self) -> None:
        self._open.set()


@pytest.fixture
def make_batcher():
    made: list[Batcher] = []

    def make(gate: Gate, **kwargs) -> Batcher:
        made.append(Batcher(gate.run, gate.lengths, **kwargs))
        return made[-1]

    yield make
    for b in made:
        b.close()


def test_a_lone_request_waits_at_most_the_bound_and_requests_within_it_share_a_pass(make_batcher):
    gate = Gate(block_first=False)
    batcher = make_batcher(gate, max_wait_s=0.3)
    t0 = time.monotonic()
    first = batcher.submit(["the dal was cold"])
    time.sleep(0.05)
    second = batcher.submit(["no meal", "worms in rice"])
    assert first.future.result(timeout=10) == ["THE DAL WAS COLD"]
    waited = time.monotonic() - t0
    assert second.future.result(timeout=10) == ["NO MEAL", "WORMS IN RICE"]
    assert 0.29 <= waited < 3.0  # it waited for company, but not without end
    assert len(gate.passes) == 1 and sorted(gate.passes[0]) == ["no meal", "the dal was cold", "worms in rice"]
    t0 = time.monotonic()
    assert batcher.submit(["alone"]).future.result(timeout=10) == ["ALONE"]
    assert 0.29 <= time.monotonic() - t0 < 3.0


def test_a_full_pass_starts_without_waiting(make_batcher):
    gate = Gate(block_first=False)
    batcher = make_batcher(gate, max_wait_s=30.0, max_texts=3)
    t0 = time.monotonic()
    job = batcher.submit(["a", "b", "c"])
    assert job.future.result(timeout=10) == ["A", "B", "C"]
    assert time.monotonic() - t0 < 5.0  # not the 30 s wait: the pass was full
    tokens = make_batcher(Gate(block_first=False), max_wait_s=30.0, max_tokens=6)
    t0 = time.monotonic()
    done = tokens.submit(["one two three", "four five six"]).future.result(timeout=10)
    assert done == ["ONE TWO THREE", "FOUR FIVE SIX"]
    assert time.monotonic() - t0 < 5.0  # 2 texts x 3 pieces fill the 6-token budget


def test_the_token_budget_splits_the_waiting_texts_into_passes(make_batcher):
    gate = Gate()
    seen: list[Pass] = []
    batcher = make_batcher(gate, max_wait_s=0.0, max_tokens=12, on_pass=seen.append)
    blocker = batcher.submit(["first"])
    assert gate.entered.wait(10)
    long_one = " ".join(["w"] * 20)  # over the budget on its own: runs alone
    texts = {
        "a": ["one", "two words", "three words here", "four words are here"],
        "b": [long_one, "x y", "p q r s t u"],
        "c": ["single"],
    }
    jobs = {name: batcher.submit(t) for name, t in texts.items()}
    assert batcher.waiting == 8
    gate.open()
    for name, job in jobs.items():
        assert job.future.result(timeout=10) == [t.upper() for t in texts[name]]  # each its own, in its order
    assert blocker.future.result(timeout=10) == ["FIRST"]
    after = seen[1:]  # the passes after the blocker's
    ran = [t for p in after for t in p.texts]
    assert sorted(ran) == sorted(t for ts in texts.values() for t in ts)  # every text once
    assert len(after) >= 2
    for p in after:
        assert p.padded_tokens <= 12 or len(p.texts) == 1, p
    assert [long_one] in [p.texts for p in after]  # too long for any company
    assert batcher.waiting == 0


def test_requests_take_turns_so_a_big_one_does_not_hold_up_a_small_one(make_batcher):
    gate = Gate()
    batcher = make_batcher(gate, max_wait_s=0.0, max_texts=4)
    batcher.submit(["first"])
    assert gate.entered.wait(10)
    big = batcher.submit([f"row {i}" for i in range(40)])
    small = batcher.submit(["urgent complaint"])
    gate.open()
    assert small.future.result(timeout=10) == ["URGENT COMPLAINT"]
    assert big.future.result(timeout=10) == [f"ROW {i}" for i in range(40)]
    assert "urgent complaint" in gate.passes[1]  # in the first pass after the blocker, beside the big upload's rows
    assert all(len(p) <= 4 for p in gate.passes)


def test_a_cancelled_request_never_reaches_the_model(make_batcher):
    gate = Gate()
    batcher = make_batcher(gate, max_wait_s=0.0)
    running = batcher.submit(["first"])
    assert gate.entered.wait(10)
    gone = batcher.submit(["nobody waits for this"])
    kept = batcher.submit(["still wanted"])
    assert gone.cancel() is True
    gate.open()
    assert kept.future.result(timeout=10) == ["STILL WANTED"]
    assert running.future.result(timeout=10) == ["FIRST"]
    assert gone.future.cancelled()
    assert all("nobody waits for this" not in p for p in gate.passes)
    assert batcher.waiting == 0
    assert running.cancel() is False  # a request whose pass has run cannot be dropped


def test_a_full_queue_refuses_at_once_and_recovers(make_batcher):
    gate = Gate()
    batcher = make_batcher(gate, max_wait_s=0.0, max_waiting=3)
    running = batcher.submit(["first"])
    assert gate.entered.wait(10)
    waiting = batcher.submit(["a", "b"])
    t0 = time.monotonic()
    with pytest.raises(Overloaded, match="2 complaints are waiting for the model already"):
        batcher.submit(["c", "d"])
    assert time.monotonic() - t0 < 1.0
    assert batcher.submit(["c"]).texts == ["c"]  # 3 waiting: the limit, not over it
    gate.open()
    assert waiting.future.result(timeout=10) == ["A", "B"] and running.future.result(timeout=10) == ["FIRST"]
    assert batcher.submit(["d", "e", "f"]).future.result(timeout=10) == ["D", "E", "F"]


def test_a_failing_pass_fails_its_requests_and_the_worker_lives_on(make_batcher):
    calls = []

    def run(texts):
        calls.append(texts)
        if any("boom" in t for t in texts):
            raise RuntimeError("the model failed")
        return [t.upper() for t in texts]

    batcher = Batcher(run, Gate.lengths, max_wait_s=0.0)
    try:
        with pytest.raises(RuntimeError, match="the model failed"):
            batcher.submit(["boom"]).future.result(timeout=10)
        assert batcher.submit(["fine"]).future.result(timeout=10) == ["FINE"]
        assert batcher.waiting == 0
    finally:
        batcher.close()


# --- with the model: the same results as alone ---------------------------------------------------

DIFFERENT_LENGTHS = [
    "dal",
    "Worms were found in the rice and two children vomited.",
    " ".join(["the cook did not come and the children went home hungry"] * 20),  # cut to the model's length
    "खाना ठंडा था और बच्चों को पेट दर्द हुआ",
    "No meal for three days, the gas cylinder is empty 🙁",
    "ok",
]


@pytest.fixture
def tiny_predictor():
    made: list[Predictor] = []

    def make(**kwargs) -> Predictor:
        made.append(Predictor(tiny_classifier(0), "tiny-model", **kwargs))
        deadline = time.monotonic() + 30
        while made[-1].batcher.waiting:  # the warm-up pass is done before a test counts passes
            assert time.monotonic() < deadline
            time.sleep(0.01)
        made[-1].classify(["warm up"])
        return made[-1]

    yield make
    for p in made:
        p.close()


def test_concurrent_requests_get_exactly_what_they_would_get_alone(tiny_predictor):
    predictor = tiny_predictor(batch_wait_s=0.5)
    alone = [tiny_classifier(0).predict([t])[0] for t in DIFFERENT_LENGTHS]
    before = predictor.counts.passes
    jobs = [predictor.start_classify([t]) for t in DIFFERENT_LENGTHS]  # within one wait: one shared pass
    together = [job.future.result(timeout=30)[0] for job in jobs]
    assert predictor.counts.passes == before + 1 and predictor.counts.texts >= len(DIFFERENT_LENGTHS)
    for got, expected in zip(together, alone):
        assert got.text == expected.text
        assert got.labels == expected.labels
        assert got.needs_review == expected.needs_review and got.review_reasons == expected.review_reasons
        assert got.truncated == expected.truncated
        assert got.urgency == expected.urgency
        for label, p in expected.probabilities.items():
            assert got.probabilities[label] == pytest.approx(p, abs=1e-5)
    assert [p.truncated for p in together] == [False, False, True, False, False, False]


def test_concurrent_http_requests_match_single_ones(tiny_predictor, tmp_path):
    predictor = tiny_predictor(batch_wait_s=0.05)
    client = local_client(create_app(db_path=tmp_path / "log.db", predictor=predictor))
    alone = [client.post("/api/classify", json={"text": t}).json() for t in DIFFERENT_LENGTHS]
    answers: dict[int, dict] = {}

    def send(i: int) -> None:
        answers[i] = client.post("/api/classify", json={"text": DIFFERENT_LENGTHS[i], "save": True}).json()

    before = client.get("/api/health").json()["model_passes"]
    threads = [threading.Thread(target=send, args=(i,)) for i in range(len(DIFFERENT_LENGTHS))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    after = client.get("/api/health").json()["model_passes"]
    assert after["texts"] - before["texts"] == len(DIFFERENT_LENGTHS)  # every text ran once
    assert after["passes"] - before["passes"] < len(DIFFERENT_LENGTHS)  # some shared a pass
    assert after["model_seconds"] > before["model_seconds"] and after["padded_tokens"] > before["padded_tokens"]
    assert after["texts_per_pass"] == round(after["texts"] / after["passes"], 2)
    for i, expected in enumerate(alone):
        got = answers[i]
        assert got["labels"] == expected["labels"] and got["needs_review"] == expected["needs_review"]
        assert got["probabilities"] == pytest.approx(expected["probabilities"], abs=1e-5)
        stored = client.get(f"/api/complaints/{got['id']}").json()
        assert stored["text"] == DIFFERENT_LENGTHS[i] and stored["labels"] == expected["labels"]
    assert client.get("/api/health").json()["complaints_stored"] == len(DIFFERENT_LENGTHS)


class BlockedModel:
    """Wraps ``pipeline.predict``: records each pass's texts; a pass holding ``hold`` waits until released."""

    def __init__(self, predictor: Predictor, hold: str) -> None:
        self.predict, self.hold = predictor.pipeline.predict, hold
        self.passes: list[list[str]] = []
        self.entered, self.released = threading.Event(), threading.Event()

    def __call__(self, texts, batch_size=64):
        self.passes.append(list(texts))
        if self.hold in texts:
            self.entered.set()
            assert self.released.wait(30)
        return self.predict(texts, batch_size)


def test_a_full_queue_is_a_503_with_retry_after_and_saves_nothing(tiny_predictor, tmp_path, monkeypatch):
    predictor = tiny_predictor(batch_wait_s=0.0, max_waiting=1)
    blocked = BlockedModel(predictor, "the first complaint")
    monkeypatch.setattr(predictor.pipeline, "predict", blocked)
    client = local_client(create_app(db_path=tmp_path / "log.db", predictor=predictor))
    answers = {}

    def send(name: str, text: str) -> None:
        answers[name] = client.post("/api/classify", json={"text": text, "save": True})

    first = threading.Thread(target=send, args=("first", "the first complaint"))
    first.start()
    assert blocked.entered.wait(10)
    second = threading.Thread(target=send, args=("second", "the second complaint"))
    second.start()
    deadline = time.monotonic() + 10
    while predictor.batcher.waiting < 1:
        assert time.monotonic() < deadline
        time.sleep(0.01)
    key = {"Idempotency-Key": "overload-1"}
    refused = client.post("/api/classify", json={"text": "the third complaint", "save": True}, headers=key)
    assert refused.status_code == 503
    assert refused.headers["Retry-After"] == "5"
    assert refused.json()["error"] == (
        "1 complaint is waiting for the model already (the limit is 1): try again in 5 seconds"
    )
    blocked.released.set()
    first.join(10)
    second.join(10)
    assert answers["first"].status_code == 200 and answers["second"].status_code == 200
    texts = [c["text"] for c in client.get("/api/complaints").json()["items"]]
    assert sorted(texts) == ["the first complaint", "the second complaint"]  # the refused one saved nothing
    retried = client.post("/api/classify", json={"text": "the third complaint", "save": True}, headers=key)
    assert retried.status_code == 200 and retried.json()["id"] is not None  # its key was not used up
    assert client.get("/api/health").json()["complaints_stored"] == 3


def test_a_request_whose_client_went_away_is_dropped_before_its_pass(tiny_predictor, tmp_path, monkeypatch):
    """A live server: while the model is busy, a client sends a complaint and hangs up; it never reaches the
    model, and nothing is saved for it."""
    predictor = tiny_predictor(batch_wait_s=0.0)
    blocked = BlockedModel(predictor, "the busy complaint")
    monkeypatch.setattr(predictor.pipeline, "predict", blocked)
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor)
    with live_server(app) as port:
        try:
            url = f"http://127.0.0.1:{port}"
            busy: dict = {}
            sender = threading.Thread(
                target=lambda: busy.setdefault(
                    "r",
                    httpx.post(url + "/api/classify", json={"text": "the busy complaint", "save": True}, timeout=30),
                )
            )
            sender.start()
            assert blocked.entered.wait(10)
            body = b'{"text": "a complaint nobody waits for", "save": true}'
            with socket.create_connection(("127.0.0.1", port)) as conn:
                post_classify_raw(conn, body)
                deadline = time.monotonic() + 10
                while predictor.batcher.waiting < 1:  # it is queued behind the busy pass
                    assert time.monotonic() < deadline
                    time.sleep(0.01)
            time.sleep(1.0)  # the client has hung up; the service notices within its 0.2 s poll
            blocked.released.set()
            sender.join(30)
            assert busy["r"].status_code == 200
            deadline = time.monotonic() + 10
            while predictor.batcher.waiting:
                assert time.monotonic() < deadline
                time.sleep(0.01)
            assert predictor.classify(["after"])[0].prediction.text == "after"
            assert all("a complaint nobody waits for" not in p for p in blocked.passes)
            assert app.state.service.store.count() == 1  # only the busy complaint
        finally:
            blocked.released.set()


def test_serve_command_refuses_bad_batching_flags_in_one_line(capsys):
    from mealwatch.cli import main

    assert main(["serve", "--batch-wait-ms", "-1"]) == 2
    assert "--batch-wait-ms must be between 0 and 1000 milliseconds, not -1" in capsys.readouterr().err
    assert main(["serve", "--batch-wait-ms", "5000"]) == 2
    assert "--batch-wait-ms must be between 0 and 1000 milliseconds, not 5000" in capsys.readouterr().err
    assert main(["serve", "--batch-tokens", "0"]) == 2
    assert "--batch-tokens must be at least 1, not 0" in capsys.readouterr().err
    assert main(["serve", "--batch-wait-ms", "nan"]) == 2
    assert "--batch-wait-ms must be between 0 and 1000 milliseconds, not nan" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--batch-wait-ms", "soon"])
    assert stopped.value.code == 2
    assert "argument --batch-wait-ms: invalid float value: 'soon'" in capsys.readouterr().err


def test_create_app_refuses_a_bad_option_in_one_line_before_opening_the_log(tmp_path):
    from datetime import timedelta

    from mealwatch.serve import StartError
    from mealwatch.serve.auth import AccountSettings

    db = tmp_path / "log.db"
    cases = [
        ({"max_batch": 0}, "max-batch", "--max-batch must be at least 1, not 0"),
        ({"batch_wait_s": 2.0}, "batch-wait-ms", "--batch-wait-ms must be between 0 and 1000 milliseconds, not 2000"),
        ({"batch_wait_s": float("nan")}, "batch-wait-ms", "--batch-wait-ms must be between 0 and 1000 milliseconds"),
        ({"batch_tokens": -5}, "batch-tokens", "--batch-tokens must be at least 1, not -5"),
        ({"account_settings": AccountSettings(idle=timedelta(0))}, "session-idle-minutes",
         "--session-idle-minutes and --session-hours must be above 0"),
        ({"account_settings": AccountSettings(absolute=timedelta(hours=-1))}, "session-idle-minutes",
         "--session-idle-minutes and --session-hours must be above 0"),
        ({"timezone": "Mars/Base"}, "timezone", "--timezone: unknown time zone 'Mars/Base': give an IANA name"),
    ]  # fmt: skip
    for options, option, message in cases:
        with pytest.raises(StartError) as refused:
            create_app(tmp_path / "no-model", db, **options)
        assert refused.value.option == option
        assert str(refused.value).startswith(message), str(refused.value)
    assert not db.exists()  # refused before the log was opened (or created)


def test_serve_command_refuses_session_lifetimes_that_are_not_above_0(capsys):
    from mealwatch.cli import main

    above_0 = "--session-idle-minutes and --session-hours must be above 0"
    for flags, said in [
        (["--session-idle-minutes", "0"], above_0),
        (["--session-hours", "-2"], above_0),
        (["--session-hours", "nan"], above_0.replace("above 0", "numbers above 0, not 30 and nan")),
    ]:  # fmt: skip
        assert main(["serve", *flags]) == 2
        assert said in capsys.readouterr().err


def test_token_counts_are_the_pieces_the_model_reads():
    pipeline = tiny_classifier(0)
    texts = ["ok", DIFFERENT_LENGTHS[3], DIFFERENT_LENGTHS[2], "worms 🙁 in the rice"]
    counts = pipeline.token_counts(texts)
    assert counts == pipeline.tokenize(texts).attention_mask.sum(dim=1).tolist()
    assert counts[0] == 3 and counts[2] == pipeline.max_length  # [CLS] ok [SEP]; the long one is cut


def test_idle_for_is_zero_while_the_model_works():
    """Background work (the search thread) yields while a pass runs or texts wait, and reads how long it rested."""
    started, release = threading.Event(), threading.Event()

    def slow(texts):
        started.set()
        release.wait(5)
        return list(texts)

    batcher = Batcher(slow, lambda texts: [len(t) for t in texts], max_texts=4, max_wait_s=0.0)
    try:
        job = batcher.submit(["dal"])
        assert started.wait(5)
        assert batcher.idle_for() == 0.0  # a pass runs
        release.set()
        assert job.future.result(5) == ["dal"]
        time.sleep(0.05)
        assert 0.0 < batcher.idle_for() < 5
    finally:
        batcher.close()
