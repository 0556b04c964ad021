"""Looking after the store: stats, export, import, migrate, archive."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import click

from .edge import check_not_terminal, not_utf8, stream
from .options import counted, pass_settings, users_option
from .settings import Settings


@contextlib.contextmanager
def progress(length: int, label: str) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr for long work, shown only on a terminal; yields its `update(n)`."""
    err = stream("stderr")
    if not err.isatty() or length <= 0:
        yield lambda n: None
        return
    with click.progressbar(length=length, label=label, file=err, show_pos=True) as bar:
        yield bar.update


def _size(n: float | None) -> str:
    if n is None:
        return "n/a"
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    return f"{n} B"


@click.command(help="Counts per layer and status, the retention distribution and the store's size.")
@users_option
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False, writable=True, path_type=Path),
              help="Also draw the counts and the retention distribution to this PNG (needs the plot extra).")
@pass_settings
def stats(settings: Settings, users: tuple[str, ...], as_json: bool, plot_path: Path | None) -> None:
    with settings.open_memory() as memory:
        report = memory.stats(users=users or None)
    if plot_path is not None:
        from ..plots import stats_figure

        stats_figure(report, path=plot_path)
        click.echo(f"plot written to {plot_path}", err=True)  # stderr: keeps --json output parseable
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
        return
    click.echo(f"{settings.describe()}: {_size(report.store_bytes)} on disk")
    click.echo(f"users: {len(report.users)}   memories: {report.memories}   archived: {report.archived}")
    click.echo("by layer:   " + "   ".join(f"{k} {v}" for k, v in report.layers.items()))
    click.echo("by status:  " + "   ".join(f"{k} {v}" for k, v in report.statuses.items()))
    click.echo(f"retention now (below {report.threshold:.2f} is faded: still recalled, marked faded, archivable):")
    histogram = report.retention_histogram()
    top = max([count for _, count in histogram] + [1])
    for label, count in histogram:
        click.echo(f"  {label}  {'#' * round(30 * count / top):<30} {count}")


@click.command(name="export", help="Write memories as JSON Lines (to FILE, or stdout with -), vectors included. "
                                    "FILE appears only once the whole export is written.")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True, path_type=str), default="-")
@users_option
@click.option("--vectors/--no-vectors", default=True, show_default=True,
              help="Include embeddings. Without them, import re-embeds every memory.")
@click.option("--archive/--no-archive", "include_archive", default=True, show_default=True,
              help="Include archived memories.")
@pass_settings
def export_command(settings: Settings, file: str, users: tuple[str, ...], vectors: bool, include_archive: bool) -> None:
    from .. import maintenance
    from ..clock import system_clock
    from ..maintenance.transfer import atomic_text_file

    running = settings.server()
    through = f" (through `hindsight serve` at {running.url})" if running is not None else ""
    if running is None:
        settings.require_store()  # before FILE is touched: a mistyped --store must not leave an empty export
    with _destination(file, atomic_text_file) as out:
        if running is not None:
            from ..remote.client import HindsightClient

            with HindsightClient(running.url, token=running.token, caller="cli") as client:
                summary = client.export_jsonl(out, users=users or None, vectors=vectors,
                                              include_archive=include_archive)
        else:
            store = settings.open_store()
            try:
                summary = maintenance.export_jsonl(store, out, users=users or None, vectors=vectors,
                                                   include_archive=include_archive, now=system_clock())
            finally:
                store.close()
    # said only once every line is written (and, for a file, renamed into place)
    click.echo(f"exported {counted(summary.memories, 'memory', 'memories')} and {summary.archived} archived of "
               f"{counted(len(summary.users), 'user', 'users')}{through}", err=True)


@contextlib.contextmanager
def _destination(file: str, atomic: Callable[[str], Any]) -> Iterator[Any]:
    """Standard output for `-` (a write error there is an `ExportError` too), else the file, written atomically."""
    from ..errors import ExportError

    if file != "-":
        with atomic(file) as out:
            yield out
        return
    out = stream("stdout")
    try:
        yield out
        out.flush()
    except OSError as exc:
        raise ExportError(f"cannot write the export to standard output ({exc.strerror or exc})") from None


def _counted_lines(file: Any, update: Callable[[int], None]) -> Iterable[str]:
    for line in file:
        update(len(line.encode("utf-8")))
        yield line


def _input_size(file: Any) -> int:
    try:
        return os.fstat(file.fileno()).st_size
    except (OSError, AttributeError, ValueError):
        return 0  # a pipe: no length to show progress against


@click.command(name="import", help="Load a JSON Lines export (FILE, or standard input with - or none). "
                                    "Vectors are reused when the model matches.")
@click.argument("file", type=click.File("r", encoding="utf-8", lazy=True), default="-")
@pass_settings
def import_command(settings: Settings, file: Any) -> None:
    from .. import maintenance

    name = getattr(file, "name", "-")
    check_not_terminal(name, "export to import")
    running = settings.server()
    if running is not None:
        from ..remote.client import HindsightClient

        try:
            with HindsightClient(running.url, token=running.token, caller="cli") as client:
                summary = client.import_jsonl(file)
        except UnicodeDecodeError as exc:
            raise click.ClickException(not_utf8("standard input" if name in ("-", "<stdin>") else name, exc)) from exc
        click.echo(f"imported {counted(summary.memories, 'memory', 'memories')} and {summary.archived} archived "
                   f"of {counted(len(summary.users), 'user', 'users')}; {summary.reembedded} re-embedded "
                   f"(through `hindsight serve` at {running.url})")
        return
    store = settings.open_store(create=True)
    embedder = settings.embedder(store=store)
    try:
        with progress(_input_size(file), "importing") as update:
            summary = maintenance.import_jsonl(store, embedder, _counted_lines(file, update))
    except UnicodeDecodeError as exc:
        raise click.ClickException(not_utf8("standard input" if name in ("-", "<stdin>") else name, exc)) from exc
    finally:
        store.close()
    click.echo(f"imported {counted(summary.memories, 'memory', 'memories')} and {summary.archived} archived of "
               f"{counted(len(summary.users), 'user', 'users')}; {summary.reembedded} re-embedded with {embedder.name}")


@click.command(help="Re-embed every memory with another model. Resumable: run it again after an interruption.")
@click.option("--to", "model", help="The new embedding model (name or path).")
@click.option("--batch-size", default=64, show_default=True, type=click.IntRange(1, 4096),
              help="How many memories are re-embedded per call to the model.")
@click.option("--abort", is_flag=True, help="Abandon an unfinished migration (its staged copies are dropped).")
@pass_settings
def migrate(settings: Settings, model: str | None, batch_size: int, abort: bool) -> None:
    from .. import maintenance
    from ..clock import system_clock

    store = settings.open_store(purpose="migrate", create=False)
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
            with progress(plan.remaining, f"re-embedding with {model}") as update:
                report = maintenance.migrate(store, embedder, plan=plan, batch_size=batch_size,
                                             progress=update, now=system_clock())
        except KeyboardInterrupt:
            click.echo(f"\ninterrupted; what is done is kept. Run `hindsight migrate --to {model}` to resume, "
                       "or `hindsight migrate --abort` to give up.", err=True)
            sys.exit(130)
    finally:
        store.close()
    click.echo(f"migrated {counted(len(report.users), 'user', 'users')} to {model} ({report.embedded} memories embedded now, "
               f"{report.resumed_from} earlier). The store remembers it: the commands use it from now on")


def _finite_days(value: float) -> float:
    """A number of days the calendar can hold: nan and inf are refused (click's range check lets nan through)."""
    import math

    if not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number of days; give a finite number such as 90")
    return value


@click.command(help="Move memories inactive for N days out of recall into an archive, or --restore them.")
@users_option
@click.option("--older-than", "days", default=90, show_default=True, type=click.FloatRange(min=0, max=3_650_000),
              callback=lambda ctx, param, value: _finite_days(value),
              help="Days since a memory was created or last recalled.")
@click.option("--restore", is_flag=True, help="Move archived memories back (all, or those given with --id).")
@click.option("--id", "memory_ids", multiple=True, help="With --restore: only this memory (repeatable).")
@click.option("--dry-run", is_flag=True, help="Only show what would move.")
@pass_settings
def archive(settings: Settings, users: tuple[str, ...], days: float, restore: bool, memory_ids: tuple[str, ...],
            dry_run: bool) -> None:
    from .. import maintenance
    from ..clock import system_clock

    if memory_ids and not restore:
        raise click.UsageError("--id only applies with --restore")
    store = settings.open_store(purpose="archive")
    moved: list[Any] = []
    try:
        everyone = list(users) or store.users()
        if memory_ids:  # every id named must be in the archive, or nothing moves
            missing = set(memory_ids) - {r.id for r in maintenance.restore(store, users=everyone,
                                                                           memory_ids=memory_ids, dry_run=True).moved}
            if missing:
                raise click.ClickException(f"not in the archive: {', '.join(sorted(missing))}; nothing was restored")
        with progress(len(everyone), "restoring" if restore else "archiving") as update:
            for user in everyone:  # a user at a time, so the bar moves
                if restore:
                    report = maintenance.restore(store, users=[user], memory_ids=memory_ids or None, dry_run=dry_run)
                else:
                    report = maintenance.archive(store, now=system_clock(), older_than_days=days, users=[user],
                                                 dry_run=dry_run)
                moved.extend(report.moved)
                update(1)
    finally:
        store.close()
    verb = ("would restore" if dry_run else "restored") if restore else ("would archive" if dry_run else "archived")
    click.echo(f"{verb} {len(moved)} memor{'y' if len(moved) == 1 else 'ies'}")
    for record in moved:
        click.echo(f"  {record.id}  {record.user_id}  {record.timestamp:%Y-%m-%d}  {record.summary[:80]}")
