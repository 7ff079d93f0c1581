"""Property-based fuzzing of every request the service takes (hypothesis): whatever arrives — well-formed, odd
or hostile — the answer is never a 5xx, and a request answered with a 4xx has written nothing to the log."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_serve_api import local_client, model_dir, predictor  # fixtures

from mealwatch.serve import create_app

settings.register_profile(
    "serve-fuzz", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
FUZZ = settings.get_profile("serve-fuzz")

#: any character, lone surrogates, NUL, direction controls and zero-width ones included
ANY_CHAR = st.characters(codec=None, exclude_categories=())
TEXTS = st.one_of(
    st.text(ANY_CHAR, max_size=40),
    st.sampled_from(["", " ", "\u200b", "\u202egpj.exe", "{{data}}", "\x00", "खाने में छिपकली", "=1+1", "a" * 5001]),
    st.text(st.sampled_from("ab \u0301\u200d\ud800\U0001f922\u0915\u093e"), max_size=12),
)
JSON_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=False), TEXTS)
JSON_VALUES = st.recursive(
    JSON_SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXTS, inner, max_size=3), max_leaves=6
)
SAVE = st.one_of(st.just(True), JSON_VALUES)


def maybe(**fields) -> st.SearchStrategy[dict]:
    """Objects with any of ``fields`` (each its own strategy) and now and then a field no schema has."""
    return st.fixed_dictionaries({}, optional={**fields, "colour": JSON_VALUES})


REQUESTS = {
    "/api/classify": st.fixed_dictionaries(
        {"text": TEXTS, "save": st.one_of(st.just(True), st.just(True), SAVE)},
        optional={
            "school": st.one_of(st.none(), TEXTS),
            "explain": st.one_of(st.sampled_from(["none", "grad", "ig", "shap"]), JSON_VALUES),
            "steps": st.one_of(st.integers(-5, 4), st.integers(301, 2**64), JSON_VALUES), "colour": JSON_VALUES,
        },
    ),
    "/api/classify/batch": st.one_of(
        st.fixed_dictionaries({"texts": st.lists(TEXTS, min_size=1, max_size=4), "save": st.just(True)},
                              optional={"explain": st.sampled_from(["none", "grad", "bogus"]), "items": JSON_VALUES}),
        st.fixed_dictionaries({"items": st.lists(maybe(text=TEXTS, school=TEXTS), max_size=3), "save": st.just(True)}),
        maybe(texts=JSON_VALUES, items=JSON_VALUES, save=SAVE),
    ),
    "/api/attention": st.fixed_dictionaries(
        {"text": TEXTS},
        optional={"layer": st.one_of(st.integers(-3, 4), JSON_VALUES),
                  "head": st.one_of(st.integers(-3, 5), JSON_VALUES),
                  "include_special": JSON_VALUES, "colour": JSON_VALUES},
    ),
}  # fmt: skip


@pytest.fixture(scope="module")
def fuzz_client(predictor, tmp_path_factory):
    app = create_app(db_path=tmp_path_factory.mktemp("fuzz") / "log.db", predictor=predictor)
    with local_client(app, raise_server_exceptions=False) as client:
        yield client


def stored(client) -> int:
    return client.get("/api/health").json()["complaints_stored"]


def check(client, response, before: int) -> None:
    assert response.status_code < 500, response.text
    assert response.headers["content-type"].startswith(("application/json", "text/"))
    if response.status_code >= 400:
        assert "error" in response.json()
        assert stored(client) == before, f"a {response.status_code} wrote to the log: {response.text}"


@pytest.mark.parametrize("path", sorted(REQUESTS))
@FUZZ
@given(data=st.data(), raw=st.integers(0, 9), junk=st.binary(max_size=30))
def test_json_bodies(fuzz_client, path, data, raw, junk):
    body = data.draw(st.one_of(REQUESTS[path], REQUESTS[path], REQUESTS[path], JSON_VALUES))
    before = stored(fuzz_client)
    content = junk if raw == 0 else json.dumps(body).encode()  # a tenth of the bodies are not JSON at all
    r = fuzz_client.post(path, content=content, headers={"content-type": "application/json"})
    check(fuzz_client, r, before)


def csv_bytes(rows: list[list[str]]) -> bytes:
    """Rows joined as CSV by hand (no quoting: the odd ones are the point), a lone surrogate kept as its bytes."""
    return "\n".join(",".join(cells) for cells in [["text", "school"], *rows]).encode("utf-8", "surrogatepass")


@FUZZ
@given(
    content=st.one_of(
        st.binary(max_size=200),
        st.lists(st.lists(TEXTS, max_size=3), max_size=4).map(csv_bytes),
    ),
    save=st.one_of(st.sampled_from(["true", "false"]), st.text(max_size=5)),
    name=st.text(ANY_CHAR, max_size=20),
    fmt=st.sampled_from(["json", "csv", "xml"]),
)  # fmt: skip
def test_csv_uploads(fuzz_client, content, save, name, fmt):
    before = stored(fuzz_client)
    files = {"file": (name.encode("utf-8", "surrogatepass").decode("utf-8", "replace"), content, "text/csv")}
    r = fuzz_client.post(f"/api/classify/csv?format={fmt}", files=files, data={"save": save})
    check(fuzz_client, r, before)


QUERY_VALUES = st.one_of(
    st.text(ANY_CHAR.filter(lambda c: not "\ud800" <= c <= "\udfff"), max_size=25),
    st.sampled_from(
        [
            "9999-12-31",
            "0001-01-01T00:00+05:30",
            "2024-02-30",
            "2024-05-01",
            "true",
            "-1",
            str(2**63),
            "\u200b",
            "9999-12-31T23:59:59-05:00",
            "0001-01-01",
        ]
    ),
    st.integers(-(2**70), 2**70).map(str),
)


@FUZZ
@given(
    path=st.sampled_from(["/api/complaints", "/api/stats", "/api/complaints.csv", "/attention"]),
    query=st.dictionaries(
        st.sampled_from(["label", "urgency", "school", "status", "needs_review", "from", "to", "limit", "offset",
                         "text", "explain"]),
        QUERY_VALUES, max_size=4,
    ),
)  # fmt: skip
def test_queries(fuzz_client, path, query):
    before = stored(fuzz_client)
    check(fuzz_client, fuzz_client.get(path, params=query), before)


@FUZZ
@given(
    cid=st.one_of(st.integers(-(2**70), 2**70).map(str), QUERY_VALUES.map(lambda v: v.replace("/", "_") or "x")),
    body=st.one_of(maybe(status=st.one_of(st.sampled_from(["new", "in_progress", "resolved"]), JSON_VALUES)),
                   JSON_VALUES),
)  # fmt: skip
def test_complaint_paths(fuzz_client, cid, body):
    from urllib.parse import quote

    saved = fuzz_client.post("/api/classify", json={"text": "the dal was cold", "save": True, "explain": "none"})
    assert saved.status_code == 200
    before = stored(fuzz_client)
    path = f"/api/complaints/{quote(cid, safe='')}"
    check(fuzz_client, fuzz_client.get(path), before)
    patch = fuzz_client.patch(path, content=json.dumps(body).encode(), headers={"content-type": "application/json"})
    check(fuzz_client, patch, before)
