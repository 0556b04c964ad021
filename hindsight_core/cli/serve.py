"""Serving and showing: the MCP server and the demo."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

import click

from .edge import optional_extra
from .options import env, pass_settings
from .settings import Settings

LOOPBACK = {"127.0.0.1", "localhost", "::1"}

if TYPE_CHECKING:
    from ..mcp.server import Transport


def check_token(token: str | None) -> None:
    """`--token` as `mcp`, `ui` and `serve` all take it: absent, or strong enough (`mcp.scope.strong_token`);
    anything else is the same usage error (exit 2) from each."""
    from ..mcp.scope import MIN_TOKEN_CHARS, strong_token

    if token is None or strong_token(token):
        return
    example = '`--token "$(openssl rand -hex 16)"`'
    if not token.strip():
        raise click.UsageError(f"the token is empty (is the variable you passed set?); give a real one, e.g. "
                               f"{example}, or leave --token out")
    raise click.UsageError(f"--token must be at least {MIN_TOKEN_CHARS} characters, without surrounding spaces; "
                           f"e.g. {example}")


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
@click.option("--host", default="127.0.0.1", show_default=True, **env("HINDSIGHT_MCP_HOST"),
              help="With --http or --sse: the address to listen on. Off loopback a token is required.")
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535), **env("HINDSIGHT_MCP_PORT"),
              help="With --http or --sse: the port to listen on.")
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

    check_token(token)  # `--token "$TOKEN"` with TOKEN unset: serving without one would be a silent surprise
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

    memory = settings.open_memory(create=True)  # a client of `hindsight serve` when one holds the store
    try:
        if memory.holds_store:  # the model is loaded here: now, not on the first request
            memory.embedder.load()
        server = build_server(memory, scope, host=host, port=port, write_source=write_source)
        if transport != "stdio":
            click.echo(f"hindsight MCP server on http://{host}:{port}"
                       f"{'/mcp' if transport == 'streamable-http' else '/sse'} ({settings.describe()})", err=True)
        run_server(server, cast("Transport", transport), host=host, port=port, scope=scope)  # a click choice
    finally:
        memory.close()


@click.command(help="Inspect and correct memories in the browser: a local page served by this process.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Off loopback a --token is required.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535), help="0: any free port.")
@click.option("--token", **env("HINDSIGHT_UI_TOKEN"), help="Require this token (the printed link carries it).")
@pass_settings
def ui(settings: Settings, host: str, port: int, token: str | None) -> None:
    from ..ui.cli import run

    check_token(token)
    running = settings.server()
    if running is not None:  # the server holds the store and serves the inspector already
        from urllib.parse import quote

        click.echo(f"`hindsight serve` (pid {running.pid}) holds this store and serves the inspector:", err=True)
        click.echo(running.url + "/" + (f"?token={quote(running.token, safe='')}" if running.token else ""))
        return
    run(settings.open_memory, host=host, port=port, token=token, describe=settings.describe())


@click.command(name="serve", help="Hold the store and serve it to every other process on one port: the HTTP API "
                                  "(for the CLI and HindsightClient), MCP at /mcp and the inspector at /. "
                                  "Other hindsight commands on this store then go through it.")
@click.option("--host", default="127.0.0.1", show_default=True, **env("HINDSIGHT_SERVE_HOST"),
              help="Off loopback a --token or --tokens-file is required.")
@click.option("--port", default=8765, show_default=True, type=click.IntRange(0, 65535), **env("HINDSIGHT_SERVE_PORT"),
              help="0: any free port (the address is recorded in STORE/server.json).")
@click.option("--token", **env("HINDSIGHT_SERVE_TOKEN"),
              help="The server's own token: reaches every user, and opens the inspector.")
@click.option("--tokens-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              **env("HINDSIGHT_SERVE_TOKENS_FILE"), help='Per-user tokens, JSON {"user_id": "token", ...}: each '
                                                         'reaches its own user only (API and MCP).')
@click.option("--user-id", "-u", "mcp_user", **env("HINDSIGHT_USER_ID"),
              help="The user MCP tools act for when no per-user token names one (without it and without "
                   "--tokens-file, /mcp is not served).")
@click.option("--write-source", type=click.Choice(["agent", "user", "tool"]), default="agent", show_default=True,
              **env("HINDSIGHT_MCP_WRITE_SOURCE"), help="Who MCP writes are recorded as coming from.")
@click.option("--recall-log/--no-recall-log", default=None,
              help="Keep what each recall gave the agent, per user (in memory only).  "
                   "[default: on for loopback, off elsewhere]")
@click.option("--recall-log-entries", default=200, show_default=True, type=click.IntRange(1, 100_000),
              help="Recalls kept per user.")
@click.option("--recall-log-days", default=7.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help="Recalls older than this leave the log.")
@pass_settings
def serve_command(settings: Settings, host: str, port: int, token: str | None, tokens_file: Path | None,
          mcp_user: str | None, write_source: str, recall_log: bool | None, recall_log_entries: int,
          recall_log_days: float) -> None:
    from ..mcp.scope import UserScope
    from ..ui.security import is_loopback

    check_token(token)
    user_tokens = dict(UserScope.from_tokens_file(tokens_file).tokens) if tokens_file is not None else {}
    if token is None and not user_tokens and not is_loopback(host):
        raise click.UsageError(f"serving on {host} without a token would give every user's memories to anyone who "
                               "can reach it; set --token (HINDSIGHT_SERVE_TOKEN) or --tokens-file")
    if token is None and not user_tokens:
        click.echo("warning: no token: any program on this machine can read and change every user's memories "
                   "through this server; set --token (HINDSIGHT_SERVE_TOKEN) or --tokens-file to require one",
                   err=True)
    running = settings.server()
    if running is not None:
        raise click.ClickException(f"`hindsight serve` (pid {running.pid}) already serves this store at "
                                   f"{running.url}; use it, or stop it first")
    try:
        import uvicorn  # noqa: F401  (brought by the mcp extra)
    except ImportError as exc:
        optional_extra(exc, "uvicorn", "mcp")
    from ..remote.runner import ServeOptions
    from ..remote.runner import serve as run_serve

    options = ServeOptions(host=host, port=port, token=token, user_tokens=user_tokens, mcp_user=mcp_user,
                           write_source=write_source, recall_log=recall_log, recall_log_entries=recall_log_entries,
                           recall_log_days=recall_log_days)
    try:
        run_serve(lambda: settings.open_memory(direct=True, create=True), options,
                  store_folder=None if settings.qdrant_url else settings.store_path,
                  say=lambda line: click.echo(line, err=True))
    except OSError as exc:
        raise click.ClickException(f"cannot listen on {host}:{port} ({exc.strerror or exc}); choose another "
                                   "--port (0 picks a free one)") from None
