"""The inspector's pages as HTML: records and results in, escaped markup out (no I/O here)."""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence
from urllib.parse import urlencode

from ..types import ForgetReceipt, Layer, MemoryRecord, ScoredMemory, Status
from .markup import Safe, el, join
from .plot import bar, percent

TABS = (("memories", "Memories"), ("search", "Search"), ("recalls", "What the agent saw"), ("quarantine", "Quarantine"),
        ("forget", "Forget"))


def url(path: str, **params: object) -> str:
    """`path` with the non-None `params` as its query string."""
    query = urlencode({k: v for k, v in params.items() if v is not None})
    return f"{path}?{query}" if query else path


def _when(record: MemoryRecord) -> str:
    return f"{record.timestamp:%Y-%m-%d %H:%M}"


def hidden(form_token: str, **values: object) -> Safe:
    """The form token and other hidden fields of a POST form."""
    fields = {"form_token": form_token, **values}
    return join(el("input", type="hidden", name=k, value=v) for k, v in fields.items() if v is not None)


def layout(title: str, body: Safe, *, users: Sequence[str], user: str | None = None, tab: str | None = None,
           quarantined: int | None = None) -> Safe:
    """A whole page: header with the user picker and tabs, then `body`."""
    picker = el("form", el("label", "User ", el("select", [
        el("option", u, value=u, selected=u == user) for u in users], name="user")),
        el("button", "Open", type="submit"), method="get", action="/memories", class_="picker") if users else None
    tabs = None
    if user is not None:
        tabs = el("nav", [el("a", label + (f" ({quarantined})" if name == "quarantine" and quarantined else ""),
                             href=url(f"/{name}", user=user), class_="tab active" if name == tab else "tab",
                             aria_current="page" if name == tab else None) for name, label in TABS])
    return Safe("<!doctype html>" + el("html", el("head",
        el("meta", charset="utf-8"), el("meta", name="viewport", content="width=device-width, initial-scale=1"),
        el("title", f"{title} · hindsight"), el("link", rel="stylesheet", href="/static/style.css")),
        el("body", el("header", el("a", "hindsight", href="/", class_="brand"), picker, tabs),
           el("main", el("h1", title), body)), lang="en"))


def home_page(users: Sequence[str]) -> Safe:
    if not users:
        return el("p", "No memories yet. Store some with ", el("code", "hindsight remember -u USER TEXT"), ".")
    return el("ul", [el("li", el("a", u, href=url("/memories", user=u))) for u in users], class_="users")


def memory_link(memory_id: str, user: str, lookup: Mapping[str, MemoryRecord]) -> Safe:
    """A link to a memory, labelled with its summary when it is known."""
    record = lookup.get(memory_id)
    label = record.summary if record is not None else memory_id[:8]
    return el("a", label, href=url("/memory", user=user, id=memory_id), title=memory_id)


#: episodes listed under a knowledge card; its own page lists them all
CARD_SOURCES = 8


def lineage(record: MemoryRecord, lookup: Mapping[str, MemoryRecord], *, limit: int | None = None) -> Safe:
    """What the memory was derived from (all, or the first `limit`), superseded by and consolidated into, as links."""
    rows = []
    if record.derived_from:
        shown = record.derived_from[:limit] if limit is not None else record.derived_from
        rest = len(record.derived_from) - len(shown)
        more = el("a", f"and {rest} more", href=url("/memory", user=record.user_id, id=record.id)) if rest else None
        rows.append(el("li", f"derived from {len(record.derived_from)}: ",
                       join([*(memory_link(i, record.user_id, lookup) for i in shown), more], "; ")))
    if record.superseded_by:
        rows.append(el("li", "superseded by ", memory_link(record.superseded_by, record.user_id, lookup)))
    if record.consolidated_into:
        rows.append(el("li", "consolidated into ", memory_link(record.consolidated_into, record.user_id, lookup)))
    return el("ul", rows, class_="lineage") if rows else Safe("")


def facts(record: MemoryRecord, retention: float) -> Safe:
    """One line of the memory's standing: retention bar, source, confidence, type, date, status."""
    status = el("span", record.status.value, class_=f"status {record.status.value}") \
        if record.status is not Status.ACTIVE else None
    return el("div", el("span", bar(retention), " ", percent(retention), class_="retention"),
              el("span", f"source {record.source.value}"), el("span", f"confidence {percent(record.confidence)}"),
              el("span", record.event_type), el("time", _when(record), datetime=record.timestamp.isoformat()),
              status, class_="facts")


def memory_card(record: MemoryRecord, retention: float, lookup: Mapping[str, MemoryRecord]) -> Safe:
    title = el("a", record.summary, href=url("/memory", user=record.user_id, id=record.id), class_="summary")
    return el("article", title, facts(record, retention), lineage(record, lookup, limit=CARD_SOURCES),
              class_="memory", id=f"m-{record.id}")


def memories_page(records: Sequence[tuple[MemoryRecord, float]], quarantined: int, *, user: str,
                  limit: int | None) -> Safe:
    """The user's memories grouped by layer (knowledge first), newest first, each with its retention; with a
    `limit`, each layer shows that many and links to the rest."""
    lookup = {r.id: r for r, _ in records}
    sections = []
    for layer in (Layer.SEMANTIC, Layer.EPISODIC):
        in_layer = sorted(((r, v) for r, v in records if r.layer is layer), key=lambda rv: rv[0].timestamp,
                          reverse=True)
        shown = in_layer[:limit] if limit is not None else in_layer
        more = el("p", f"Showing the newest {len(shown)} of {len(in_layer)}. ",
                  el("a", "Show all", href=url("/memories", user=user, all=1)), class_="note more") \
            if len(shown) < len(in_layer) else None
        sections.append(el("section", el("h2", f"{layer.value.capitalize()} ({len(in_layer)})"),
                           [memory_card(r, v, lookup) for r, v in shown] or el("p", "none", class_="empty"), more,
                           class_=f"layer {layer.value}", id=f"layer-{layer.value}"))
    note = el("p", f"{quarantined} more in quarantine, never recalled until released.", class_="note") \
        if quarantined else None
    return join([note, *sections])


def memory_page(record: MemoryRecord, retention: float, plot: Safe, lookup: Mapping[str, MemoryRecord],
                form_token: str) -> Safe:
    """One memory in full: its text, standing, lineage, audit, retention over time, and a way to forget it."""
    audit = record.metadata.get("audit") or {}
    reasons = el("ul", [el("li", r) for r in audit.get("reasons", ())], class_="reasons") if audit else None
    meta = {k: v for k, v in record.metadata.items() if k != "audit"}
    return join([
        el("blockquote", record.raw_content, class_="raw"),
        facts(record, retention), lineage(record, lookup),
        el("dl", [join([el("dt", k), el("dd", v)]) for k, v in (
            ("id", record.id), ("layer", record.layer.value), ("session", record.session_id or "-"),
            ("agent", record.agent_id or "-"), ("entities", ", ".join(record.entities) or "-"),
            ("recalled", f"{record.access_count} times ({record.spaced_recalls} spaced)"),
            ("said", f"{record.confirmations} times"), ("metadata", meta or "-"))], class_="fields"),
        el("section", el("h2", "Write audit"), reasons) if audit else None,
        el("section", el("h2", "Retention over time"), plot, class_="plot-section"),
        el("form", hidden(form_token, user=record.user_id, memory_id=record.id),
           el("button", "Forget this memory…", type="submit", class_="danger"), method="post", action="/forget"),
    ])


def channel(name: str, rank: int | None) -> Safe:
    return el("span", f"{name} #{rank}" if rank is not None else f"{name} –", class_="rank" if rank else "rank none")


#: explanation notes that the lineage links already show
_LINEAGE_NOTES = ("consolidated into ", "superseded by ")


def search_page(user: str, query: str, k: int, results: Sequence[ScoredMemory] | None,
                lookup: Mapping[str, MemoryRecord]) -> Safe:
    """The search form, and the results with recall's explanation: channel ranks, retention, notes."""
    form = el("form", el("input", type="hidden", name="user", value=user),
              el("input", type="search", name="q", value=query, placeholder="What does the agent know about…",
                 aria_label="query", autofocus=True),
              el("label", "results ", el("input", type="number", name="k", value=k, min=1, max=50)),
              el("button", "Search", type="submit"), method="get", action="/search", class_="search")
    if results is None:
        return form
    held = held_back_list(user, getattr(results, "held_back", ()))
    if not results:
        return join([form, el("p", "Nothing recalled for this query.", class_="empty"), held])
    rows = []
    for place, result in enumerate(results, 1):
        why = result.explanation
        weight = el("span", f"weight {percent(why.weight)}") if why.weight != 1.0 else None
        notes = [n for n in why.notes if not n.startswith(_LINEAGE_NOTES)]
        rows.append(el("li", el("a", result.memory.summary, href=url("/memory", user=user, id=result.memory.id),
                                class_="summary"),
                       el("div", el("span", f"#{place}", class_="place"), el("span", why.layer),
                          channel("dense", why.dense_rank), channel("keyword", why.keyword_rank),
                          el("span", bar(result.retention), f" retention {percent(result.retention)}",
                             class_="retention"), weight, class_="why"),
                       el("ul", [el("li", n) for n in notes], class_="notes") if notes else None,
                       lineage(result.memory, lookup, limit=CARD_SOURCES), class_="result"))
    return join([form, el("ol", rows, class_="results"), held])


def held_back_list(user: str, held: Sequence[ScoredMemory]) -> Safe | None:
    """What the retrieval check withheld from these results, each with its verdict and reason (None if nothing)."""
    if not held:
        return None
    title = (f"{len(held)} memory held back by the retrieval check" if len(held) == 1 else
             f"{len(held)} memories held back by the retrieval check")
    return el("section", el("h3", title),
              el("ul", [el("li", el("a", r.memory.summary, href=url("/memory", user=user, id=r.memory.id)),
                           el("ul", [el("li", n) for n in r.explanation.notes], class_="notes"))
                        for r in held], class_="held-back"), class_="held")


def recalls_page(user: str, entries: Sequence[Any] | None, sessions: Sequence[tuple[str, int]],
                 session: str | None) -> Safe:
    """The recall log: per session, each recall's query, caller, memories with why, and the injected block."""
    if entries is None:
        return el("p", "The recall log is kept by ", el("code", "hindsight serve"),
                  " (with the user's consent); this inspector was started without it.", class_="empty")
    picks = el("nav", [el("a", "all sessions", href=url("/recalls", user=user),
                          class_="tab active" if session is None else "tab")] + [
        el("a", f"{name} ({count})", href=url("/recalls", user=user, session=name),
           class_="tab active" if name == session else "tab") for name, count in sessions], class_="sessions")
    if not entries:
        return join([picks, el("p", "No recall recorded yet.", class_="empty")])
    items = []
    for entry in entries:
        memories = [el("li", el("a", r.memory.summary, href=url("/memory", user=user, id=r.memory.id)),
                       el("div", str(r.explanation), class_="why")) for r in entry.results]
        withdrawn = el("p", f"{entry.withdrawn} memory taken out since (forgotten)" if entry.withdrawn == 1 else
                       f"{entry.withdrawn} memories taken out since (forgotten)", class_="note") \
            if entry.withdrawn else None
        items.append(el("li", el("div", el("span", f"{entry.at:%Y-%m-%d %H:%M:%S}"), el("span", f"by {entry.caller}"),
                                     el("span", f"session {entry.session}"), class_="why"),
                        el("p", "Query: ", el("q", entry.query), class_="summary"),
                        el("ol", memories) if memories else el("p", "Nothing recalled.", class_="empty"), withdrawn,
                        el("details", el("summary", "Injected block"), el("pre", entry.block or "(empty)")),
                        class_="result recall"))
    return join([picks, el("ol", items, class_="results")])


def quarantine_page(records: Iterable[MemoryRecord], form_token: str, notice: Safe | None = None) -> Safe:
    """What the write audit held back, with its reasons, to release or delete."""
    items = []
    for record in records:
        audit = record.metadata.get("audit") or {}
        items.append(el("article",
            el("blockquote", record.raw_content, class_="raw"),
            el("div", el("span", f"source {record.source.value}"), el("span", f"category {audit.get('category')}"),
               el("time", _when(record), datetime=record.timestamp.isoformat()), class_="facts"),
            el("ul", [el("li", r) for r in audit.get("reasons", ())], class_="reasons"),
            el("div", el("form", hidden(form_token, user=record.user_id, memory_id=record.id),
                         el("button", "Release", type="submit"), method="post", action="/release"),
               el("form", hidden(form_token, user=record.user_id, memory_id=record.id),
                  el("button", "Delete…", type="submit", class_="danger"), method="post", action="/forget"),
               class_="actions"),
            class_="memory quarantined", id=f"m-{record.id}"))
    body = items or [el("p", "Nothing in quarantine.", class_="empty")]
    return join([notice, el("p", "The write audit keeps these out of recall until you release them.", class_="note"),
                 *body])


def forget_form(user: str, form_token: str) -> Safe:
    return el("div",
        el("form", hidden(form_token, user=user), el("label", "Memory id ", el("input", name="memory_id",
                                                                                required=True)),
           el("button", "Show what goes", type="submit"), method="post", action="/forget", class_="forget-id"),
        el("form", hidden(form_token, user=user), el("label", "Topic ", el("input", name="about", required=True,
                                                                            placeholder="e.g. my old address")),
           el("button", "Show what goes", type="submit"), method="post", action="/forget", class_="forget-topic"),
        el("p", "Nothing is forgotten until you confirm the dry run.", class_="note"), class_="forget-forms")


def _removed(receipt: ForgetReceipt) -> Safe:
    return el("table", el("tr", el("th", "memory"), el("th", "layer"), el("th", "date"), el("th", "id")),
              [el("tr", el("td", m.summary), el("td", m.layer.value), el("td", _when(m)), el("td", m.id))
               for m in receipt.removed], class_="removed")


def dry_run_page(receipt: ForgetReceipt, form_token: str, *, memory_id: str | None, about: str | None,
                 notice: str | None = None) -> Safe:
    """What a forget would remove, and the button that does it (bound to exactly these memories)."""
    what = f"memory {memory_id}" if memory_id else f"the topic “{about}”"
    if not receipt.count:
        return join([el("p", f"Nothing to forget for {what}.", class_="empty"),
                     el("a", "Back", href=url("/forget", user=receipt.user_id))])
    confirm = el("form", hidden(form_token, user=receipt.user_id, memory_id=memory_id, about=about,
                                expect=",".join(sorted(receipt.ids)), confirm="1"),
                 el("button", f"Forget {receipt.count} for good", type="submit", class_="danger"),
                 el("a", "Cancel", href=url("/forget", user=receipt.user_id)),
                 method="post", action="/forget", class_="confirm")
    return join([el("p", notice, class_="notice") if notice else None,
                 el("p", f"Dry run for {what}: would forget {receipt.count} "
                         f"memor{'y' if receipt.count == 1 else 'ies'}.", class_="dry-run"),
                 _removed(receipt), confirm])


def receipt_page(receipt: ForgetReceipt) -> Safe:
    rewritten = f" {len(receipt.rederived)} semantic memories were rewritten from what remains." \
        if receipt.rederived else ""
    return join([el("p", f"Forgot {receipt.count} memor{'y' if receipt.count == 1 else 'ies'} for good.{rewritten}",
                    class_="receipt"), _removed(receipt),
                 el("p", el("a", "Back to the memories", href=url("/memories", user=receipt.user_id)))])


def message_page(text: str) -> Safe:
    return el("p", text, class_="error")
