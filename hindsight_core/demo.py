"""A scripted eight-week conversation on the embedded store, with a simulated clock.

Run it with `hindsight demo` (or `make demo`): the write gate, a preference recalled days later for a request that
never mentions it, repeated requests becoming knowledge, a change of mind superseding it, a one-off fact fading
while preferences stay, and a forget; it ends by checking each claim against what the run observed.
"""

from __future__ import annotations

import contextlib
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable

from wcwidth import wcswidth

from .clock import FrozenClock
from .config import knowledge_on
from .memory import Hindsight
from .types import Layer, MemoryRecord, ScoredMemory

USER = "alice"

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
PRINT_REQUESTS = [
    "Print this report on A4 in landscape.",
    "Please print the sales report in landscape on A4.",
    "Print the budget report on A4, landscape please.",
    "Print the team report in A4 landscape.",
    "A4 landscape for this printout too, please.",
]
#: English glosses for the Chinese lines, so a reader can follow
GLOSS = {
    "以后所有报表都用A4纸横向打印": "print all reports on A4, landscape",
    "谢谢": "thank you",
    "帮我打印一下销售报表": "print the sales report for me",
}
DINNER = "Where should I book a table for dinner on Friday with the team?"
HANDOUT = "Get the quarterly sales summary ready for the board handout."
CHINESE_REQUEST = "帮我打印一下销售报表"
PRINTING = "How should the monthly report be printed?"
CHANGE = "Actually, print everything in portrait from now on."
RESTART = "How long did the staging server restart take?"
LOOSE_CUE = "How did the maintenance go?"


def fit(text: str, width: int) -> str:
    """`text` cut or padded to `width` terminal columns (a Chinese character takes two)."""
    out, used = "", 0
    for char in text:
        w = max(wcswidth(char), 0)
        if used + w > width - (1 if len(text) > len(out) + 1 else 0):
            return out + "…" + " " * (width - used - 1)
        out, used = out + char, used + w
    return out + " " * (width - used)


def glossed(text: str) -> str:
    return f"{text}  ({GLOSS[text]})" if text in GLOSS else text


def percent(value: float) -> str:
    return f"{round(100 * value):>3}%"


def bar(value: float, width: int = 10) -> str:
    filled = round(max(0.0, min(1.0, value)) * width)
    return "█" * filled + "░" * (width - filled)


def run_demo(store_path: Path | None = None, say: Callable[[str], None] = print,
             embedder: Any = None) -> dict[str, Any]:
    """Run the scripted conversation and return what it observed (for the summary and for tests).

    With no `store_path`, the store lives in a temporary folder removed at the end; `embedder` defaults to the
    default model.
    """
    with contextlib.ExitStack() as stack:
        if store_path is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="hindsight-demo-")))
            where = "in a temporary folder, removed at the end"
        else:
            folder, where = Path(store_path), f"at {store_path}"
        clock = FrozenClock(datetime(2026, 3, 15, 9, 0, tzinfo=timezone.utc))
        say(f"hindsight demo: eight weeks with one user on a simulated clock (embedded store {where})")
        # the story shows knowledge forming and a change of mind: both mechanisms are off by default
        memory = stack.enter_context(Hindsight(path=folder, clock=clock, embedder=embedder, config=knowledge_on()))
        seen = _story(memory, clock, say)
    _summary(seen, say)
    return seen


def _show(results: Iterable[ScoredMemory], say: Callable[[str], None]) -> None:
    for rank, r in enumerate(results, 1):
        state = "superseded" if r.memory.superseded_by else r.memory.event_type
        say(f"    #{rank}  {fit(glossed(r.memory.summary), 72)}  {r.memory.layer.value:<9} {state:<11}"
            f" retention {percent(r.retention).strip()}")


def _story(memory: Hindsight, clock: FrozenClock, say: Callable[[str], None]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    say(f"\nDay 1 · {clock():%Y-%m-%d} · the user talks; the write gate decides what is worth keeping")
    kept: list[str] = []
    skipped: list[str] = []
    for text in DAY_1:
        result = memory.write(text, user_id=USER, session_id="day-1")
        (kept if result.stored else skipped).append(text)
        decision = result.decision
        why = "; ".join(decision.reasons)
        say(f"  {'kept   ' if result.stored else 'skipped'}  {fit(glossed(text), 72)}  "
            + (f"{decision.event_type}: {why}" if result.stored else why))
    seen["stored_day1"], seen["skipped_day1"] = len(kept), skipped

    clock.advance(days=2)
    say(f"\nDay 3 · {clock():%Y-%m-%d} · a new session; requests that never say what they depend on")
    for key, request in (("day3_top", DINNER), ("day3_print", HANDOUT), ("day3_chinese", CHINESE_REQUEST)):
        say(f"  user: {glossed(request)}")
        results = memory.recall(request, user_id=USER, k=3)
        _show(results, say)
        seen[key] = [r.memory.summary for r in results]
        if key == "day3_top":
            block = memory.format_for_prompt(results)
            say("  what hindsight adds to the system prompt:")
            say("\n".join("    " + line for line in block.splitlines()))
            seen["prompt_block"] = block

    say("\nDays 4-8 · a print request every day; similar episodes become knowledge")
    for text in PRINT_REQUESTS:
        clock.advance(days=1)
        memory.write(text, user_id=USER, session_id=f"{clock():%Y-%m-%d}")
        say(f"  {clock():%Y-%m-%d}  user: {text}")
    knowledge = [m for m in memory.memories(user_id=USER) if m.layer is Layer.SEMANTIC]
    for item in knowledge:
        say(f"  knowledge: {item.summary}")
        say(f"             drawn from {len(item.derived_from)} episodes, confidence {percent(item.confidence).strip()};"
            " the episodes stay, counted for less")
    seen["knowledge"] = [m.summary for m in knowledge]
    seen["knowledge_from"] = [len(m.derived_from) for m in knowledge]
    say(f"  recall '{PRINTING}'")
    results = memory.recall(PRINTING, user_id=USER, k=3)
    _show(results, say)
    seen["print_top_layer"] = results[0].memory.layer.value if results else None
    seen["print_top2"] = [(r.memory.layer.value, r.memory.raw_content) for r in results[:2]]

    clock.advance(days=1)
    say(f"\nDay 9 · {clock():%Y-%m-%d} · the user changes their mind\n  user: {CHANGE}")
    new = memory.write(CHANGE, user_id=USER).record
    replaced = [m for m in memory.memories(user_id=USER) if new is not None and m.superseded_by == new.id]
    say(f"  this supersedes {len(replaced)} memories; they are kept as history, not as the user's wish now:")
    for m in replaced:
        say(f"    {m.layer.value:<9} {glossed(m.summary)}")
    say(f"  recall '{PRINTING}'")
    results = memory.recall(PRINTING, user_id=USER, k=3)
    _show(results, say)
    current = [r for r in results if not r.memory.superseded_by]
    if current:
        say(f"  the agent acts on: {current[0].memory.summary}")
    seen["after_change_top"] = current[0].memory.summary if current else None
    seen["superseded"] = [m.summary for m in replaced]
    seen["superseded_layers"] = sorted({m.layer.value for m in replaced})
    # what is still recalled as the user's standing wish or as knowledge, not as history
    seen["recalled_as_current"] = [r.memory.summary for r in current
                                   if r.memory.layer is Layer.SEMANTIC or r.memory.event_type == "preference"]

    clock.advance(days=51)
    say(f"\nDay 60 · {clock():%Y-%m-%d} · one-off facts have faded; preferences have not")
    seen["day60"] = _table(memory, say)
    # looking, not recalling: these two do not strengthen what they find
    loose = [r.memory.summary for r in memory.recall(LOOSE_CUE, user_id=USER, k=3, reinforce=False)]
    say(f"  recall '{LOOSE_CUE}' -> " + ("; ".join(loose) or "nothing"))
    direct = memory.recall(RESTART, user_id=USER, k=3, reinforce=False)
    say(f"  recall '{RESTART}' -> "
        + ("; ".join(f"{r.memory.summary} (retention {percent(r.retention).strip()})" for r in direct) or "nothing"))
    say("  a faded memory is kept and never hidden: it ranks by what the question asks, its retention says how old")
    seen["day60_loose"], seen["day60_restart"] = loose, [r.memory.summary for r in direct]

    say("\nForgetting · the user says: forget everything about my old address")
    preview = memory.forget(user_id=USER, about="my old address", dry_run=True)
    say(f"  dry run, would forget {preview.count}: " + "; ".join(m.summary for m in preview.removed))
    receipt = memory.forget(user_id=USER, about="my old address")
    after = [r.memory.summary for r in memory.recall("Baker Street address", user_id=USER)
             if "Baker Street" in r.memory.raw_content]
    say(f"  forgot {receipt.count}; recall 'Baker Street address' now finds " + ("; ".join(after) or "nothing"))
    seen["forgotten"] = [m.summary for m in receipt.removed]
    seen["after_forget"] = after
    return seen


def _table(memory: Hindsight, say: Callable[[str], None]) -> list[dict[str, Any]]:
    """Every memory once: retention as a bar, layer, kind, state; episodes folded under their knowledge."""
    records = memory.memories(user_id=USER)
    threshold = memory.config.decay.retention_threshold
    folded = {source for m in records if m.layer is Layer.SEMANTIC for source in m.derived_from}
    rows: list[dict[str, Any]] = []

    def state(record: MemoryRecord, retention: float) -> str:
        if record.superseded_by:
            return "superseded"
        return "retained" if retention >= threshold else "faded"

    say(f"  {'retention':<15}  {'layer':<9}  {'kind':<11}  {'state':<10}  memory")
    for record in records:
        if record.id in folded:
            continue
        retention = memory.retention_of(record)
        rows.append({"text": record.summary, "layer": record.layer.value, "kind": record.event_type,
                     "retention": retention, "state": state(record, retention)})
        say(f"  {bar(retention)} {percent(retention)}  {record.layer.value:<9}  {record.event_type[:11]:<11}  "
            f"{rows[-1]['state']:<10}  {fit(glossed(record.summary), 72).rstrip()}")
        if record.layer is Layer.SEMANTIC:
            episodes = [m for m in records if m.id in set(record.derived_from)]
            if episodes:
                values = sorted(memory.retention_of(m) for m in episodes)
                say(f"  {'':<15}  {'':<9}  {'':<11}  {'':<10}  ↳ drawn from {len(episodes)} episodes, "
                    f"retention {percent(values[0]).strip()} to {percent(values[-1]).strip()}")
    return rows


def _summary(seen: dict[str, Any], say: Callable[[str], None]) -> None:
    say("\nWhat this run showed")
    for ok, claim in claims(seen):
        say(f"  {'✓' if ok else '✗'} {claim}")


def claims(seen: dict[str, Any]) -> list[tuple[bool, str]]:
    """The story's claims, each with whether this run bore it out."""
    day60 = {row["text"]: row for row in seen["day60"]}
    preferences = [row for row in seen["day60"] if row["kind"] == "preference" and row["state"] != "superseded"]
    return [
        (seen["skipped_day1"] == ["Hi!", "what time is it?", "谢谢"],
         f"the write gate kept {seen['stored_day1']} of {len(DAY_1)} lines and skipped the small talk"),
        (seen["day3_top"][:1] == [DAY_1[1]],
         "on day 3 the vegetarian preference came back for a dinner booking that never mentions food"),
        (seen["day3_print"][:1] in ([DAY_1[2]], [DAY_1[6]]),
         "the A4 landscape preference (said in English and in Chinese) came back for a board handout that never "
         "mentions printing"),
        (seen["day3_chinese"][:1] == [DAY_1[6]], "a request in Chinese recalled the preference stated in Chinese"),
        (len(seen["knowledge"]) == 1 and "semantic" in [layer for layer, _ in seen["print_top2"]]
         and all(layer == "semantic" or text in (DAY_1[2], DAY_1[6]) for layer, text in seen["print_top2"]),
         "similar print requests said on several days became one piece of knowledge, recalled in the first two "
         "beside nothing but the landscape preference they repeat"),
        ("semantic" in seen["superseded_layers"] and seen["after_change_top"] == CHANGE
         and not any("landscape" in text for text in seen["recalled_as_current"]),
         "the day-9 change of mind superseded the landscape knowledge and preference; the correction comes first"),
        (seen["day60_restart"][:1] == [DAY_1[4]]
         and day60.get(DAY_1[4], {}).get("state") == "faded" and all(row["state"] == "retained" for row in preferences),
         "by day 60 the one-off server restart had faded (kept, and still found first when asked); the preferences "
         "had not"),
        (seen["forgotten"] == [DAY_1[5]] and seen["after_forget"] == [],  # nothing about Baker Street comes back
         "'forget my old address' removed exactly that memory, for good"),
    ]


if __name__ == "__main__":
    run_demo()
