"""The everyday commands: remember, recall, forget."""

from __future__ import annotations

import json
import shutil
import textwrap

import click

from ..errors import InvalidInputError
from .edge import read_text
from .options import pass_settings, user_option
from .settings import Settings


@click.command(help="Offer TEXT to memory; the write gate decides whether it is kept, and says why. "
                    "With - (or no TEXT), the text is read from standard input.")
@click.argument("text", required=False)
@user_option
@click.option("--session-id", help="The conversation it came from.")
@click.option("--source", type=click.Choice(["user", "agent", "tool", "system"]), default="user", show_default=True,
              help="Who said it: the write audit is stricter with what an agent or a tool writes.")
@click.option("--event-type", help="Override the gate's kind (preference, fact, correction, ...).")
@click.option("--force", is_flag=True, help="Store it even if the gate would not.")
@pass_settings
def remember(settings: Settings, text: str | None, user_id: str, session_id: str | None, source: str,
             event_type: str | None, force: bool) -> None:
    text = read_text(text, "text")
    with settings.open_memory(create=True) as memory:
        result = memory.write(text, user_id=user_id, session_id=session_id, source=source, event_type=event_type,
                              force=force)
    if result.record is None:
        click.echo(f"not stored: {result.decision}")
    else:
        click.echo(f"stored {result.record.id} ({result.record.event_type}): {'; '.join(result.decision.reasons)}")


@click.command(help="List a user's memories, oldest first: date, kind, status, id and text.")
@user_option
@click.option("--agent-id", help="Only those one agent wrote.")
@click.option("--active-only", is_flag=True, help="Leave out superseded, consolidated and quarantined memories.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (one record a line) instead of a table.")
@pass_settings
def memories(settings: Settings, user_id: str, agent_id: str | None, active_only: bool, as_json: bool) -> None:
    from ..contract.records import record_to_dict

    with settings.open_memory() as memory:
        found = memory.memories(user_id=user_id, include_inactive=not active_only, agent_id=agent_id)
    if as_json:
        for record in found:
            click.echo(json.dumps(record_to_dict(record), ensure_ascii=False))
        return
    if not found:
        click.echo("no memories found")
        return
    width = max(60, shutil.get_terminal_size((120, 20)).columns)
    for record in found:
        lead = f"{record.timestamp:%Y-%m-%d}  {record.event_type[:11]:<11}  {record.status.value:<11}  {record.id}  "
        click.echo(lead + textwrap.shorten(record.summary, max(20, width - len(lead)), placeholder="..."))


@click.command(help="Show the memories recall would bring back for QUERY: scores and why. "
                    "With - (or no QUERY), the query is read from standard input.")
@click.argument("query", required=False)
@user_option
@click.option("-k", "--results", "k", default=5, show_default=True, type=click.IntRange(1, 1000),
              help="How many memories to show, best first.")
@click.option("--time-range", help="e.g. last_7_days, today, yesterday, last_month, or dates as "
                                   "2026-01-01..2026-01-31 (either side may be left open).")
@click.option("--reinforce/--no-reinforce", default=False, show_default=True,
              help="Count this as a recall (strengthens the memories shown). Off: looking does not change them.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@pass_settings
def recall(settings: Settings, query: str | None, user_id: str, k: int, time_range: str | None,
           reinforce: bool, as_json: bool) -> None:
    query = read_text(query, "query")
    _check_query(settings, query, k, time_range, reinforce)
    with settings.open_memory() as memory:
        if not memory.holds_store or memory.memories(user_id=user_id):
            results = memory.recall(query, user_id=user_id, k=k, time_range=time_range, reinforce=reinforce)
        else:  # an embedded store with nothing to search for this user (the input is checked): load no model
            results = []
    if as_json:
        from ..contract.records import record_to_dict

        click.echo(json.dumps([{"score": r.score, "retention": r.retention, "why": str(r.explanation),
                                "memory": record_to_dict(r.memory)} for r in results], ensure_ascii=False, indent=2))
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


def _check_query(settings: Settings, query: str, k: int, time_range: str | None, reinforce: bool) -> None:
    """The query and the options checked as recall checks them (`RecallOptions.checked`), before any store is
    opened or model loaded."""
    from ..language.text import validate_text
    from ..contract.options import RecallOptions
    from ..contract.checks import check_visible

    config = settings.config()
    check_visible(validate_text(query, max_bytes=config.limits.max_text_bytes, what="query"), "query")
    RecallOptions(k=k, time_range=time_range, reinforce=reinforce).checked(config)


@click.command(help="Forget memories for good: one by --id, all --about a topic, or --everything.")
@user_option
@click.option("--id", "memory_id", help="The id of one memory (see `recall`).")
@click.option("--about", help="A topic: every memory about it.")
@click.option("--everything", is_flag=True, help="All of this user's memories, the archive included.")
@click.option("--dry-run", is_flag=True, help="Only show what would be forgotten.")
@click.option("--yes", is_flag=True, help="Do not ask before forgetting everything.")
@pass_settings
def forget(settings: Settings, user_id: str, memory_id: str | None, about: str | None, everything: bool,
           dry_run: bool, yes: bool) -> None:
    from ..contract.checks import check_one_target

    try:  # asked before the confirmation, with the message every face gives
        check_one_target(memory_id, about, everything)
    except InvalidInputError as exc:
        raise click.UsageError(str(exc)) from None
    if everything and not dry_run and not yes:
        click.confirm(f"Forget every memory of {user_id!r}, for good?", abort=True)
    with settings.open_memory() as memory:
        # forgetting a user drops their archive too: count it first, to report it
        purged = memory.stats(users=[user_id]).archived if everything else 0
        receipt = memory.forget(user_id=user_id, memory_id=memory_id, about=about, everything=everything,
                                dry_run=dry_run)  # compacts the user's files itself: forgotten is gone
    verb = "would forget" if dry_run else "forgot"
    click.echo(f"{verb} {receipt.count} memor{'y' if receipt.count == 1 else 'ies'}"
               + (f" and {purged} archived" if purged else ""))
    for record in receipt.removed:
        click.echo(f"  {record.id}  {record.summary}")
