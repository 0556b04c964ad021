"""A scripted multi-day conversation on the embedded store, with a simulated clock.

Run it with `hindsight demo` (or `make demo`). It shows the write gate at work,
a day-1 preference recalled on day 3 for a request that never mentions it, a
one-off fact fading below the recall threshold by day 60, and a "forget".
"""

from __future__ import annotations

import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from .clock import FrozenClock
from .memory import Hindsight
from .types import Layer

USER = "alice"

PRINT_REQUESTS = [
    "Print this report on A4 in landscape.",
    "Please print the sales report in landscape on A4.",
    "Print the budget report on A4, landscape please.",
    "Print the team report in A4 landscape.",
    "A4 landscape for this printout too, please.",
]

DAY_1 = [
    "Hi!",
    "I'm vegetarian, so please never suggest meat dishes.",
    "From now on, print all my reports in A4 landscape.",
    "what time is it?",
    "The staging server restart is done; it took 14 minutes.",
    "My old address was 12 Baker Street, London.",
    "以后所有报表都用A4纸横向打印",
    "谢谢",
]


def run_demo(store_path: Path | None = None, say: Callable[[str], None] = print) -> dict[str, object]:
    """Run the scripted conversation; returns what it observed, for tests."""
    folder = Path(store_path) if store_path else Path(tempfile.mkdtemp(prefix="hindsight-demo-"))
    clock = FrozenClock(datetime(2026, 3, 15, 9, 0, tzinfo=timezone.utc))
    seen: dict[str, object] = {}
    say(f"hindsight demo: embedded store at {folder}\n")
    with Hindsight(path=folder, clock=clock) as memory:
        say(f"== Day 1 ({clock():%Y-%m-%d}): the user talks; the write gate decides what to keep")
        for text in DAY_1:
            result = memory.write(text, user_id=USER, session_id="day-1")
            mark = "stored " if result.stored else "skipped"
            say(f"  [{mark}] {text!r:60} -> {result.decision}")
        seen["stored_day1"] = len(memory.memories(user_id=USER))

        clock.advance(days=2)
        request = "Book a table for dinner on Friday with the team."
        say(f"\n== Day 3 ({clock():%Y-%m-%d}): a new session, a request that never mentions food preferences")
        say(f"  user: {request}")
        results = memory.recall(request, user_id=USER, k=3)
        for r in results:
            say(f"  recalled {r.score:.4f}  {r.memory.summary}\n           why: {r.explanation}")
        block = memory.format_for_prompt(results)
        say("\n  injected into the system prompt:\n" + "\n".join("    " + line for line in block.splitlines()))
        seen["day3_top"] = [r.memory.summary for r in results]

        request = "Get the quarterly sales summary ready for the board handout."
        say(f"\n  user: {request}")
        results = memory.recall(request, user_id=USER, k=3)
        for r in results:
            say(f"  recalled {r.score:.4f}  {r.memory.summary}")
        seen["day3_print"] = [r.memory.summary for r in results]

        say("\n== Days 4-8: a print request every day; five similar episodes become knowledge")
        for text in PRINT_REQUESTS:
            clock.advance(days=1)
            memory.write(text, user_id=USER, session_id=f"{clock():%Y-%m-%d}")
            say(f"  {clock():%Y-%m-%d}  user: {text}")
        knowledge = [m for m in memory.memories(user_id=USER) if m.layer is Layer.SEMANTIC]
        for item in knowledge:
            say(f"  consolidated: {item.summary!r} (semantic, from {len(item.derived_from)} episodes, "
                f"confidence {item.confidence:.2f}; the episodes stay, down-weighted)")
        results = memory.recall("How should the monthly report be printed?", user_id=USER, k=3)
        say("  recall 'How should the monthly report be printed?':")
        for r in results:
            say(f"    {r.memory.layer.value:9} {r.score:.4f}  {r.memory.summary}")
        seen["knowledge"] = [m.summary for m in knowledge]
        seen["print_top_layer"] = results[0].memory.layer.value if results else None

        clock.advance(days=1)
        change = "Actually, print everything in portrait from now on."
        say(f"\n== Day 9 ({clock():%Y-%m-%d}): the user changes their mind\n  user: {change}")
        new = memory.write(change, user_id=USER).record
        results = memory.recall("How should the monthly report be printed?", user_id=USER, k=3)
        for r in results:
            say(f"    {r.memory.layer.value:9} {r.score:.4f}  {r.memory.summary}\n              why: {r.explanation}")
        seen["after_change_top"] = results[0].memory.summary if results else None
        seen["superseded"] = sum(1 for m in memory.memories(user_id=USER) if m.superseded_by == new.id)

        clock.advance(days=51)
        say(f"\n== Day 60 ({clock():%Y-%m-%d}): the one-off server restart has faded; preferences have not")
        for record in memory.memories(user_id=USER):
            retention = memory.retention_of(record)
            state = "recallable" if retention >= memory.config.decay.retention_threshold else "faded (kept, not recalled)"
            say(f"  {retention:.3f}  {record.event_type:12} {record.summary[:60]:60} {state}")
        results = memory.recall("How long did the staging server restart take?", user_id=USER)
        seen["day60_restart"] = [r.memory.summary for r in results]
        say(f"  recall 'staging server restart' -> {[r.memory.summary for r in results] or 'nothing above threshold'}")

        say("\n== Forgetting: 'forget everything about my old address'")
        preview = memory.forget(user_id=USER, about="my old address", dry_run=True)
        say(f"  dry run would remove {preview.count}: {[m.summary for m in preview.removed]}")
        receipt = memory.forget(user_id=USER, about="my old address")
        say(f"  removed {receipt.count}; recall 'Baker Street' now returns "
            f"{[r.memory.summary for r in memory.recall('Baker Street address', user_id=USER)] or 'nothing'}")
        seen["forgotten"] = [m.summary for m in receipt.removed]
        seen["after_forget"] = [r.memory.summary for r in memory.recall("Baker Street address", user_id=USER)]
    return seen


if __name__ == "__main__":
    run_demo()
