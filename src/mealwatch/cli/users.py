"""``mealwatch users add/list/password/disable/enable``: the accounts of the triage service, kept in its complaint
log. Changes take effect at once, also under a running service (it reads them from the log at each request)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable


def add_db_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--db",
        default=None,
        help="the complaint log `mealwatch serve` uses: a SQLite file or a PostgreSQL URL "
        "(default: $MEALWATCH_HOME/complaints.db, as for serve)",
    )


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "users",
        help="add, list, disable or enable the accounts that may use `mealwatch serve`",
        description="Accounts of the triage service. Once the log holds a user, `mealwatch serve` requires a login. "
        "Roles: viewer (reads), officer (also saves and changes complaints, acknowledges alerts), admin (also "
        "manages users and tokens, reads the audit log).",
    )
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    add = verbs.add_parser("add", help="add a user (the password is asked for, or read from stdin)")
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=("viewer", "officer", "admin"))
    add.add_argument("--districts", required=True, help="D1,D2 (the districts the user sees), or '*' for every one")
    add.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    add_db_argument(add)
    password = verbs.add_parser("password", help="set a user's new password (forgotten or exposed); their sessions end")
    password.add_argument("name")
    password.add_argument(
        "--password-stdin", action="store_true", help="read the new password from the first line of stdin"
    )
    add_db_argument(password)
    for name, text in (("list", "list the users"), ("disable", "disable a user (their sessions end)"),
                       ("enable", "enable a disabled user")):  # fmt: skip
        v = verbs.add_parser(name, help=text)
        if name != "list":
            v.add_argument("name")
        add_db_argument(v)
    p.set_defaults(func=run)


def open_accounts_log(db: str | None):
    from mealwatch.log import open_log
    from mealwatch.runs import default_log_path

    return open_log(db or default_log_path())


def read_password(from_stdin: bool) -> str:
    from mealwatch.cli import UserError

    if from_stdin:
        line = sys.stdin.readline()
        if not line:
            raise UserError("--password-stdin: stdin is empty; send the password on its first line")
        return line.rstrip("\r\n")
    if not sys.stdin.isatty():
        raise UserError("no terminal to ask for the password on: pass --password-stdin and send it on stdin")
    import getpass

    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        raise UserError("the two passwords differ: nothing was changed")
    return first


def add_user(log, name: str, role: str, districts: str, password: Callable[[], str]) -> dict:
    """Add a user to ``log`` (the password asked for by ``password()`` once the name and districts are checked),
    audited as added on the command line; the user. UserError when a value is refused."""
    from mealwatch.accounts import AccountError, check_name, hash_password, parse_districts
    from mealwatch.cli import UserError

    try:
        name, places = check_name(name), parse_districts(districts)
        password_hash = hash_password(password())
    except AccountError as e:
        raise UserError(str(e)) from None
    user = log.add_user(name, password_hash, role, places)
    log.audit("(command line)", "user_add", f"user {user['name']}", {"role": role, "districts": places}, None, places)
    return user


def set_password(log, name: str, password: Callable[[], str]) -> dict:
    """Give ``name`` the password ``password()`` asks for (once the user is found), ending their sessions; audited
    as done on the command line. UserError for an unknown user or a password refused."""
    from mealwatch.accounts import AccountError, hash_password
    from mealwatch.cli import UserError

    found = log.user(name)
    if found is None:
        raise UserError(f"no user named {name!r} (see `mealwatch users list`)")
    try:
        password_hash = hash_password(password())
    except AccountError as e:
        raise UserError(str(e)) from None
    user = log.set_user_password(name, password_hash)
    log.audit("(command line)", "user_password", f"user {user['name']}", districts=user["districts"])
    return user


def run(args: argparse.Namespace) -> int:
    from mealwatch.cli import UserError

    log = open_accounts_log(args.db)
    try:
        if args.verb == "add":
            user = add_user(log, args.name, args.role, args.districts, lambda: read_password(args.password_stdin))
            print(f"added {user['role']} {user['name']!r} for {', '.join(user['districts'])}")
        elif args.verb == "password":
            user = set_password(log, args.name, lambda: read_password(args.password_stdin))
            print(f"new password for {user['name']!r} (their sessions have ended)")
        elif args.verb == "list":
            rows = log.users()
            if not rows:
                print("no users: the service runs without accounts (loopback only)")
            for u in rows:
                state = "disabled" if u["disabled"] else "enabled"
                when = u["last_login_at"] or "never"
                print(f"{u['name']}\t{u['role']}\t{','.join(u['districts'])}\t{state}\tlast login {when}")
        else:
            user = log.set_user_disabled(args.name, args.verb == "disable")
            if user is None:
                raise UserError(f"no user named {args.name!r} (see `mealwatch users list`)")
            log.audit("(command line)", f"user_{args.verb}", f"user {user['name']}", districts=user["districts"])
            print(f"{args.verb}d {user['name']!r}" + (" (their sessions have ended)" if args.verb == "disable" else ""))
    finally:
        log.close()
    return 0
