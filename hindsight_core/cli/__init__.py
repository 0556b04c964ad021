"""The `hindsight` command line. Environment variables are read here, never in the core.

Every setting comes from a flag, else an environment variable, else a default
(click resolves them in that order). The commands only parse and print: the
work is done by `Hindsight` and `hindsight_core.maintenance`.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

import click
import numpy as np

from .embedder import DEFAULT_MODEL, Embedder
from .errors import HindsightError

#: the hashing `FakeEmbedder` from hindsight_core.testing: instant, not semantic; for tests and trials
FAKE_MODEL = "fake-hash-embedder"

ENVIRONMENT = """\b
Environment variables (a flag wins over its variable):
  HINDSIGHT_HOME             folder for the embedded store (default ~/.hindsight)
  HINDSIGHT_STORE            embedded store folder (default $HINDSIGHT_HOME/store)
  HINDSIGHT_QDRANT_URL       use a Qdrant server instead of the embedded store
  HINDSIGHT_QDRANT_API_KEY   API key for that server
  HINDSIGHT_REDIS_URL        Redis for session working memory (passed on; no command here uses it yet)
  HINDSIGHT_EMBEDDING_MODEL  sentence-transformers model (default all-MiniLM-L6-v2)
  HINDSIGHT_USER_ID          the user for remember, recall, forget and mcp
  HINDSIGHT_MCP_TOKEN        bearer token the MCP server requires over HTTP (one user)
  HINDSIGHT_MCP_TOKENS_FILE  JSON {"user_id": "token"} for an MCP server with several users
  HINDSIGHT_MCP_HOST / HINDSIGHT_MCP_PORT   where the HTTP MCP server listens (127.0.0.1:8080)
"""


class LazyEmbedder:
    """An embedder that loads its model on first use, so commands that never embed start fast."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._inner: Embedder | None = None

    def _load(self) -> Embedder:
        if self._inner is None:
            if self.name == FAKE_MODEL:
                from .testing import FakeEmbedder

                self._inner = FakeEmbedder()
            else:
                from .embedder import SentenceTransformerEmbedder

                self._inner = SentenceTransformerEmbedder(self.name)
        return self._inner

    @property
    def dimension(self) -> int:
        return self._load().dimension

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return self._load().embed(texts)


@dataclass(frozen=True)
class Settings:
    """Where the store is and which model embeds, as resolved from flags, environment and defaults."""

    store_path: Path
    qdrant_url: str | None
    qdrant_api_key: str | None
    redis_url: str | None
    embedding_model: str

    def describe(self) -> str:
        return f"Qdrant server at {self.qdrant_url}" if self.qdrant_url else f"embedded store at {self.store_path}"

    def open_store(self) -> Any:
        from .store import QdrantStore

        if self.qdrant_url:
            return QdrantStore(url=self.qdrant_url, api_key=self.qdrant_api_key)
        return QdrantStore(path=self.store_path)

    def embedder(self, model: str | None = None) -> LazyEmbedder:
        return LazyEmbedder(model or self.embedding_model)

    def open_memory(self) -> Any:
        from .memory import Hindsight

        return Hindsight(store=self.open_store(), embedder=self.embedder())


class _Group(click.Group):
    """Turns hindsight's errors into one clear line and exit status 1, instead of a traceback."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except HindsightError as exc:
            raise click.ClickException(str(exc)) from exc


def _env(name: str) -> dict[str, Any]:
    return {"envvar": name, "show_envvar": True}


@click.group(cls=_Group, help="hindsight: long-term memory for LLM agents.", epilog=ENVIRONMENT)
@click.option("--home", type=click.Path(path_type=Path), **_env("HINDSIGHT_HOME"),
              help="Folder for hindsight's data.  [default: ~/.hindsight]")
@click.option("--store", "store_path", type=click.Path(path_type=Path), **_env("HINDSIGHT_STORE"),
              help="Embedded store folder.  [default: HOME/store]")
@click.option("--qdrant-url", **_env("HINDSIGHT_QDRANT_URL"), help="A Qdrant server to use instead.")
@click.option("--qdrant-api-key", **_env("HINDSIGHT_QDRANT_API_KEY"), help="API key for the Qdrant server.")
@click.option("--redis-url", **_env("HINDSIGHT_REDIS_URL"), help="Redis for working memory (not used yet).")
@click.option("--embedding-model", default=DEFAULT_MODEL, show_default=True, **_env("HINDSIGHT_EMBEDDING_MODEL"),
              help=f"Embedding model name or path ('{FAKE_MODEL}' for the instant test embedder).")
@click.pass_context
def main(ctx: click.Context, home: Path | None, store_path: Path | None, qdrant_url: str | None,
         qdrant_api_key: str | None, redis_url: str | None, embedding_model: str) -> None:
    from .memory import default_home

    root = home if home is not None else default_home()
    ctx.obj = Settings(store_path=store_path or root / "store", qdrant_url=qdrant_url or None,
                       qdrant_api_key=qdrant_api_key or None, redis_url=redis_url or None,
                       embedding_model=embedding_model)


user_option = click.option("--user-id", "-u", required=True, **_env("HINDSIGHT_USER_ID"),
                           help="Whose memories.")
users_option = click.option("--user", "users", multiple=True,
                            help="Only this user (repeatable).  [default: every user]")
pass_settings = click.pass_obj


@main.command(help="Run a scripted multi-day conversation on an embedded store and print what it injects.")
@click.option("--path", type=click.Path(path_type=Path), default=None,
              help="Folder for the demo's embedded store (default: a new temporary folder).")
def demo(path: Path | None) -> None:
    from .demo import run_demo

    run_demo(path)


# -- everyday commands ------------------------------------------------------------------------------------------
@main.command(help="Offer TEXT to memory; the write gate decides whether it is kept, and says why.")
@click.argument("text")
@user_option
@click.option("--session-id", help="The conversation it came from.")
@click.option("--source", type=click.Choice(["user", "agent", "tool", "system"]), default="user", show_default=True)
@click.option("--event-type", help="Override the gate's kind (preference, fact, correction, ...).")
@click.option("--force", is_flag=True, help="Store it even if the gate would not.")
@pass_settings
def remember(settings: Settings, text: str, user_id: str, session_id: str | None, source: str,
             event_type: str | None, force: bool) -> None:
    with settings.open_memory() as memory:
        result = memory.write(text, user_id=user_id, session_id=session_id, source=source, event_type=event_type,
                              force=force)
    if result.record is None:
        click.echo(f"not stored: {result.decision}")
    else:
        click.echo(f"stored {result.record.id} ({result.record.event_type}): {'; '.join(result.decision.reasons)}")


@main.command(help="Show the memories recall would bring back for QUERY: scores and why.")
@click.argument("query")
@user_option
@click.option("-k", "--results", "k", default=5, show_default=True, type=click.IntRange(1, 1000))
@click.option("--time-range", help="e.g. last_7_days, today, yesterday, last_month.")
@click.option("--include-faded", is_flag=True, help="Also show memories below the retention threshold.")
@click.option("--reinforce/--no-reinforce", default=False, show_default=True,
              help="Count this as a recall (strengthens the memories shown). Off: looking does not change them.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@pass_settings
def recall(settings: Settings, query: str, user_id: str, k: int, time_range: str | None, include_faded: bool,
           reinforce: bool, as_json: bool) -> None:
    with settings.open_memory() as memory:
        results = memory.recall(query, user_id=user_id, k=k, time_range=time_range, include_faded=include_faded,
                                reinforce=reinforce)
    if as_json:
        click.echo(json.dumps([{"score": r.score, "retention": r.retention, "why": str(r.explanation),
                                "memory": r.memory.to_payload()} for r in results], ensure_ascii=False, indent=2))
        return
    if not results:
        click.echo("no memories found")
        return
    width = max(60, shutil.get_terminal_size((120, 20)).columns)
    head = f"{'#':>2}  {'score':>7}  {'ret.':>4}  {'type':<11}  {'date':<10}  memory"
    click.echo(head)
    for i, r in enumerate(results, 1):
        lead = f"{i:>2}  {r.score:>7.4f}  {r.retention:>4.2f}  {r.memory.event_type[:11]:<11}  " \
               f"{r.memory.timestamp:%Y-%m-%d}  "
        click.echo(lead + textwrap.shorten(r.memory.summary, max(20, width - len(lead)), placeholder="..."))
        click.echo(textwrap.fill(f"id {r.memory.id}; {r.explanation}", width, initial_indent=" " * 4,
                                 subsequent_indent=" " * 6))


@main.command(help="Forget memories for good: one by --id, all --about a topic, or --everything.")
@user_option
@click.option("--id", "memory_id", help="The id of one memory (see `recall`).")
@click.option("--about", help="A topic: every memory about it.")
@click.option("--everything", is_flag=True, help="All of this user's memories, the archive included.")
@click.option("--dry-run", is_flag=True, help="Only show what would be forgotten.")
@click.option("--yes", is_flag=True, help="Do not ask before forgetting everything.")
@pass_settings
def forget(settings: Settings, user_id: str, memory_id: str | None, about: str | None, everything: bool,
           dry_run: bool, yes: bool) -> None:
    from . import maintenance

    if sum(x is not None and x is not False for x in (memory_id, about, everything)) != 1:
        raise click.UsageError("give exactly one of --id, --about or --everything")
    if everything and not dry_run and not yes:
        click.confirm(f"Forget every memory of {user_id!r}, for good?", abort=True)
    with settings.open_memory() as memory:
        # forgetting a user drops their archive too: count it first, to report it
        purged = maintenance.archived_count(memory.store, user_id) if everything else 0
        receipt = memory.forget(user_id=user_id, memory_id=memory_id, about=about, everything=everything,
                                dry_run=dry_run)
        if not dry_run and (receipt.count or purged) and hasattr(memory, "compact"):
            memory.compact()  # for good: no trace left in the embedded store's files either
    verb = "would forget" if dry_run else "forgot"
    click.echo(f"{verb} {receipt.count} memor{'y' if receipt.count == 1 else 'ies'}"
               + (f" and {purged} archived" if purged else ""))
    for record in receipt.removed:
        click.echo(f"  {record.id}  {record.summary}")


# -- looking after the store ------------------------------------------------------------------------------------
def _size(n: int | None) -> str:
    if n is None:
        return "n/a"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{n} B"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


@main.command(help="Counts per layer and status, the retention distribution and the store's size.")
@users_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, writable=True, path_type=Path),
              help="Also draw the counts and the retention distribution to this PNG (needs the plot extra).")
@pass_settings
def stats(settings: Settings, users: tuple[str, ...], as_json: bool, plot_path: Path | None) -> None:
    from . import maintenance

    with settings.open_memory() as memory:
        report = maintenance.stats(memory, users=users or None)
    if plot_path is not None:
        from .plots import stats_figure

        stats_figure(report, path=plot_path)
        click.echo(f"plot written to {plot_path}", err=True)  # stderr: keeps --json output parseable
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
        return
    click.echo(f"{settings.describe()}: {_size(report.store_bytes)} on disk")
    click.echo(f"users: {len(report.users)}   memories: {report.memories}   archived: {report.archived}")
    click.echo("by layer:   " + "   ".join(f"{k} {v}" for k, v in report.layers.items()))
    click.echo("by status:  " + "   ".join(f"{k} {v}" for k, v in report.statuses.items()))
    click.echo(f"retention now (below {report.threshold:.2f} is faded: kept, not recalled):")
    histogram = report.retention_histogram()
    top = max([count for _, count in histogram] + [1])
    for label, count in histogram:
        click.echo(f"  {label}  {'#' * round(30 * count / top):<30} {count}")


@main.command(name="export", help="Write memories as JSON Lines (to FILE, or stdout with -), vectors included.")
@click.argument("file", type=click.File("w", encoding="utf-8"), default="-")
@users_option
@click.option("--vectors/--no-vectors", default=True, show_default=True,
              help="Include embeddings. Without them, import re-embeds every memory.")
@click.option("--archive/--no-archive", "include_archive", default=True, show_default=True,
              help="Include archived memories.")
@pass_settings
def export_command(settings: Settings, file: Any, users: tuple[str, ...], vectors: bool,
                   include_archive: bool) -> None:
    from . import maintenance
    from .clock import system_clock

    store = settings.open_store()
    try:
        summary = maintenance.export_jsonl(store, file, users=users or None, vectors=vectors,
                                           include_archive=include_archive, now=system_clock())
    finally:
        store.close()
    click.echo(f"exported {summary.memories} memories and {summary.archived} archived of "
               f"{len(summary.users)} users", err=True)


@main.command(name="import", help="Load a JSON Lines export. Vectors are reused when the model matches.")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@pass_settings
def import_command(settings: Settings, file: Any) -> None:
    from . import maintenance

    store = settings.open_store()
    try:
        summary = maintenance.import_jsonl(store, settings.embedder(), file)
    finally:
        store.close()
    click.echo(f"imported {summary.memories} memories and {summary.archived} archived of {len(summary.users)} "
               f"users; {summary.reembedded} re-embedded with {settings.embedding_model}")


@main.command(help="Re-embed every memory with another model. Resumable: run it again after an interruption.")
@click.option("--to", "model", help="The new embedding model (name or path).")
@click.option("--batch-size", default=64, show_default=True, type=click.IntRange(1, 4096))
@click.option("--abort", is_flag=True, help="Abandon an unfinished migration (its staged copies are dropped).")
@pass_settings
def migrate(settings: Settings, model: str | None, batch_size: int, abort: bool) -> None:
    from . import maintenance
    from .clock import system_clock

    store = settings.open_store()
    try:
        if abort:
            dropped = maintenance.abort_migration(store)
            click.echo("unfinished migration abandoned" if dropped else "no migration in progress")
            return
        current = maintenance.migration_in_progress(store)
        model = model or (current or {}).get("model")
        if not model:
            raise click.UsageError("name the new model with --to MODEL")
        embedder = settings.embedder(model)
        plan = maintenance.plan_migration(store, embedder)
        if not plan.users and not plan.resumed:
            click.echo(f"every user is already embedded with {model}")
            return
        if plan.resumed:
            click.echo(f"resuming the migration to {model}: {plan.done} of {plan.total} memories already done")
        try:
            with click.progressbar(length=plan.remaining, label=f"re-embedding with {model}",
                                   show_pos=True) as bar:
                report = maintenance.migrate(store, embedder, plan=plan, batch_size=batch_size,
                                             progress=bar.update, now=system_clock())
        except KeyboardInterrupt:
            click.echo(f"\ninterrupted; what is done is kept. Run `hindsight migrate --to {model}` to resume, "
                       "or `hindsight migrate --abort` to give up.", err=True)
            sys.exit(130)
    finally:
        store.close()
    click.echo(f"migrated {len(report.users)} users to {model} ({report.embedded} memories embedded now, "
               f"{report.resumed_from} earlier). Use it from now on: HINDSIGHT_EMBEDDING_MODEL={model}")


@main.command(help="Move memories inactive for N days out of recall into an archive, or --restore them.")
@users_option
@click.option("--older-than", "days", default=90, show_default=True, type=click.FloatRange(min=0),
              help="Days since a memory was created or last recalled.")
@click.option("--restore", is_flag=True, help="Move archived memories back (all, or those given with --id).")
@click.option("--id", "memory_ids", multiple=True, help="With --restore: only this memory (repeatable).")
@click.option("--dry-run", is_flag=True, help="Only show what would move.")
@pass_settings
def archive(settings: Settings, users: tuple[str, ...], days: float, restore: bool, memory_ids: tuple[str, ...],
            dry_run: bool) -> None:
    from . import maintenance
    from .clock import system_clock

    if memory_ids and not restore:
        raise click.UsageError("--id only applies with --restore")
    store = settings.open_store()
    try:
        if restore:
            report = maintenance.restore(store, users=users or None, memory_ids=memory_ids or None, dry_run=dry_run)
            verb = "would restore" if dry_run else "restored"
        else:
            report = maintenance.archive(store, now=system_clock(), older_than_days=days, users=users or None,
                                         dry_run=dry_run)
            verb = "would archive" if dry_run else "archived"
    finally:
        store.close()
    click.echo(f"{verb} {report.count} memor{'y' if report.count == 1 else 'ies'}")
    for record in report.moved:
        click.echo(f"  {record.id}  {record.user_id}  {record.timestamp:%Y-%m-%d}  {record.summary[:80]}")
    if report.missing:
        raise click.ClickException(f"not in the archive: {', '.join(report.missing)}")


# -- serving ----------------------------------------------------------------------------------------------------
_LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@main.command(help="Serve memory to MCP clients: stdio by default, or --http (endpoint /mcp) or --sse.")
@click.option("--user-id", "-u", **_env("HINDSIGHT_USER_ID"), help="The one user this server serves.")
@click.option("--http", "transport", flag_value="streamable-http", help="Streamable HTTP, endpoint /mcp.")
@click.option("--sse", "transport", flag_value="sse", help="Server-sent events, endpoint /sse.")
@click.option("--stdio", "transport", flag_value="stdio", default=True, help="stdin/stdout (the default).")
@click.option("--host", default="127.0.0.1", show_default=True, **_env("HINDSIGHT_MCP_HOST"))
@click.option("--port", default=8080, show_default=True, type=click.IntRange(1, 65535), **_env("HINDSIGHT_MCP_PORT"))
@click.option("--token", **_env("HINDSIGHT_MCP_TOKEN"),
              help="Require 'Authorization: Bearer TOKEN' over HTTP; the token stands for --user-id.")
@click.option("--tokens-file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              **_env("HINDSIGHT_MCP_TOKENS_FILE"), help='Several users: JSON {"user_id": "token", ...}.')
@click.option("--allow-unauthenticated", is_flag=True,
              help="Serve HTTP without a token on a non-loopback address (anyone who reaches it is the user).")
@pass_settings
def mcp(settings: Settings, user_id: str | None, transport: str, host: str, port: int, token: str | None,
        tokens_file: Path | None, allow_unauthenticated: bool) -> None:
    from .mcp.scope import UserScope

    if tokens_file is not None:
        if user_id or token:
            raise click.UsageError("--tokens-file names the users; do not also give --user-id or --token")
        scope = UserScope.from_tokens_file(tokens_file)
    elif user_id:
        scope = UserScope.single_user(user_id, token or None)
    else:
        raise click.UsageError("name the user with --user-id (or HINDSIGHT_USER_ID), or give --tokens-file")
    if transport == "stdio" and scope.authenticated:
        raise click.UsageError("tokens apply to --http and --sse; over stdio the server serves --user-id")
    if transport != "stdio" and not scope.authenticated and host not in _LOOPBACK and not allow_unauthenticated:
        raise click.UsageError(f"serving on {host} without a token would give anyone who can reach it "
                               f"{scope.user_id}'s memories; set --token (HINDSIGHT_MCP_TOKEN) or "
                               "--tokens-file, or pass --allow-unauthenticated")
    from .mcp import build_server, run_server  # imports mcp: only once the settings are known to be good

    memory = settings.open_memory()
    try:
        memory.embedder.dimension  # load the model now, not on the first request
        server = build_server(memory, scope, host=host, port=port)
        if transport != "stdio":
            click.echo(f"hindsight MCP server on http://{host}:{port}"
                       f"{'/mcp' if transport == 'streamable-http' else '/sse'} ({settings.describe()})", err=True)
        run_server(server, transport, host=host, port=port)  # type: ignore[arg-type]
    finally:
        memory.close()


if __name__ == "__main__":
    main()
