"""Every route x {no session, viewer, officer, admin, an officer of another district, an expired session, a revoked
token, a disabled user}: the exact status (tests/role_matrix.py). A route added without an access rule in
``serve/auth.RULES`` and a request here fails this test."""

from __future__ import annotations

from role_matrix import CALLERS, prepare, routes, run_matrix, specs
from test_serve_api import model_dir, predictor  # noqa: F401 - the tiny model

from mealwatch.serve import create_app
from mealwatch.serve.auth import RULES


def test_every_route_has_a_rule_and_every_caller_gets_the_exact_status(predictor, tmp_path):  # noqa: F811
    app = create_app(db_path=tmp_path / "log.db", predictor=predictor, accounts=True, search="model")
    assert routes(app) == set(RULES)
    prepare(app)
    cells = run_matrix(app)
    wrong = [c for c in cells if c.got != c.expected]
    assert not wrong, "\n".join(f"{c.method} {c.path} as {c.caller}: {c.got}, expected {c.expected}: {c.answer}"
                                for c in wrong)  # fmt: skip
    assert len(cells) == sum(len(requests) for requests in specs().values()) * len(CALLERS) > len(RULES) * len(CALLERS)
    statuses = {(c.method, c.path, c.caller): c.got for c in cells}
    assert statuses[("GET", "/api/complaints/{complaint_id}", "wrong district")] == 404  # ids do not leak
    assert statuses[("POST", "/api/classify", "viewer")] == 403 and statuses[("GET", "/", "no session")] == 303
    scoped = sorted((c.path, c.got) for c in cells if c.caller == "district admin" and c.got in (403, 404))
    assert scoped == [
        ("/api/tokens", 403),
        ("/api/tokens/{name}", 404),
        ("/api/users", 403),
        ("/api/users/{name}", 404),
    ]
