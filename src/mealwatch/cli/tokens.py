"""``mealwatch tokens create/list/revoke``: API tokens for intake systems (an SMS gateway, an IVR line)."""

from __future__ import annotations

import argparse

from mealwatch.cli.users import add_db_argument, open_accounts_log


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "tokens",
        help="create, list or revoke API tokens for systems that send complaints (Authorization: Bearer ...)",
        description="An API token acts with a role and districts, like a user, without a password or a session. "
        "The token is printed once, when created; the log keeps only its SHA-256.",
    )
    verbs = p.add_subparsers(dest="verb", required=True, metavar="VERB")
    create = verbs.add_parser("create", help="create a token and print it (once)")
    create.add_argument("--name", required=True, help="what uses it, e.g. sms-gateway")
    create.add_argument("--role", required=True, choices=("viewer", "officer", "admin"))
    create.add_argument("--districts", required=True, help="D1,D2, or '*' for every district")
    add_db_argument(create)
    listing = verbs.add_parser("list", help="list the tokens (never the tokens themselves)")
    add_db_argument(listing)
    revoke = verbs.add_parser("revoke", help="revoke a token: requests with it are refused from now on")
    revoke.add_argument("name")
    add_db_argument(revoke)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mealwatch.accounts import AccountError, check_name, new_secret, parse_districts, secret_hash
    from mealwatch.cli import UserError

    log = open_accounts_log(args.db)
    try:
        if args.verb == "create":
            try:
                name, districts = check_name(args.name, "a token name"), parse_districts(args.districts)
            except AccountError as e:
                raise UserError(str(e)) from None
            token = new_secret("mw_")
            row = log.add_token(name, secret_hash(token), args.role, districts)
            detail = {"role": row["role"]}
            log.audit("(command line)", "token_create", f"token {row['name']}", detail, districts=row["districts"])
            print(f"token {row['name']!r} ({row['role']}, {', '.join(row['districts'])}); shown this once:")
            print(token)
        elif args.verb == "list":
            for t in log.tokens():
                state = f"revoked {t['revoked_at']}" if t["revoked_at"] else "active"
                when = t["last_used_at"] or "never"
                print(f"{t['name']}\t{t['role']}\t{','.join(t['districts'])}\t{state}\tlast used {when}")
        else:
            row = log.revoke_token(args.name)
            if row is None:
                raise UserError(f"no token named {args.name!r} (see `mealwatch tokens list`)")
            log.audit("(command line)", "token_revoke", f"token {row['name']}", districts=row["districts"])
            print(f"revoked {row['name']!r}")
    finally:
        log.close()
    return 0
