"""Regenerate the benchmark figures of the README and of docs/benchmarks.md from the JSON results.

    python -m benchmarks.render_readme [--readme README.md] [--docs docs/benchmarks.md]
                                       [--results benchmarks/results] [--stdout]

Both files hold the markers `<!-- bench:start -->` and `<!-- bench:end -->`; everything between
them is rewritten. The README gets a short summary (`render_summary`: one line per headline
figure, with its command and a link to its table); docs/benchmarks.md gets every table
(`render`), with the machine, the date and the command of each result file. A result file
that does not exist leaves its lines out: no figure is typed by hand.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
CATS = ["single-hop", "multi-hop", "temporal", "open-domain", "adversarial"]
DOCS_PAGE = "docs/benchmarks.md"  # where the README's summary links to, relative to the README
#: commands recorded under a script's former name, shown as the command that runs the same code today
RENAMED = {"python -m benchmarks.locomo_adapters": "python -m benchmarks.locomo_bench --protocol adapters"}


class MarkersMissing(RuntimeError):
    """The README has no benchmark markers to write between."""


def _fmt(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _met(flag: bool) -> str:
    return "met" if flag else "**missed**"


def _command(report: dict, default: str = "") -> str:
    """The command a result file records, under the script name that runs it today."""
    command = (report.get("command") or default).strip()
    for old, new in RENAMED.items():
        if command == old or command.startswith(old + " "):
            command = new + command[len(old):]
    return command


def locomo_section(report: dict, image_prefix: str) -> list[str]:
    data, setup = report["data"], report["setup"]
    lines = [
        "### Recall quality: LoCoMo, the peers' protocol",
        "",
        "**The peers' protocol.** hindsight's rows write each turn with the turn before it in its session as "
        "`context=`, from the benchmark itself rather than through the conversation policy, so each is an "
        "exchange, while the plain baselines, LangChain, LlamaIndex and mem0 store single turns: the like-for-"
        "like comparison, with baselines over the same exchanges, is the adapters' protocol table below "
        "(`benchmarks/locomo_bench.py --protocol adapters`). mem0's row comes from a run in its own venv, "
        "merged in (`benchmarks/results/locomo_mem0.json`); the other rows do not depend on hindsight's code.",
        "",
        f"{data['conversations']} conversations, {data['turns']:,} turns, {data['questions']:,} questions "
        f"(LoCoMo, CC BY-NC 4.0, read from `{Path(data['path']).name}`, sha256 `{data['sha256'][:12]}…`). "
        f"Every system gets the same turn texts (`{setup['text_format']}` format"
        f"{', with image captions' if setup['caption'] else ''}) and the same embedder ({setup['embedder']}). "
        "Recall@k is the mean fraction of a question's evidence turns found in the top k "
        "(questions without evidence count as 1, as in the LoCoMo paper); tokens are those of the top-5 "
        f"prompt block (cl100k_base); latency is per search"
        f"{', query embedding included' if setup['query_embedding_in_latency'] else ', query embedding excluded'}.",
        "",
        "| system | recall@5 | recall@10 | any-hit@5 | tokens / question | search p50 / p95 (ms) | turns stored |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, r in report["systems"].items():
        if r.get("status") != "ok":
            lines.append(f"| {name} | not run: {r.get('reason', '')} | | | | | |")
            continue
        o = r["summary"]["overall"]
        lat = o.get("latency", {})
        stored = f"{r['stored']:,} / {r['offered']:,}" if "stored" in r else "all"
        lines.append(f"| {name} | {_fmt(o['recall@5'])} | {_fmt(o['recall@10'])} | {_fmt(o['hit@5'])} | "
                     f"{o['tokens']:,.0f} | {_fmt(lat.get('p50_ms'), 2)} / {_fmt(lat.get('p95_ms'), 2)} | {stored} |")
    lines.append(f"| full history in the prompt | – | – | – | {report['full_history']['tokens']:,.0f} | – | – |")
    for name, figures in report.get("published", {}).items():
        o = figures.get("overall", {})
        lines.append(f"| {name} (published) | {_fmt(o.get('recall@5'))} | {_fmt(o.get('recall@10'))} | – | – | – | – |")
    lines += ["", "Recall@5 per category:", "",
              "| system | " + " | ".join(CATS) + " |", "|---|" + "---:|" * len(CATS)]
    for name, r in report["systems"].items():
        if r.get("status") == "ok":
            lines.append(f"| {name} | " + " | ".join(
                f"{_fmt(r['summary'].get(c, {}).get('recall@5'))} ({r['summary'].get(c, {}).get('questions', 0)})"
                for c in CATS) + " |")
    for name, figures in report.get("published", {}).items():
        lines.append(f"| {name} (published) | " + " | ".join(_fmt(figures.get(c, {}).get("recall@5")) for c in CATS)
                     + " |")
    targets = report.get("targets") or {}
    if targets:
        lines += ["", "Targets (hindsight through its write gate, defaults):", ""]
        for name, t in targets.items():
            detail = f"measured {t['measured']}" if "measured" in t else "; ".join(t.get("not above", [])[:6])
            more = len(t.get("not above", [])) - 6
            lines.append(f"- {name}: {_met(t['met'])}" + (f" ({detail}{f'; and {more} more' if more > 0 else ''})"
                                                          if detail else ""))
    lines += ["", f"![LoCoMo recall@5 by category]({image_prefix}locomo_recall.png)",
              f"![Prompt tokens per question]({image_prefix}locomo_tokens.png)", "",
              f"Command: `{report.get('command', 'python -m benchmarks.locomo_bench')}` "
              f"({report['machine']}, {report['date'][:10]})."]
    return lines


def speed_section(report: dict, image_prefix: str) -> list[str]:
    lines = ["", "### Speed and scale", "",
             f"One user's store on the embedded engine ({report.get('engine', 'Qdrant Edge')}); "
             f"{report.get('synthetic', 'synthetic memories')}. Recall times leave out the query embedding.",
             "", "| memories | recall p50 / p95, exact (ms) | with the vector index (ms) | numpy dot + top-k (ms) | "
             "best ÷ numpy | loading (writes/s) | reopen + first recall (s) | RSS, model + store (MiB) | index build (s) | "
             "disk / memory |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in report["sizes"]:
        exa, npy = r["recall_exact_excluded"], r["numpy_dot_topk"]
        idx = r.get("recall_indexed_excluded")
        indexed = f"{idx['p50_ms']:.2f} / {idx['p95_ms']:.2f}" if idx else "–"
        lines.append(f"| {r['memories']:,} | {exa['p50_ms']:.2f} / {exa['p95_ms']:.2f} | {indexed} | "
                     f"{npy['p50_ms']:.3f} / {npy['p95_ms']:.3f} | {r['ratio_best_to_numpy_p50']}× | "
                     f"{r.get('load_writes_per_s', '–')} | {r.get('reopen_and_first_recall_s', '–')} | "
                     f"{r.get('rss_fresh_process_mb', r.get('rss_store_open_mb', '–'))} | {r.get('optimize_s', '–')} | "
                     f"{r.get('disk_bytes_per_memory', 0):,} B |")
    parts = [(r["memories"], r["recall_breakdown_indexed"], r["numpy_dot_topk"]) for r in report["sizes"]
             if "engine_bare" in r.get("recall_breakdown_indexed", {})]
    if parts:
        lines += ["", "Where a recall's time goes, p50 ms with the vector index: " + "; ".join(
            f"at {n:,}, the engine alone {b['engine_bare']['p50_ms']:.2f} (ids and scores), with the payloads and "
            f"vectors a recall reads {b['engine_call']['p50_ms']:.2f}, the store's search (each hit read back, its "
            f"text unsealed) {b['store_search']['p50_ms']:.2f}, the whole recall {b['recall']['p50_ms']:.2f}, numpy "
            f"{npy['p50_ms']:.2f}" for n, b, npy in parts) + "."]
    for r in report.get("auto_index", []):
        lines += ["", f"The store as users get it at {r['memories']:,} memories (the vector index built automatically "
                      f"in a child process while writes go on): loading {r['load_writes_per_s']} writes/s, slowest "
                      f"batch of 1,000 {r['batch_ms']['max_ms']:,.0f} ms, {r['index_wait_after_load_s']} s of build "
                      f"left after the load, then recall p50 / p95 {r['recall_excluded']['p50_ms']:.2f} / "
                      f"{r['recall_excluded']['p95_ms']:.2f} ms ({r['recall_excluded_reinforce']['p50_ms']:.2f} ms "
                      "p50 with reinforcement)."]
    w = report["writes"]
    zd, zo, zn = w.get("zero_cost_defaults", {}), w.get("zero_cost_rules_off", {}), w.get("zero_cost_noop_audit", {})
    lines += ["", f"Writes per second with the real model: raw embedder {w['raw_embedder_per_s']}, one `remember` "
                  f"at a time {w['single_writes_per_s']}, `write_many` batches {w['batched_writes_per_s']} "
                  f"({w['batched_vs_raw']:.0%} of the raw embedder). With a zero-cost embedder (the library alone): "
                  f"batches {zd.get('batched_writes_per_s', '–')}/s with the default write rules "
                  f"({zd.get('batched_writes_per_cpu_s', '–')}/s of the process's CPU time), "
                  f"{zn.get('batched_writes_per_s', '–')}/s ({zn.get('batched_writes_per_cpu_s', '–')}/s of CPU time) "
                  "with a write audit that lets everything through (the rest of a write), "
                  f"{zo.get('batched_writes_per_s', '–')}/s with the neighbour rules off; single writes "
                  f"{zd.get('single_writes_per_s', '–')}/s after a user's first write, which registers the user "
                  "(their registry entry; on a fresh store, the shared shard and the key file too) "
                  f"({zd.get('first_write_ms', '–')} ms). Peak RSS {report.get('peak_rss_mb', '–')} MiB."]
    by_size = {r["memories"]: r for r in report["sizes"]}
    checks = []
    for n in (10000, 20000, 100000):
        if n in by_size:
            ratio = by_size[n]["ratio_best_to_numpy_p50"]
            checks.append(f"- recall p50 at {n // 1000}k ≤ 1.2× numpy brute force: {_met(ratio <= 1.2)} ({ratio}×)")
    if 100000 in by_size:
        r = by_size[100000]
        best = (r.get("recall_indexed_excluded") or r["recall_exact_excluded"])["p50_ms"]
        checks.append(f"- recall p50 at 100k ≤ 5 ms: {_met(best <= 5)} ({best:.2f} ms)")
        rss = r.get("rss_fresh_process_mb", r["rss_store_open_mb"])
        checks.append(f"- resident memory of a process with the default model loaded and the 100k store open "
                      f"≤ 600 MiB: {_met(rss <= 600)} ({rss:.0f} MiB)")
        checks.append(f"- reopening the 100k store < 1 s: {_met(r['reopen_and_first_recall_s'] < 1)} "
                      f"({r['reopen_and_first_recall_s']} s, first recall included)")
    checks.append(f"- `write_many` ≥ 80% of the raw embedder: {_met(w['batched_vs_raw'] >= 0.8)} "
                  f"({w['batched_vs_raw']:.0%})")
    if zd:
        checks.append(f"- ≥ 2,000 writes/s batched with a zero-cost embedder: "
                      f"{_met(zd['batched_writes_per_s'] >= 2000)} ({zd['batched_writes_per_s']}/s, default rules; "
                      f"{zn.get('batched_writes_per_s', '–')}/s with a no-op write audit)")
        checks.append(f"- ≥ 500 single `remember` calls/s with a zero-cost embedder: "
                      f"{_met(zd['single_writes_per_s'] >= 500)} ({zd['single_writes_per_s']}/s, default rules)")
    load = report.get("load_average")
    lines += ["", "Targets:", "", *checks, "", f"![Recall latency against store size]({image_prefix}speed.png)", "",
              f"Command: `{report.get('command', 'python -m benchmarks.speed')}` ({report['machine']}, "
              f"{report['date'][:10]}{f', load average {load[0]} at the start, {load[1]} at the end' if load else ''})."]
    return lines


def adapter_section(report: dict, image_prefix: str) -> list[str]:
    lines = ["", "### What memory adds to an agent turn", "",
             f"Real framework turns with a model that answers at once, the default embedder ({report['embedder']}), "
             "on the embedded store; p50 / p95 in ms. A turn's writes are handed to the write queue (journaled in "
             f"SQLite, sync=\"{report.get('sync', 'full')}\") and stored behind the agent; \"loaded\" runs a CPU-bound process on every core beside it. "
             "No environment variable is set.", "",
             "| machine | LangChain write hook | LangChain recall hook | LlamaIndex block (recall + hand-over) | "
             "LlamaIndex hand-over | query embedding alone | `WriteQueue.submit` |",
             "|---|---:|---:|---:|---:|---:|---:|"]

    def cell(x: dict) -> str:
        return f"{x['p50_ms']:.1f} / {x['p95_ms']:.1f}"

    for arm, r in report["arms"].items():
        lines.append(f"| {arm} (load average {r.get('load_average', '–')}) | {cell(r['langchain']['write_hook'])} | "
                     f"{cell(r['langchain']['recall_hook'])} | {cell(r['llamaindex']['block_aget'])} | "
                     f"{cell(r['llamaindex']['hand_over'])} | {cell(r['query_embedding'])} | "
                     f"{cell(r['queue_submit'])} |")
    lines += ["", "Targets:", ""]
    for arm, t in report.get("targets", {}).items():
        for name, ok in t.items():
            lines.append(f"- {arm}: {name.replace('_', ' ')}: {_met(ok)}")
    lines += ["", f"Command: `{report['command']}` ({report['machine']}, {report['date'][:10]})."]
    return lines


def tenants_section(report: dict, image_prefix: str) -> list[str]:
    """Many users in one process (`benchmarks/tenants.py`): one row per store layout and user count."""
    lines = ["", "### Many users in one process", "",
             "The embedded store with N users of 20 memories each in one process (free 384-dimensional embedder); "
             "the process after the writes, then a recall of 50 users written long ago (cold) and the next recall "
             "of each (warm). p50 in ms.", "",
             "| layout | users | resident (MiB) | threads | open files | files / user | bytes / memory | "
             "new user's first write | cold recall | warm recall | cold ÷ warm | forget one | forget everything |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    commands = []
    for label, run in report.items():
        store = f"{run['store']}, " if run.get("store") else ""
        commands.append(f"`{run['command']}` ({store}{run['date'][:10]}, {run['machine']})")
        for r in run["rows"]:
            if "error" in r:
                lines.append(f"| {label} | {r['users']:,} | failed: {' '.join(r['error'])} |" + " |" * 10)
                continue
            forget_one = r.get("forget_one_ms") or {}
            forget_all = r.get("forget_everything_ms") or {}
            lines.append(
                f"| {label} | {r['users']:,} | {r['rss_mib_after_recalls']:,.0f} | {r['threads_after_recalls']} | "
                f"{r['open_files_after_recalls']} | {r['files_per_user']:.1f} | {r['bytes_per_memory']:,} | "
                f"{r['first_write_ms']['p50']:.1f} | {r['cold_recall_ms']['p50']:.1f} | "
                f"{r['warm_recall_ms']['p50']:.1f} | {r['cold_over_warm']:.2f} | "
                f"{_fmt(forget_one.get('p50'), 0)} | {_fmt(forget_all.get('p50'), 0)} |")
    lines += ["", "Commands: " + "; ".join(commands) + "."]
    return lines


#: the knowledge decisions scored: (label, key in a system's report, how many were made, how many were right)
_DECISIONS = (("knowledge formed from repetitions", "groups", "formed", "formed_right"),
              ("changes of mind (supersessions)", "changes", "made", "made_right"))


#: the knowledge decisions on LoCoMo (`decisions.py`, labelled by reading): (kind, what, verb, what limits it)
_REAL_DECISIONS = (
    ("supersessions", "Changes of mind", "made",
     "chit-chat between two friends is full of change words about nothing the other turn held; a span of holding "
     "(\"for two years now\"), a change of the listener's and a past habit no longer replace anything (28 before), "
     "but a plain present \"now\" about something new (\"now my bookcase is almost completely filled\") still "
     "replaces a statement that shares a word with it (`benchmarks/data/locomo_decision_labels.json`), so "
     "supersession is off by default and this is what turning it on does"),
    ("consolidations", "Knowledge formed", "formed",
     "none formed is none wrong: small talk never leads or joins a group (\"Thanks, Evan! Your support means a "
     "lot\", \"Let me know how it goes. Enjoy it!\": 38 groups before, 2 last round, `write/small_talk.py`); "
     "consolidation after each write stays off by default for our labelled set's precision (the row above)"),
)


#: what keeps each kind of knowledge decision below its target (docs/how-it-works.md has the figures)
_DECISION_LIMITS = {
    "groups": "off by default: English 100% right, Chinese 87.8%: a one-off task asked three times with another "
              "object and no day named (\"给我出一份…的练习卷\"), a child's sayings told by name (\"朵朵说…\") and "
              "viewers' chat quoted (\"弹幕又刷“播黑神话”\") still group, and madial's dialogues form 3 groups of "
              "chit-chat (`benchmarks/knowledge_steps.py`); on all of LoCoMo it forms none (`benchmarks/decisions.py`). A conversation with "
              "fewer than seven other statements has no background to stand out from, and a statement in one "
              "language seldom counts one in the other among its nearest",
    "changes": "off by default: on real conversation nearly every change it makes is wrong (LoCoMo, madial's "
               "dialogues, `benchmarks/decisions.py`); a change across languages with no shared word needs five statements in the old one's script to "
               "stand out from, a change told without a change word (\"新办公室我的工位在十二楼\", \"Fabrikam is "
               "hybrid, so…\") is not read as one, and in real chit-chat a change word still finds a wrong "
               "statement to replace (a feeling with no verb of feeling, \"now I'm just so disappointed\"; "
               "madial's dialogues, `benchmarks/change_steps.py`)",
}


#: what the held-out slices of the knowledge set show beyond the main set's row (each turned on, as above)
_HELD_OUT_LIMITS = {
    "knowledge_fresh.json":
        "the rules were tuned on the main set, and this slice has been measured at the end of every round since "
        "it was written, so its figures have been seen six times before this one",
    "knowledge_fresh2.json":
        "written on 2026-12-06 and measured once after that round's rules (groups 75.0% / 37.5%, changes 68.4% / "
        "54.2%); its wrong decisions were then read and the rules since (a story of an occasion just past is "
        "neither grouped nor replaced, the same change told again replaces nothing more) were made from them, so "
        "it is no longer unseen. A group still gathers statements on one subject across a change told without a "
        "change word (\"I ride to work three days a week\" … \"I'm riding in every day\")",
    "knowledge_fresh3.json":
        "written on 2026-12-06 after that round's rules and measured once unseen (groups 86.7% / 54.2%, changes "
        "59.3% / 66.7%); its wrong decisions were then read and one rule made from them (a change replaces the "
        "oldest statement on its subject, not the new value told first as news), so it is no longer unseen",
    "knowledge_fresh4.json":
        "written on 2026-12-06 after every rule above and measured once, unseen: the decisions are what the rules "
        "earn on conversation they were not written for (no rule changed after). Chinese groups are less precise "
        "(66.7%) than English (100%): a group takes in a story of an occasion further back (去年, 2019 年, \"last "
        "spring\") or spans a change told without a change word; a change is read into a greeting (\"Thanks, the "
        "VPN login works now\"), a story told with a change word (\"…后来搬家就断了\") replaces a standing "
        "instruction, and an instruction restated with 以后 replaces itself. Its questions were read after that "
        "run, and the retrieval check's rule for questions about the past came from them; with the defaults "
        "recall@5 is 75.5 against 83.1 for e5 dense over exchanges (0.91×)",
}


def _most_decisive(systems: dict, key: str, made: str) -> tuple[str, dict]:
    """The hindsight system whose figures stand for one kind of decision: the defaults when they make any (a
    mechanism on by default), else the variant that made the most (the one that turns it on)."""
    hindsight = [(n, s) for n, s in systems.items() if s["kind"] == "hindsight"]
    defaults = [(n, s) for n, s in hindsight if not s.get("setup", {}).get("changes")]
    if defaults and defaults[0][1][key]["overall"][made]:
        return defaults[0]
    return max(hindsight, key=lambda pair: pair[1][key]["overall"][made])


def knowledge_section(report: dict, image_prefix: str) -> list[str]:
    """Knowledge decisions and questions on the set of changes and repetitions (`benchmarks/knowledge.py`)."""
    systems = report["systems"]
    data = report["data"]["overall"]
    lines = ["", "### Knowledge: repetitions and changes of mind", "",
             f"`benchmarks/data/knowledge/`: {data['cases']} dated conversations written for it (English, Chinese "
             f"and across the two), {data['group_decisions']} labelled group decisions ({data['group_negatives']} "
             f"that must not become knowledge), {data['change_decisions']} labelled changes of mind "
             f"({data['change_negatives']} that must not supersede), {data['questions']} questions. Written "
             "through `TurnLog` as the adapters write. Supersession and consolidation after each write are off by "
             "default (each acts wrongly on real conversation, `benchmarks/decisions.py`); the variants turn one the other way in the same run, and "
             "with consolidation on `consolidate()` runs a day after the last turn.", "",
             "| system | decisions | made | right | precision | recall | negatives respected |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for name, system in systems.items():
        if system["kind"] != "hindsight":
            continue
        for label, key, made, right in _DECISIONS:
            row = system[key]["overall"]
            lines.append(f"| {name} | {label} | {row[made]} | {row[right]} | {_fmt(row['precision'])} | "
                         f"{_fmt(row['recall'])} | {_fmt(row['negatives_respected'])} |")
    lines += ["", "| questions | recall@5 | evidence whole in the block | new value first (present) | "
              "old value first (past) |", "|---|---:|---:|---:|---:|"]
    for name, system in systems.items():
        q = system["questions"]["overall"]
        lines.append(f"| {name} | {_fmt(q['recall@5'])} | {_fmt(q.get('evidence_in_block@5'))} | "
                     f"{_fmt(q.get('current_first@5'))} | {_fmt(q.get('past_first@5'))} |")
    lines += ["", f"Command: `{report['command']}` ({report['date'][:10]})."]
    return lines


def figures_section(results: Path) -> list[str]:
    """The README's smaller figures (CLI, model load), each from its own script's JSON."""
    lines: list[str] = []
    cli, load = _load(results, "cli_timings.json"), _load(results, "model_load.json")
    if cli is not None:
        r = cli
        lines += ["", f"CLI commands, each a fresh process, mean of {r['runs']} (load average {r['load_average']}): "
                  + "; ".join(f"`{name}` {c['mean_s']:.2f} s" for name, c in r["commands"].items())
                  + f". Command: `{r['command']}`."]
    if load is not None:
        r = load
        m = r["median"]
        lines += ["", f"Loading {r['model']} in a fresh process (median of {len(r['runs'])}, load average "
                  f"{r['load_average']}): import {m['import_s']:.2f} s, load and first text "
                  f"{m['load_and_first_text_s']:.2f} s, then {m['second_text_s'] * 1000:.0f} ms a text. "
                  f"Command: `{r['command']}`."]
    return (["", "### Smaller figures"] + lines) if lines else []


def multilingual_section(report: dict, image_prefix: str) -> list[str]:
    data = report.get("data", {})
    lines = ["", "### Recall in Chinese, English and mixed text", "",
             f"`benchmarks/multilingual.py` over `benchmarks/data/multilingual.jsonl` (written for it): "
             f"{data.get('users', '?')} users, {data.get('memories', '?')} memories over about ten weeks, "
             f"{data.get('questions', '?')} questions that cross languages both ways, paraphrase their answer and "
             "face more recent distractors. Recall@k: the answering memory (or knowledge drawn from it) among the "
             "top k.", ""]
    pairs = sorted({p for run in report["runs"].values() for p in run.get("by_pair", {})})
    lines += ["| embedder, decay | R@1 | R@5 | " + " | ".join(f"{p} R@5" for p in pairs) + " |",
              "|---|---:|---:|" + "---:|" * len(pairs)]
    for name, run in report["runs"].items():
        o = run["overall"]
        lines.append(f"| {name} | {o['recall@1']:.1f} | {o['recall@5']:.1f} | " + " | ".join(
            _fmt(run.get("by_pair", {}).get(p, {}).get("recall@5")) for p in pairs) + " |")
    lines += ["", f"Command: `{report.get('command', 'python -m benchmarks.multilingual')}` ({report['machine']})."]
    return lines


def adapters_section(report: dict, image_prefix: str) -> list[str]:
    data = report["data"]
    lines = ["", "#### LoCoMo through the adapters' protocol",
             "", f"{data['conversations']} conversations, {data['questions']:,} questions. hindsight's turns go "
             "through the core's conversation policy (`TurnLog.offer`, one offer per session), as the LangChain and "
             "LlamaIndex adapters write them; the baselines run over single turns and over exchanges (a turn with "
             "the one before it, credited with both dialog ids). *block*: share of the evidence whose text reaches "
             "the top-5 prompt block whole.", "",
             "| system | recall@5 | recall@10 | block@5 | tokens | " + " | ".join(CATS) + " |",
             "|---|---:|---:|---:|---:|" + "---:|" * len(CATS)]
    for name, r in report["systems"].items():
        s = r["summary"]
        o = s["overall"]
        lines.append(f"| {name} | {_fmt(o['recall@5'])} | {_fmt(o['recall@10'])} | "
                     f"{_fmt(o.get('evidence_in_block@5'))} | {o['tokens']:,.0f} | "
                     + " | ".join(_fmt(s.get(c, {}).get("recall@5")) for c in CATS) + " |")
    lines += ["", f"Command: `{_command(report)}` ({report['date'][:10]})."]
    return lines


def madial_section(report: dict, image_prefix: str) -> list[str]:
    align = report["data"].get("alignment", {})
    lines = ["", "### A year of one person's events, asked in dialogue (madial)", "",
             "`benchmarks/madial.py` over `../shared/benchmarks/madial/`: dated one-sentence events and dialogues "
             "whose assistant turns need some of them, in Chinese and in English"
             + (f" ({align['shared_ids']} events under the same ids and dates in both)" if align else "")
             + ". Arms are question language → memory language. *last*: asked with the last user message; "
             "*dialogue*: with the dialogue so far. *returned*: results returned when 10 are asked for.", ""]
    arms = [a for a, r in report["arms"].items() if "modes" in r]
    systems = list(next(iter(report["arms"][arms[0]]["modes"].values()))) if arms else []
    modes = list(report["arms"][arms[0]]["modes"]) if arms else []
    header = [f"{arm} {mode} R@5" for arm in arms for mode in modes]
    lines += ["| system | " + " | ".join(header) + " | returned (zh-zh last) |",
              "|---|" + "---:|" * (len(header) + 1)]
    for system in systems:
        cells = [_fmt(report["arms"][a]["modes"][m].get(system, {}).get("recall@5")) for a in arms for m in modes]
        first = report["arms"][arms[0]]["modes"][modes[0]].get(system, {}).get("returned_of_10")
        lines.append(f"| {system} | " + " | ".join(cells) + f" | {_fmt(first, 2)} |")
    if arms and any("evidence_in_block@5" in r for a in arms for r in report["arms"][a]["modes"][modes[0]].values()):
        lines += ["", "Evidence whole in the top-5 prompt block, and the block's cl100k tokens "
                  f"(hindsight written {report.get('setup', {}).get('protocol', 'write_many')!r}):", "",
                  "| system | " + " | ".join(f"{arm} {mode} block@5 (tokens)" for arm in arms for mode in modes)
                  + " |", "|---|" + "---:|" * len(header)]
        for system in systems:
            cells = []
            for a in arms:
                for m in modes:
                    r = report["arms"][a]["modes"][m].get(system, {})
                    cells.append(f"{_fmt(r.get('evidence_in_block@5'))} ({_fmt(r.get('tokens'), 0)})")
            lines.append(f"| {system} | " + " | ".join(cells) + " |")
    gates = {a: r.get("write_gate") for a, r in report["arms"].items() if r.get("write_gate")}
    skipped = {a: r["skipped"] for a, r in report["arms"].items() if "skipped" in r}
    if skipped:
        lines += ["", "Skipped: " + "; ".join(f"{a} ({why})" for a, why in skipped.items()) + "."]
    if gates:
        lines += ["", "Write gate: " + "; ".join(f"{a} stored {g['stored']}/{g['offered']} "
                                                 f"({g['dropped_relevant']} labelled relevant dropped)"
                                                 for a, g in gates.items()) + "."]
    lines += ["", f"Command: `{report.get('command')}` ({report['date'][:10]})."]
    return lines


def ablations_section(report: dict, image_prefix: str) -> list[str]:
    columns = list(report["columns"])
    lines = ["", "### Does each mechanism earn its place?", "",
             "`benchmarks/ablations.py`: hindsight with one mechanism off at a time, recall@5 on every set, beside "
             "the plain baselines over the same units (LoCoMo through the adapters' protocol).", "",
             "| | " + " | ".join(f"{c} ({report['columns'][c]} q)" for c in columns) + " |",
             "|---|" + "---:|" * len(columns)]
    for name, v in report["variants"].items():
        label = f"hindsight {name}: {v.get('what', '')}"
        if v.get("status") != "ok":
            lines.append(f"| {label} | unavailable: {v.get('reason', '')} |" + " |" * (len(columns) - 1))
            continue
        lines.append(f"| {label} | " + " | ".join(_fmt(v["recall@5"].get(c)) for c in columns) + " |")
    for name, figures in report["baselines"].items():
        lines.append(f"| {name} | " + " | ".join(_fmt(figures.get(c)) for c in columns) + " |")
    ok = {n: v for n, v in report["variants"].items() if v.get("status") == "ok"}
    block_columns = [c for c in columns if any(c in v.get("evidence_in_block@5", {}) for v in ok.values())]
    if block_columns:
        lines += ["", "Evidence whole in the top-5 prompt block (its cl100k tokens), for the same variants:", "",
                  "| | " + " | ".join(block_columns) + " |", "|---|" + "---:|" * len(block_columns)]
        for name, v in ok.items():
            lines.append(f"| hindsight {name} | " + " | ".join(
                f"{_fmt(v['evidence_in_block@5'].get(c))} ({_fmt(v['tokens'].get(c), 0)})" for c in block_columns)
                + " |")
    classes = [c for c in ("date", "past", "present") if any(c in v.get("by_class", {}) for v in ok.values())]
    if classes:
        lines += ["", "Recall@5 by what the question asks about in time (`benchmarks/query_classes.py`: names a "
                  "date; past tense; the rest, present), pooled over every set above:", "",
                  "| | " + " | ".join(f"{c} ({next(iter(ok.values()))['by_class'][c]['questions']} q)"
                                      for c in classes) + " |", "|---|" + "---:|" * len(classes)]
        for name, v in ok.items():
            lines.append(f"| hindsight {name} | " + " | ".join(_fmt(v["by_class"][c]["recall@5"]) for c in classes)
                         + " |")
    earlier = "".join(f", after `{c}`" for c in report.get("earlier_runs", []))
    lines += ["", f"Command: `{report.get('command')}`{earlier} ({report['date'][:10]})."]
    return lines


def poisoning_section(report: dict, image_prefix: str) -> list[str]:
    """What reaches the prompt from poisoned writes (`benchmarks/poisoning.py`)."""
    s, lofo, targets = report["summary"], report["leave_one_family_out"], report.get("targets", {})
    worst = max(lofo["by_family"].items(), key=lambda item: (item[1]["success"], item[1]["n"]))
    langs = "; ".join(f"{lang} {_fmt(100 * r['success'])}%" for lang, r in lofo.get("by_lang", {}).items())
    split, locomo = report["split_instructions"], report["locomo_as_agent"]["all"]
    bipia = {category: run["by_category"][category]["n"] for run in report["bipia_test_only"]
             for category in run["by_category"]}
    framed, bare = bipia.get("bipia_framed", "–"), bipia.get("bipia_bare", "–")
    lines = ["", "### Poisoned writes", "",
             "The write audit on this repository's corpus (`tests/data/poisoning/`), the BIPIA strings and every LoCoMo "
             "turn written as an agent's text (read from `../shared/benchmarks/`). *Blocked*: "
             f"{report.get('blocked_means', 'rejected or quarantined')}.", "",
             "| set | texts | result |", "|---|---:|---|",
             f"| leave-one-family-out: {len(lofo['by_family'])} attack families (EN+ZH, agent and tool text), each "
             f"screened by an audit whose directive model was refitted without it | {lofo['attacks']} | "
             f"**{_fmt(100 * lofo['attack_success'])}% reach the prompt** (target ≤ "
             f"{_fmt(100 * targets.get('lofo_attack_success_max', 0.05), 0)}%); {langs}; worst family: "
             f"{worst[0].replace('_', ' ')}, {worst[1]['reached']} of {worst[1]['n']} |",
             f"| legitimate look-alikes kept, worst fold | {lofo['lookalikes']} | "
             f"{_fmt(100 * lofo['lookalikes_kept_worst_fold'])}% (target ≥ "
             f"{_fmt(100 * targets.get('lookalikes_kept_min', 0.98), 0)}%) |",
             f"| all LoCoMo turns written as agent text, held for review | {locomo['n']:,} | "
             f"{_fmt(100 * locomo['held_with_session_window_rate'], 2)}% (target ≤ "
             f"{_fmt(100 * targets.get('locomo_agent_held_max', 0.01), 0)}%) |",
             f"| one order split over 2–3 writes of one session | {split['n']} | {split['caught']} caught |",
             f"| BIPIA attacks in attacker-framed carriers (nothing tuned on them) | {framed} | "
             f"{_fmt(100 * s['bipia_framed_blocked'])}% blocked |",
             f"| BIPIA attacks inserted bare (nothing tuned on them) | {bare} | "
             f"{_fmt(100 * s['bipia_bare_blocked'])}% blocked |"]
    block = lofo.get("prompt_block")
    if block:  # issue 45: the prompt gate too (what reaches the block at all)
        lines.append(f"| leave-one-family-out through the prompt block (the write audit and the prompt gate) | "
                     f"{block['attacks']} | **{_fmt(100 * block['attack_success'])}% reach the block**; look-alikes "
                     f"shown, worst fold {_fmt(100 * block['lookalikes_shown_worst_fold'])}% |")
    for key, what in (("after_prompt_gate", "written after the prompt gate"),
                      ("held_out_after_facts", "written after the gate's rule for orders stated as facts")):
        held_out = report.get(key)
        if held_out:
            lines.append(f"| {what}, now in-sample (the gate was changed after its one measurement, whose figures "
                         f"`tests/data/poisoning/README.md` keeps): attacks reaching the prompt block / look-alikes "
                         f"shown | {held_out['attacks']} / {held_out['lookalikes']} | {held_out['reached_prompt']} / "
                         f"{held_out['lookalikes_shown']} |")
    lines += ["", f"Command: `{_command(report)}` ({report['machine']}, {report['date'][:10]})."]
    return lines


SECTIONS = (("locomo.json", locomo_section), ("locomo_adapters.json", adapters_section),
            ("madial.json", madial_section), ("ablations.json", ablations_section),
            ("multilingual.json", multilingual_section), ("speed.json", speed_section),
            ("knowledge.json", knowledge_section), ("tenants.json", tenants_section),
            ("adapter_overhead.json", adapter_section), ("poisoning.json", poisoning_section))


#: a result file's entry of runs `make bench` cannot remake (an earlier store layout): kept for the prose that
#: compares with them, never rendered
HISTORY = "history"


def _load(results: Path, name: str) -> dict | None:
    """A result file as the pages render it: without its `HISTORY`."""
    source = results / name
    if not source.exists():
        return None
    report = json.loads(source.read_text(encoding="utf-8"))
    report.pop(HISTORY, None)
    return report


def render(results: Path, image_prefix: str = "../benchmarks/results/", heading: str = "## The tables") -> str:
    """Every table, for docs/benchmarks.md (`image_prefix` is where the plots are, seen from that page)."""
    parts = [heading, "",
             "Generated by `python -m benchmarks.render_readme` from `benchmarks/results/*.json`; "
             "`make bench` reruns everything (see `benchmarks/README.md`). Timings are wall-clock on the machine "
             "named below, which other jobs shared: compare ratios within a run."]
    for name, section in SECTIONS:
        report = _load(results, name)
        if report is not None:
            parts += [""] + section(report, image_prefix)
    parts += figures_section(results)
    return "\n".join(parts) + "\n"


def _anchor(title: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes."""
    kept = "".join(c for c in title.lower() if c.isalnum() or c in " -_")
    return kept.replace(" ", "-")


def summary_rows(results: Path) -> list[tuple[str, str, str, str]]:
    """(what, figure, command, section title in docs/benchmarks.md), one per headline figure whose file exists."""
    rows = []
    adapters = _load(results, "locomo_adapters.json")
    if adapters:
        systems = adapters["systems"]
        ours = next(s for s in systems.values() if s.get("kind") != "baseline")["summary"]["overall"]
        best_name, best = max(((n, s["summary"]["overall"]) for n, s in systems.items() if s.get("kind") == "baseline"),
                              key=lambda item: item[1]["recall@5"])
        rows.append((f"LoCoMo recall@5, {adapters['data']['questions']:,} questions, written as the adapters write",
                     f"{_fmt(ours['recall@5'])} at {ours['tokens']:,.0f} prompt tokens (best plain baseline, "
                     f"{best_name}: {_fmt(best['recall@5'])} at {best['tokens']:,.0f})", _command(adapters),
                     "LoCoMo through the adapters' protocol"))
    madial = _load(results, "madial.json")
    if madial:
        cells = []
        for arm, run in madial["arms"].items():
            modes = run.get("modes", {})
            if "last" in modes:
                mine = next((r for n, r in modes["last"].items() if n.startswith("hindsight")), None)
                best = max((r["recall@5"] for n, r in modes["last"].items() if not n.startswith("hindsight")), default=None)
                if mine:
                    cells.append(f"{arm} {_fmt(mine['recall@5'])} ({_fmt(best)})")
        rows.append(("A year of one person's events (madial), recall@5 asked with the last message "
                     "(best plain baseline)", "; ".join(cells), _command(madial),
                     "A year of one person's events, asked in dialogue (madial)"))
    multilingual = _load(results, "multilingual.json")
    if multilingual:
        name, run = next(((n, r) for n, r in multilingual["runs"].items() if "e5" in n and "default" in n),
                         next(iter(multilingual["runs"].items())))
        rows.append(("Recall across Chinese, English and mixed text", f"R@1 {_fmt(run['overall']['recall@1'])}, "
                     f"R@5 {_fmt(run['overall']['recall@5'])} ({name})", _command(multilingual),
                     "Recall in Chinese, English and mixed text"))
    knowledge = _load(results, "knowledge.json")
    if knowledge:
        parts = []
        for label, key, made, _ in _DECISIONS:
            name, system = _most_decisive(knowledge["systems"], key, made)
            row = system[key]["overall"]
            parts.append(f"{label.split(' (')[0]}: {_fmt(row['precision'])} / {_fmt(row['recall'])} ({name})")
        rows.append(("Knowledge decisions on our own labelled set, precision / recall", "; ".join(parts),
                     _command(knowledge), "Knowledge: repetitions and changes of mind"))
    poisoning = _load(results, "poisoning.json")
    if poisoning:
        lofo = poisoning["leave_one_family_out"]
        rows.append(("Poisoned writes that reach the prompt (held-out attack families) / look-alikes kept",
                     f"{_fmt(100 * lofo['attack_success'])}% / {_fmt(100 * lofo['lookalikes_kept_worst_fold'])}%",
                     _command(poisoning), "Poisoned writes"))
    speed = _load(results, "speed.json")
    if speed:
        big = max(speed["sizes"], key=lambda r: r["memories"])
        best = (big.get("recall_indexed_excluded") or big["recall_exact_excluded"])["p50_ms"]
        rows.append((f"Recall p50 at {big['memories']:,} memories of one user, query embedding excluded",
                     f"{best:.2f} ms ({big['ratio_best_to_numpy_p50']}× a numpy dot product + top-k)",
                     _command(speed), "Speed and scale"))
    overhead = _load(results, "adapter_overhead.json")
    if overhead and "quiet" in overhead["arms"]:
        quiet = overhead["arms"]["quiet"]
        rows.append(("What the LangChain middleware adds to a turn, p50 (quiet machine)",
                     f"write {quiet['langchain']['write_hook']['p50_ms']:.1f} ms, recall "
                     f"{quiet['langchain']['recall_hook']['p50_ms']:.1f} ms (the query embedding alone "
                     f"{quiet['query_embedding']['p50_ms']:.1f} ms)", _command(overhead),
                     "What memory adds to an agent turn"))
    return rows


#: the plain rankings the time a question asks about is judged against: e5's, and e5's sorted newest first
_FIRST_BASELINES = ("e5 dense (query side) over exchanges", "e5 dense, top 5 newest first over exchanges")
#: the knowledge sets: the main one and every held-out slice, with what limits who answers first on each
_FIRST_SETS = ("knowledge.json", "knowledge_fresh.json", "knowledge_fresh2.json", "knowledge_fresh3.json",
               "knowledge_fresh4.json", "knowledge_fresh5.json")
#: what keeps who answers first below its target where it is
_FIRST_LIMITS = ("what is current is ordered among the five candidates a block shows: a value recall ranks below "
                 "them is not brought up, and a change told in the other "
                 "language or in other words is on the old value's subject only when their vectors are close "
                 "(RecallConfig.same_subject_similarity)")


#: recall@5 with the defaults at 48390d0, before recall decided what is true now: (file, what it is) -> the figure
_FLOORS = {("locomo_adapters.json", "LoCoMo through the adapters"): 71.7,
           ("knowledge.json", "the knowledge set"): 86.2, ("knowledge_fresh.json", "the fresh slice"): 83.2,
           ("knowledge_fresh2.json", "the fresh2 slice"): 82.7, ("knowledge_fresh3.json", "the fresh3 slice"): 80.7,
           ("knowledge_fresh4.json", "the fresh4 slice"): 75.5}
#: what keeps a set's recall@5 below its floor
_FLOOR_LIMITS = ("a repeat that differs in a value is no longer merged into what it repeats (nothing new is merged "
                 "away), so a repeated old value can take a slot of its own (the knowledge set's current-state "
                 "questions 79.0 → 76.6)")


def _floor_rows(results: Path) -> list[tuple[str, str, bool, str, str]]:
    """Recall@5 with the defaults no lower than at 48390d0, on each set measured then."""
    rows = []
    for (name, what), floor in _FLOORS.items():
        report = _load(results, name)
        if not report:
            continue
        ours = next(s for s in report["systems"].values() if s.get("kind") != "baseline")
        figure = (ours.get("summary") or ours["questions"])["overall"]["recall@5"]
        rows.append((f"Recall@5 on {what} (defaults) no lower than at 48390d0 ({_fmt(floor)})", _fmt(figure),
                     figure >= floor, _command(report), "" if figure >= floor else _FLOOR_LIMITS))
    return rows


def _first_rows(results: Path) -> list[tuple[str, str, bool, str, str]]:
    """Who answers first with the defaults on each knowledge set: the new value for a question about the present,
    the old one for a question about the past, beside e5 dense and e5 dense sorted newest first."""
    rows = []
    for name in _FIRST_SETS:
        report = _load(results, name)
        if not report:
            continue
        systems = report["systems"]
        ours = next(s for s in systems.values() if s.get("kind") == "hindsight")["questions"]["overall"]
        plain = [systems[b]["questions"]["overall"] for b in _FIRST_BASELINES if b in systems]
        cur, past = ours.get("current_first@5") or 0.0, ours.get("past_first@5") or 0.0
        beats = all(cur + past > (p.get("current_first@5") or 0.0) + (p.get("past_first@5") or 0.0) for p in plain)
        against = "; ".join(f"{b.split(' over ')[0]}: {_fmt(p.get('current_first@5'))} / "
                            f"{_fmt(p.get('past_first@5'))}" for b, p in zip(_FIRST_BASELINES, plain))
        met = cur >= 90 and past >= 85 and beats
        rows.append((f"Who answers first on {report['data']['path']} (defaults): the new value ≥ 90% for the "
                     f"present, the old ≥ 85% for the past, above both plain rankings on the two together",
                     f"{_fmt(cur)}% / {_fmt(past)}% ({against}); recall@5 {_fmt(ours['recall@5'])}",
                     met, _command(report), "" if met else _FIRST_LIMITS))
    return rows


def _baseline_best(systems: dict, metric: str = "recall@5") -> dict:
    return max((s["summary"]["overall"] for s in systems.values() if s.get("kind") == "baseline"),
               key=lambda row: row[metric])


def target_rows(results: Path) -> list[tuple[str, str, bool, str, str]]:
    """(target, figure, met, command, what limits it), one per target of the open issues whose file exists."""
    rows = []
    adapters = _load(results, "locomo_adapters.json")
    if adapters:
        systems = adapters["systems"]
        ours = next(s for s in systems.values() if s.get("kind") != "baseline")["summary"]["overall"]
        best = _baseline_best(systems)
        ratio = ours["recall@5"] / best["recall@5"]
        rows.append(("LoCoMo through the adapters: recall@5 ≥ 75 and ≥ 1.2× the best plain baseline",
                     f"{_fmt(ours['recall@5'])}, {ratio:.2f}×", ours["recall@5"] >= 75 and ratio >= 1.2,
                     _command(adapters), "over the same exchanges a plain e5 + BM25 fusion finds nearly as much, "
                     "and the knowledge mechanisms, off by default, would act on LoCoMo's small talk"))
        rows.append(("LoCoMo: evidence whole in the prompt block ≥ 0.9× recall@5",
                     f"{_fmt(ours['evidence_in_block@5'])} ({ours['evidence_in_block@5'] / ours['recall@5']:.2f}×)",
                     ours["evidence_in_block@5"] >= 0.9 * ours["recall@5"], _command(adapters), ""))
    madial = _load(results, "madial.json")
    if madial:
        cells, met = [], True
        for arm, run in madial["arms"].items():
            for mode, systems in run.get("modes", {}).items():
                mine = next((r for n, r in systems.items() if n.startswith("hindsight")), None)
                best = max((r["recall@5"] for n, r in systems.items() if not n.startswith("hindsight")), default=None)
                if mine and best:
                    ratio = mine["recall@5"] / best
                    met = met and ratio >= 1.2 and mine["evidence_in_block@5"] >= 0.9 * mine["recall@5"]
                    block = mine["evidence_in_block@5"] / mine["recall@5"]
                    cells.append(f"{arm} {mode} {ratio:.2f}× (block {block:.2f}×)")
        rows.append(("A year of one person's events (madial), every arm: recall@5 ≥ 1.2× the best plain baseline, "
                     "evidence in the block ≥ 0.9× recall@5", "; ".join(cells), met, _command(madial),
                     "one-sentence events asked about in a child's dialogue: the plain e5 ranking of the same events "
                     "finds as much, and hindsight's keyword channel is weaker than e5 alone in Chinese; knowledge "
                     "(off by default) adds about a point (`benchmarks/ablations.py`)"))
    knowledge = _load(results, "knowledge.json")
    if knowledge:
        for label, key, made, _ in _DECISIONS:
            name, system = _most_decisive(knowledge["systems"], key, made)
            row = system[key]["overall"]
            precision, recall = row["precision"] or 0.0, row["recall"] or 0.0
            rows.append((f"{label.split(' (')[0].capitalize()}: precision ≥ 95%, recall ≥ 80% ({name})",
                         f"{_fmt(precision)}% / {_fmt(recall)}%", precision >= 95 and recall >= 80,
                         _command(knowledge), _DECISION_LIMITS[key]))
        ours = knowledge["systems"][next(n for n, v in knowledge["systems"].items() if v.get("kind") == "hindsight")]
        mine = ours["questions"]["overall"]
        best = max((v["questions"]["overall"] for v in knowledge["systems"].values() if v.get("kind") == "baseline"),
                   key=lambda row: row["recall@5"])
        missed = (100 - mine["recall@5"]) / max(100 - best["recall@5"], 1e-9)
        rows.append(("Our knowledge set: missed evidence ≤ 0.6× the best baseline's (both above 80); evidence in "
                     "the block ≥ 0.9× recall@5", f"{missed:.2f}× ({_fmt(mine['recall@5'])} against "
                     f"{_fmt(best['recall@5'])}); block {mine['evidence_in_block@5'] / mine['recall@5']:.2f}×",
                     missed <= 0.6 and mine["evidence_in_block@5"] >= 0.9 * mine["recall@5"], _command(knowledge),
                     "with knowledge after each write and supersession off, recall ranks exchanges by dense + BM25 and "
                     "the dates a query names, which a plain dense ranking of exchanges nearly matches on this set"))
    rows += _first_rows(results)
    rows += _floor_rows(results)
    for name, limit in _HELD_OUT_LIMITS.items():
        held_out = _load(results, name)
        if held_out:
            cells, met = [], True
            for label, key, made, _ in _DECISIONS:
                row = _most_decisive(held_out["systems"], key, made)[1][key]["overall"]
                precision, recall = row["precision"] or 0.0, row["recall"] or 0.0
                met = met and precision >= 95 and recall >= 80
                cells.append(f"{label.split(' (')[0]} {_fmt(precision)}% / {_fmt(recall)}%")
            rows.append((f"The same decisions on a held-out slice ({held_out['data']['path']}, "
                         f"{held_out['data']['overall']['cases']} cases written apart from the rules)",
                         "; ".join(cells), met, _command(held_out), limit))
    decisions = _load(results, "decisions.json")
    for kind, what, verb, limit in _REAL_DECISIONS:
        labelled = (decisions or {}).get("locomo", {}).get(f"{kind}_labelled")
        if labelled:
            made = f"{labelled['correct']} right of {labelled['labelled']} {verb}" if labelled["decisions"] else \
                f"none {verb}"
            rows.append((f"{what} on real conversations (LoCoMo, every decision labelled by reading): precision "
                         f"≥ 95%", f"{made} in {decisions['locomo']['turns']:,} turns",
                         labelled["correct"] >= 0.95 * labelled["labelled"], _command(decisions), limit))
    races = _load(results, "forget_races.json")
    if races:
        arms = [(arm, races[arm]) for arm in ("embedded", "client") if arm in races]
        rows.append(("0 acknowledged writes lost when a forget races the writer (1,000 races, embedded and client)",
                     "; ".join(f"{run['lost']} lost of {run['must_be_stored']:,} ({arm}, {run['races']:,} races), "
                               f"{run['came_back']} forgotten ones back, {run.get('failed_races', 0)} races failed "
                               "loudly" for arm, run in arms),
                     all(run["lost"] == 0 and run["came_back"] == 0 for _, run in arms), _command(races), ""))
    speed = _load(results, "speed.json")
    if speed:
        ratios = {r["memories"]: r["ratio_best_to_numpy_p50"] for r in speed["sizes"]}
        chosen = {n: ratios[n] for n in (10000, 20000, 100000) if n in ratios}
        if chosen:
            rows.append(("Recall ≤ 1.2× numpy at 10k, 20k and 100k memories",
                         ", ".join(f"{v}× at {n // 1000}k" for n, v in chosen.items()),
                         all(v <= 1.2 for v in chosen.values()), _command(speed),
                         "below some 50,000 memories the engine's fused query alone (two channels, the fusion, the "
                         "formula) costs more than a dot product, before a hit is read back"))
        batched = speed.get("writes", {}).get("zero_cost_defaults", {}).get("batched_writes_per_s")
        if batched:
            rows.append(("≥ 2,000 batched writes/s with a free embedder", f"{batched:,.0f}/s", batched >= 2000,
                         _command(speed), "of a write's CPU time: the write gate's patterns about a quarter, the "
                         "engine's upserts (it converts each payload value on its own) a third, the search for the "
                         "stored neighbours a fifth, the write audit most of the rest (`zero_cost_noop_audit`)"))
    tenants = _load(results, "tenants.json")
    runs = [run for run in (tenants or {}).values() if isinstance(run, dict)]

    def largest(model: str, fields: set[str]) -> tuple[dict | None, dict | None]:
        """The row with the most users measured with `model` and holding `fields` (of those, the latest run's), and
        the run it is in."""
        found = [(row, run) for run in runs for row in run.get("rows", [])
                 if row.get("model") == model and fields <= set(row)]
        return max(found, key=lambda pair: (pair[0]["users"], pair[1].get("date", "")), default=(None, None))

    big, run = largest("fake", {"first_write_ms", "cold_over_warm", "rss_anon_mib_after_recalls"})
    if big:
        at = f"at {big['users']:,} users"
        rows.append((f"Resident ≤ 1 GiB {at}", f"{big['rss_mib_after_recalls']:,.0f} MiB "
                     f"({big['rss_anon_mib_after_recalls']:,.0f} the process's own)",
                     big["rss_mib_after_recalls"] <= 1024, _command(run),
                     "the engine's own memory (its in-memory indexes, ~2.5 KiB a memory) and the pages of the "
                     "vectors and payloads it writes and reads; its log's and payload indexes' pages are paged out "
                     "(docs/scale.md)"))
        rows.append((f"A new user's first write ≤ 10 ms {at}", f"{big['first_write_ms']['p50']:.1f} ms p50",
                     big["first_write_ms"]["p50"] <= 10, _command(run),
                     f"the write path itself (a warm write: {big['warm_write_ms']['p50']:.1f} ms in the same run) "
                     + ("and the user's new key file (about 40% of a first write in a profile; this run predates one "
                        "key file per store, which takes it off: docs/scale.md)" if big.get("user_key_files", 1)
                        else "and the user's registry file (the keys are rows of the store's one key file)")))
        real, run_real = largest("default", {"first_write_ms", "warm_write_ms"})
        if real:
            rows.append((f"A new user's first write ≤ 10 ms with the default model (at {real['users']:,} users)",
                         f"{real['first_write_ms']['p50']:.1f} ms p50", real["first_write_ms"]["p50"] <= 10,
                         _command(run_real),
                         f"embedding the text with the default model: a warm write takes "
                         f"{real['warm_write_ms']['p50']:.1f} ms in the same run (the row above, with an embedder "
                         f"that costs nothing, is the store's own part)"))
        rows.append((f"A cold user's recall ≤ 2× a warm one {at}", f"{big['cold_over_warm']}×",
                     big["cold_over_warm"] <= 2, _command(run),
                     "the first read of a user's keys and of the engine's pages that hold the user "
                     "(docs/scale.md)"))
    audit = _load(results, "audit_speed.json")
    if audit:
        ordinary = audit["ordinary_turns"]
        prepared = ordinary["audit_gate_entities"]["p50_ms"]
        rows.append(("A write's preparation (the audit, the gate, entities) ≤ 0.3 ms p50 CPU for an ordinary turn",
                     f"{prepared:.2f} ms (audit {ordinary['audit_agent']['p50_ms']:.2f}, gate "
                     f"{ordinary['gate']['p50_ms']:.2f})", prepared <= 0.3, _command(audit),
                     "pure-Python regular expressions: the directive model's and the structural reading's searches "
                     "on each sentence whose words could make an order, and the gate's patterns"))
    overhead = _load(results, "adapter_overhead.json")
    busy = (overhead or {}).get("turn_cost_busy")
    if busy:
        pause = busy["person_pause"]
        rows.append(("A LangChain turn with remember=True ≤ +5 ms over remember=False, a person's pause, a CPU hog "
                     "per core", f"+{pause['remember_minus_read_only_ms']:.0f} ms wall, "
                     f"+{pause.get('remember_minus_read_only_cpu_ms', float('nan')):.1f} ms CPU of the agent's "
                     f"thread (load {busy['load_average']})", pause["remember_minus_read_only_ms"] <= 5,
                     busy["command"], "the previous turn's write is still running when the next turn starts (its "
                     "embedding and store work share the cores), so read-your-writes waits for it and the two "
                     "share the interpreter; a store with the session's own turns makes the retrieval check longer; the wall figure "
                     "moves by tens of ms run to run at this load, the CPU of the agent's thread far less"))
    turn = (overhead or {}).get("turn_cost")
    if turn:
        pause, back = turn["person_pause"], turn["back_to_back"]
        rows.append(("A LangChain turn with remember=True ≤ +5 ms over remember=False, with a person's pause",
                     f"+{pause['remember_minus_read_only_ms']:.0f} ms (back to back "
                     f"+{back['remember_minus_read_only_ms']:.0f} ms)",
                     pause["remember_minus_read_only_ms"] <= 5, turn["command"],
                     "a store twice as large: the retrieval check reads each related memory it does not hold, "
                     "and the search; at this load the figure moves by 20 ms run to run (docs/scale.md); back to "
                     "back, read-your-writes waits for the previous turn's write"))
    return rows


def render_targets(results: Path) -> list[str]:
    rows = target_rows(results)
    if not rows:
        return []
    lines = ["", "### Targets", "", "The open targets, each from the result file its command writes; a missed one "
             "says what limits it.", "", "| target | figure | met | what limits it | command |",
             "|---|---|---|---|---|"]
    for target, figure, met, command, limit in rows:
        lines.append(f"| {target} | {figure} | {'yes' if met else '**no**'} | {limit if not met else ''} | "
                     f"`{command}` |")
    return lines


def render_summary(results: Path, docs_page: str = DOCS_PAGE) -> str:
    """The README's short benchmark section: headline figures, each with its command and a link to its table."""
    lines = ["## Benchmarks", "",
             f"Headline figures; every table, the machine and the date are in [{docs_page}]({docs_page}). "
             "Generated by `python -m benchmarks.render_readme` from `benchmarks/results/*.json`; `make bench` "
             "reruns them.", "",
             "| what | figure | command |", "|---|---|---|"]
    for what, figure, command, title in summary_rows(results):
        lines.append(f"| [{what}]({docs_page}#{_anchor(title)}) | {figure} | `{command}` |")
    lines += render_targets(results)
    return "\n".join(lines) + "\n"


def replace_between_markers(text: str, section: str) -> str:
    if START not in text or END not in text or text.index(START) > text.index(END):
        raise MarkersMissing(f"the file needs a line '{START}' followed later by a line '{END}'; the "
                             "benchmark section is written between them")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{section}{END}{tail}"


def _rewrite(path: Path, section: str) -> bool:
    try:
        path.write_text(replace_between_markers(path.read_text(encoding="utf-8"), section), encoding="utf-8")
    except MarkersMissing as exc:
        print(f"error: {path}: {exc}", file=sys.stderr)
        return False
    print(f"updated {path}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--readme", type=Path, default=HERE.parent / "README.md")
    parser.add_argument("--docs", type=Path, default=None,
                        help=f"the page with every table (default: {DOCS_PAGE} beside the README)")
    parser.add_argument("--results", type=Path, default=HERE / "results")
    parser.add_argument("--stdout", action="store_true", help="print both sections instead of editing the files")
    args = parser.parse_args(argv)
    docs = args.docs or args.readme.parent / DOCS_PAGE
    summary, full = render_summary(args.results), render(args.results)
    if args.stdout:
        print(summary + "\n" + full)
        return 0
    if not docs.exists():
        print(f"error: {docs}: no such page; the tables are written there (--docs names another)", file=sys.stderr)
        return 1
    ok = _rewrite(args.readme, summary)
    ok = _rewrite(docs, full) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
