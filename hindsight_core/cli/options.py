"""Options shared by several commands."""

from __future__ import annotations

from typing import Any

import click


def env(name: str) -> dict[str, Any]:
    """Let an option fall back to environment variable `name`, and show it in --help."""
    return {"envvar": name, "show_envvar": True}


user_option = click.option("--user-id", "-u", required=True, **env("HINDSIGHT_USER_ID"), help="Whose memories.")
users_option = click.option("--user", "users", multiple=True,
                            help="Only this user (repeatable).  [default: every user]")
pass_settings = click.pass_obj
