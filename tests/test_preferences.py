"""The page's language: a signed-in user's choice is kept with the account (both backends), else the browser's
Accept-Language decides, else English."""

from __future__ import annotations

import pytest
from test_accounts import app, clock, login  # noqa: F401 - the accounts app, its clock, a signed-in client
from test_serve_api import local_client, model_dir, predictor  # noqa: F401 - the tiny model

from mealwatch.serve import create_app
from mealwatch.serve.preferences import browser_language


@pytest.mark.parametrize(
    "header, language",
    [("hi-IN,hi;q=0.9,en-US;q=0.8,en;q=0.7", "hi"), ("en-GB,en;q=0.9,hi;q=0.8", "en"), ("ta-IN,ta;q=0.9", None),
     ("ta,hi;q=0.5,en;q=0.4", "hi"), ("en;q=0.2,hi;q=0.8", "hi"), ("hi;q=0", None), ("", None), (None, None),
     ("hi;q=x,en", "en"), ("*", None)],
)  # fmt: skip
def test_the_browsers_language_by_its_quality_values(header, language):
    assert browser_language(header) == language


def test_a_users_language_follows_the_account_not_the_browser(app):  # noqa: F811
    anonymous = local_client(app)
    assert anonymous.get("/api/preferences", headers={"Accept-Language": "hi-IN,hi"}).json()["language"] == "hi"
    assert anonymous.put("/api/preferences", json={"language": "hi"}).status_code == 401
    ravi = login(app, "ravi")
    assert ravi.get("/api/preferences", headers={"Accept-Language": "en"}).json() == {
        "language": "en", "chosen": False, "languages": ["en", "hi"]}  # fmt: skip
    assert ravi.put("/api/preferences", json={"language": "hi"}).json() == {"language": "hi", "stored": True}
    again = login(app, "ravi")  # another session, another browser: the same choice
    assert again.get("/api/preferences", headers={"Accept-Language": "en-GB"}).json()["language"] == "hi"
    assert login(app, "asha").get("/api/preferences").json()["language"] == "en"  # another user: unchanged
    r = ravi.put("/api/preferences", json={"language": "ta"})
    assert r.status_code == 422 and "'en' or 'hi'" in r.json()["error"]
    del ravi.headers["X-CSRF-Token"]
    assert ravi.put("/api/preferences", json={"language": "en"}).status_code == 403  # a change needs the CSRF token


def test_without_accounts_the_browser_keeps_the_choice(predictor, tmp_path):  # noqa: F811
    with local_client(create_app(db_path=tmp_path / "log.db", predictor=predictor)) as client:
        assert client.put("/api/preferences", json={"language": "hi"}).json() == {"language": "hi", "stored": False}
        assert client.get("/api/preferences").json()["language"] == "en"


def test_the_log_keeps_languages_on_every_backend(log_backend):
    store = log_backend.open()
    assert store.language("Ravi") is None
    store.set_language("Ravi", "hi")
    store.set_language("ravi ", "en")  # the same user, as names are compared
    assert store.language("RAVI") == "en"
    with pytest.raises(ValueError, match="language must be one of en, hi"):
        store.set_language("ravi", "ta")
