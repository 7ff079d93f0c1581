"""``mealwatch serve``: the complaint triage web service (page, HTTP API and the complaint log)."""

from __future__ import annotations

import argparse
import shlex
import socket
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="the triage web page and HTTP API, with a log of saved complaints",
        description="Serve the classifier over HTTP: a page at /, the API under /api (documented at /docs), "
        "and a log of the complaints saved (a SQLite file, or a PostgreSQL database shared by several servers).",
    )
    p.add_argument(
        "--model", help="a model folder written by `mealwatch train` (default: $MEALWATCH_MODEL, else the newest run)"
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default: 127.0.0.1, this machine only; another address needs accounts "
        "or --allow-remote)",
    )
    p.add_argument(
        "--accounts",
        action="store_true",
        help="require a login (accounts are on anyway once the log holds a user: `mealwatch users add`)",
    )
    p.add_argument("--session-idle-minutes", type=float, default=30, help="a session unused this long ends (30)")
    p.add_argument("--session-hours", type=float, default=12, help="a session this old ends, however busy (12)")
    p.add_argument(
        "--tls-proxy",
        action="store_true",
        help="the service sits behind a proxy that terminates HTTPS: session cookies are marked Secure",
    )
    p.add_argument(
        "--proxy",
        action="append",
        default=[],
        metavar="ADDRESS",
        help="the address of a reverse proxy in front of the service (repeatable): only its X-Forwarded-For and "
        "X-Forwarded-Proto are believed (without --proxy they are ignored: anyone could claim any address)",
    )
    p.add_argument(
        "--max-connections",
        type=int,
        default=1000,
        help="most connections open at once (a tenth of them from one address, a --proxy's excepted); more are "
        "closed at once (default: 1000)",
    )
    p.add_argument(
        "--header-timeout",
        type=float,
        default=20.0,
        metavar="SECONDS",
        help="a connection that has not sent a request's headers within this long is closed (default: 20)",
    )
    p.add_argument(
        "--allow-remote",
        metavar="REASON",
        help="listen on an address other machines can reach although there are no accounts: anyone who reaches "
        "the port can read and change the log; say why (e.g. 'behind the district VPN's login proxy')",
    )
    p.add_argument(
        "--trusted-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name or address clients use to reach the service (repeatable); requests naming any other "
        "host are refused (loopback names and a specific --host are always trusted)",
    )
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default: 8000)")
    p.add_argument(
        "--db",
        default=None,
        help="the complaint log: a SQLite file, created when missing, or a PostgreSQL URL "
        "(postgresql://user:password@host:5432/dbname; the database must exist) "
        "(default: $MEALWATCH_HOME/complaints.db)",
    )
    p.add_argument("--max-batch", type=int, default=64, help="most texts in one pass through the model (default: 64)")
    p.add_argument(
        "--batch-wait-ms",
        type=float,
        default=5.0,
        help="the longest a complaint waits for others to share its pass through the model, in milliseconds "
        "(default: 5; 0: never wait)",
    )
    p.add_argument(
        "--batch-tokens",
        type=int,
        default=2048,
        help="most padded word pieces (texts x the longest text's pieces) in one pass (default: 2048)",
    )
    p.add_argument(
        "--timezone",
        default="Asia/Kolkata",
        help="the officers' time zone (an IANA name): the page "
        "shows times in it, incident dates without an offset are read in it (default: Asia/Kolkata)",
    )
    p.add_argument(
        "--alert-rules",
        type=Path,
        help="a TOML or JSON file of outbreak alert rules, replacing the defaults (see docs/serve.md)",
    )
    p.add_argument(
        "--alert-url",
        help="POST each raised or extended alert as JSON to this http(s) URL "
        "(retried with back-off, never delaying a save)",
    )
    p.add_argument(
        "--search",
        default="e5",
        help="search by meaning, similar complaints and incidents: e5 (default: multilingual-e5-small's vectors), "
        "model (the served model's fine-tuned encoder), or off",
    )
    from mealwatch.cli import add_speed_arguments

    add_speed_arguments(p)
    p.set_defaults(func=run)


def listen_settings(args: argparse.Namespace):
    """How the service listens (``serve.listening``), from the command line; UserError for a value it cannot use."""
    import ipaddress

    from mealwatch.cli import UserError
    from mealwatch.serve.listening import ListenSettings

    if args.max_connections < 10:
        raise UserError(f"--max-connections must be at least 10, not {args.max_connections}")
    if not 1 <= args.header_timeout <= 600:
        raise UserError(f"--header-timeout must be between 1 and 600 seconds, not {args.header_timeout:g}")
    proxies = []
    for address in args.proxy:
        try:
            proxies.append(str(ipaddress.ip_address(address.strip().strip("[]"))))
        except ValueError:
            raise UserError(f"--proxy {address!r}: give the proxy's IP address, e.g. 127.0.0.1 or 10.0.0.2") from None
    return ListenSettings(args.host, args.port, tuple(proxies), args.max_connections, args.header_timeout)


def check_port_free(host: str, port: int) -> None:
    """Raise UserError when ``host:port`` cannot be listened on."""
    from mealwatch.cli import UserError

    try:
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        with socket.socket(family, socket.SOCK_STREAM) as s:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind((host, port))
    except OSError as e:
        raise UserError(f"cannot listen on {host}:{port} ({e.strerror or e}): pass another --port or --host") from None


def check_remote(host: str, reason: str | None, trusted_hosts: list[str], accounts: bool = False) -> list[str]:
    """The host names to trust besides loopback; UserError for a non-loopback --host without accounts or
    --allow-remote."""
    from mealwatch.cli import UserError
    from mealwatch.serve.security import is_loopback

    names = [h.strip() for h in trusted_hosts if h.strip()]
    if is_loopback(host):
        return names
    if not accounts and (reason is None or not reason.strip()):
        raise UserError(
            f"--host {host} would let other machines reach the service, which has no accounts: anyone could read "
            "and change the complaint log; keep the default 127.0.0.1, turn accounts on (`mealwatch users add` an "
            "admin, then serve --accounts), or say why with --allow-remote REASON"
        )
    if host not in ("0.0.0.0", "::", ""):
        names.append(host)
    if not names:
        raise UserError(
            f"--host {host} listens on every address: name the host names or addresses clients will use to reach "
            "it with --trusted-host NAME (requests naming any other host are refused)"
        )
    return names


def add_admin_command(db: str) -> str:
    """The command that creates an admin of every district in the log ``db``."""
    from mealwatch.runs import default_log_path

    where = f" --db {shlex.quote(db)}" if db != str(default_log_path()) else ""
    return f"mealwatch users add NAME --role admin --districts '*'{where}"


def check_accounts(args: argparse.Namespace) -> bool:
    """Whether accounts are on (--accounts, or a user in the log). With them on and no enabled admin: on a
    terminal, the first admin is asked for and added; otherwise (a service manager, a script) UserError saying
    how to add one."""
    from mealwatch.cli import UserError
    from mealwatch.log import open_log
    from mealwatch.runs import default_log_path

    args.db = args.db or str(default_log_path())
    log = open_log(args.db)
    try:
        on = args.accounts or log.has_users()
        if on and log.count_users("admin") == 0:
            if not sys.stdin.isatty():
                raise UserError(
                    f"accounts are on but the log has no enabled admin: create one with `{add_admin_command(args.db)}` "
                    "(it asks for the password), then start again"
                )
            first_admin(log, args.db)
    finally:
        log.close()
    return on


def first_admin(log, db: str) -> None:
    """Ask on the terminal for the first admin (every district) and add them; UserError when none is given."""
    from mealwatch.cli import UserError
    from mealwatch.cli.users import add_user, read_password

    print(
        "accounts are on but the log has no enabled admin: create the first one now (an admin of every district; "
        f"Ctrl-C stops; later: `{add_admin_command(db)}`)"
    )
    try:
        name = input("admin name: ")
        user = add_user(log, name, "admin", "*", lambda: read_password(False))
    except (EOFError, KeyboardInterrupt):
        print()
        raise UserError(f"no admin was created: create one with `{add_admin_command(db)}`, then start again") from None
    print(f"added admin {user['name']!r} for every district")


def session_settings(args: argparse.Namespace):
    """The sessions' lifetimes and TLS as the command line sets them (``serve.auth.AccountSettings``); UserError for
    a lifetime that is no number of minutes or hours."""
    from datetime import timedelta

    from mealwatch.cli import UserError
    from mealwatch.serve.auth import AccountSettings

    try:
        idle, absolute = timedelta(minutes=args.session_idle_minutes), timedelta(hours=args.session_hours)
    except (ValueError, OverflowError):  # NaN, infinite, or past timedelta's ends
        raise UserError(
            "--session-idle-minutes and --session-hours must be numbers above 0, not "
            f"{args.session_idle_minutes:g} and {args.session_hours:g}"
        ) from None
    return AccountSettings(idle=idle, absolute=absolute, tls_proxy=args.tls_proxy)


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError
    from mealwatch.serve.startup import StartError, checked_batching, checked_sessions

    if not 1 <= args.port <= 65535:
        raise UserError(f"--port must be between 1 and 65535, not {args.port}")
    sessions = session_settings(args)
    try:  # create_app's checks of these options (serve/startup.py), before the log is opened or a model loaded
        checked_batching(args.max_batch, args.batch_wait_ms / 1000, args.batch_tokens)
        checked_sessions(sessions)
    except StartError as e:
        raise UserError(str(e)) from None
    listen = listen_settings(args)
    accounts = check_accounts(args)
    trusted = check_remote(args.host, args.allow_remote, args.trusted_host, accounts)
    check_port_free(args.host, args.port)

    from mealwatch.memory import tune_allocator

    tune_allocator()
    import uvicorn

    from mealwatch.log import redact
    from mealwatch.runs import resolve_model
    from mealwatch.serve import create_app
    from mealwatch.serve.listening import raise_fd_limit, server_options

    model_dir = resolve_model(args.model)
    from mealwatch.cli import speed_options

    try:  # the start-up checks are create_app's (serve/startup.py): the options, then the log, then the model
        app = create_app(model_dir, args.db, max_batch=args.max_batch, batch_wait_s=args.batch_wait_ms / 1000,
                         batch_tokens=args.batch_tokens, speed=speed_options(args), timezone=args.timezone,
                         alert_rules=args.alert_rules, alert_url=args.alert_url, trusted_hosts=trusted,
                         accounts=accounts or None, account_settings=sessions,
                         search=None if args.search == "off" else args.search)  # fmt: skip
    except StartError as e:
        raise UserError(str(e)) from None
    service = app.state.service
    from mealwatch.checksums import DIGEST_FILE

    checked = "its weights match their recorded SHA-256" if (model_dir / DIGEST_FILE).is_file() else (
        f"its weights not checked: no {DIGEST_FILE}, saved before mealwatch recorded one")  # fmt: skip
    print(
        f"model: {model_dir} (version {service.predictor.version}, running in {service.predictor.pipeline.mode}; "
        f"{checked})"
    )
    print(
        f"batching: a complaint waits at most {args.batch_wait_ms:g} ms for others; a pass takes at most "
        f"{args.max_batch} complaints and {args.batch_tokens} padded word pieces"
    )
    print(
        f"complaint log: {redact(args.db)} ({service.store.count()} complaints, "
        f"schema version {service.store.schema_version})"
    )
    if service.search is not None:
        print(f"search and incidents: {service.search.search.version} (complaints without vectors are embedded in "
              "the background, newest first)")  # fmt: skip
    shown = f"[{args.host}]" if ":" in args.host else args.host
    if accounts:
        print(
            f"accounts on: log in at /login; sessions end after {args.session_idle_minutes:g} idle minutes or "
            f"{args.session_hours:g} hours" + ("; cookies Secure (--tls-proxy)" if args.tls_proxy else "")
        )
    elif args.allow_remote:
        print(
            f"WARNING: listening on {args.host} without accounts ({args.allow_remote}); anyone who reaches "
            f"port {args.port} can read and change the complaint log; answering to: {', '.join(trusted)}"
        )
    else:
        print(
            "no accounts: a single-user tool on this machine; to require logins, create an admin with "
            f"`{add_admin_command(args.db)}` and start again"
        )
    rules_shown = ", ".join(r.name for r in service.alerts.rules)
    print(
        f"alert rules: {rules_shown}; times shown in {args.timezone}"
        + (f"; webhook {args.alert_url}" if args.alert_url else "")
    )
    wanted = listen.max_connections
    listen.max_connections = raise_fd_limit(wanted)
    print(
        f"connections: at most {listen.max_connections} at once"
        + (f" (not {wanted}: the open-file limit)" if listen.max_connections < wanted else "")
        + f", {listen.per_address} from one address; headers within {listen.header_timeout_s:g} s; "
        + (f"forwarded addresses believed from {', '.join(listen.proxies)}" if listen.proxies
           else "X-Forwarded-For ignored (no --proxy)")
    )  # fmt: skip
    print(f"open http://{shown}:{args.port}/ (the API is documented at /docs); Ctrl-C stops")
    try:
        uvicorn.run(app, **server_options(listen))
    finally:  # the model's thread is stopped before the interpreter exits, however uvicorn ended
        service.predictor.close()
    return 0
