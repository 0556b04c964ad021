"""Options shared by several commands."""

from __future__ import annotations

from typing import Any

import click


def env(name: str) -> dict[str, Any]:
    """Let an option fall back to environment variable `name`, and show it in --help."""
    return {"envvar": name, "show_envvar": True}


user_option = click.option("--user-id", "-u", required=True, **env("HINDSIGHT_USER_ID"), help="Whose memories.")


def users_option(command: Any) -> Any:
    """-u/--user-id (repeatable) as on every other command; the old --user stays as a hidden alias."""
    def merge(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(ctx.params.pop("old_users", ())) + tuple(value)

    command = click.option("--user-id", "-u", "users", multiple=True, callback=merge,
                           help="Only this user (repeatable).  [default: every user]")(command)
    return click.option("--user", "old_users", multiple=True, hidden=True, is_eager=True, expose_value=True)(command)


def counted(n: int, one: str, many: str) -> str:
    """'1 memory', '2 memories'."""
    return f"{n} {one if n == 1 else many}"
pass_settings = click.pass_obj
