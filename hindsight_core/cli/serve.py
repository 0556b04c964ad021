"""Serving and showing: the MCP server and the demo."""

from __future__ import annotations

from pathlib import Path

import click

from .edge import optional_extra
from .options import env, pass_settings
from .settings import Settings

LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@click.command(help="Run a scripted multi-day conversation on an embedded store and show what memory does.")
@click.option("--path", type=click.Path(path_type=Path), default=None,
              help="Keep the demo's embedded store in this folder (default: a temporary one, removed after).")
@pass_settings
def demo(settings: Settings, path: Path | None) -> None:
    from ..demo import claims, run_demo

    seen = run_demo(path, say=click.echo, embedder=settings.embedder())
    if not all(ok for ok, _ in claims(seen)):
        raise click.ClickException("some of the demo's claims did not hold in this run (marked ✗ above)")


@click.command(help="Serve memory to MCP clients: stdio by default, or --http (endpoint /mcp) or --sse.")
@click.option("--user-id", "-u", **env("HINDSIGHT_USER_ID"), help="The one user this server serves.")
@click.option("--http", "transport", flag_value="streamable-http", help="Streamable HTTP, endpoint /mcp.")
@click.option("--sse", "transport", flag_value="sse", help="Server-sent events, endpoint /sse.")
@click.option("--stdio", "transport", flag_value="stdio", default=True, help="stdin/stdout (the default).")
@click.option("--host", default="127.0.0.1", show_default=True, **env("HINDSIGHT_MCP_HOST"))
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535), **env("HINDSIGHT_MCP_PORT"))
@click.option("--token", **env("HINDSIGHT_MCP_TOKEN"),
              help="Require 'Authorization: Bearer TOKEN' over HTTP; the token stands for --user-id.")
@click.option("--tokens-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              **env("HINDSIGHT_MCP_TOKENS_FILE"), help='Several users: JSON {"user_id": "token", ...}.')
@click.option("--allow-unauthenticated", is_flag=True,
              help="Serve HTTP without a token on a non-loopback address (anyone who reaches it is the user).")
@click.option("--write-source", type=click.Choice(["agent", "user", "tool"]), default="agent", show_default=True,
              **env("HINDSIGHT_MCP_WRITE_SOURCE"),
              help="Who memory_write records as speaking. The caller is a model, so 'agent'; 'user' only when "
                   "the client is the user's own hand (the model never chooses).")
@pass_settings
def mcp(settings: Settings, user_id: str | None, transport: str, host: str, port: int, token: str | None,
        tokens_file: Path | None, allow_unauthenticated: bool, write_source: str) -> None:
    from ..mcp.scope import UserScope

    if token is not None and not token.strip():
        # `--token "$TOKEN"` with TOKEN unset: serving without one would be a silent surprise
        raise click.UsageError("--token is empty (is the variable you passed set?); give the token, "
                               "or leave --token out")
    if tokens_file is not None:
        if user_id or token:
            raise click.UsageError("--tokens-file names the users; do not also give --user-id or --token")
        scope = UserScope.from_tokens_file(tokens_file)
    elif user_id:
        scope = UserScope.single_user(user_id, token)
    else:
        raise click.UsageError("name the user with --user-id (or HINDSIGHT_USER_ID), or give --tokens-file")
    if transport == "stdio" and scope.authenticated:
        raise click.UsageError("tokens apply to --http and --sse; over stdio the server serves --user-id")
    if transport != "stdio" and not scope.authenticated:
        if host not in LOOPBACK and not allow_unauthenticated:
            raise click.UsageError(f"serving on {host} without a token would give anyone who can reach it "
                                   f"{scope.user_id}'s memories; set --token (HINDSIGHT_MCP_TOKEN) or "
                                   "--tokens-file, or pass --allow-unauthenticated")
        who = "any program on this machine" if host in LOOPBACK else f"anyone who can reach {host}"
        click.echo(f"warning: no token: {who} can read and change {scope.user_id}'s memories; "
                   "set --token (HINDSIGHT_MCP_TOKEN) to require one", err=True)
    try:
        from ..mcp import build_server, run_server  # imports mcp: only once the settings are known to be good
    except ImportError as exc:
        optional_extra(exc, "mcp", "mcp")

    memory = settings.open_memory()
    try:
        memory.embedder.load()  # now, not on the first request
        server = build_server(memory, scope, host=host, port=port, write_source=write_source)
        if transport != "stdio":
            click.echo(f"hindsight MCP server on http://{host}:{port}"
                       f"{'/mcp' if transport == 'streamable-http' else '/sse'} ({settings.describe()})", err=True)
        run_server(server, transport, host=host, port=port, scope=scope)  # type: ignore[arg-type]
    finally:
        memory.close()


@click.command(help="Inspect and correct memories in the browser: a local page served by this process.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Off loopback a --token is required.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="0: any free port.")
@click.option("--token", **env("HINDSIGHT_UI_TOKEN"), help="Require this token (the printed link carries it).")
@pass_settings
def ui(settings: Settings, host: str, port: int, token: str | None) -> None:
    from ..ui.cli import run

    run(settings.open_memory, host=host, port=port, token=token, describe=settings.describe())
