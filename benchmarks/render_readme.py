"""Regenerate the README's benchmark section from the JSON results: never typed by hand.

    python benchmarks/render_readme.py [--readme README.md] [--results benchmarks/results] [--stdout]

Replaces everything between the markers `<!-- bench:start -->` and
`<!-- bench:end -->` in the README with tables built from locomo.json,
speed.json and locomo_ablations.json (whichever exist), the machine, the date
and the commands that produced them, and links to the PNG plots.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
CATS = ["single-hop", "multi-hop", "temporal", "open-domain", "adversarial"]


class MarkersMissing(RuntimeError):
    """The README has no benchmark markers to write between."""


def _fmt(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _met(flag: bool) -> str:
    return "met" if flag else "**missed**"


def locomo_section(report: dict, image_prefix: str) -> list[str]:
    data, setup = report["data"], report["setup"]
    lines = [
        "### Recall quality: LoCoMo",
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
              f"Command: `{report.get('command', 'python benchmarks/locomo_bench.py')}` "
              f"({report['machine']}, {report['date'][:10]})."]
    return lines


def ablation_section(report: dict, image_prefix: str) -> list[str]:
    lines = ["", "#### What moves hindsight's LoCoMo recall",
             "", "One change at a time (query vectors cached; Qdrant in memory). Rows run at different times "
             "may have run on different versions of the core: compare rows of one run.", "",
             "| variant | change | recall@5 | recall@10 | tokens | stored | " + " | ".join(CATS) + " | run (UTC) |",
             "|---|---|---:|---:|---:|---:|" + "---:|" * len(CATS) + "---|"]
    for name, v in report["variants"].items():
        o = v["summary"]["overall"]
        lines.append(f"| {name} | {v['what']} | {_fmt(o['recall@5'])} | {_fmt(o['recall@10'])} | {o['tokens']:,.0f} | "
                     f"{v['stored']:,} / {v.get('offered', v.get('turns', 0)):,} | "
                     + " | ".join(_fmt(v["summary"].get(c, {}).get("recall@5")) for c in CATS)
                     + f" | {v.get('date', '–')[:16].replace('T', ' ')} |")
    lines += ["", f"![Ablations]({image_prefix}locomo_ablations.png)", "",
              "Command: `python benchmarks/locomo_ablations.py`" + f" ({report['machine']})."]
    return lines


def speed_section(report: dict, image_prefix: str) -> list[str]:
    lines = ["", "### Speed and scale", "",
             f"One user's store on the embedded (on-disk) Qdrant; {report.get('synthetic', 'synthetic memories')}.",
             "", "| memories | recall p50 / p95, query embedded (ms) | excluded (ms) | numpy dot + top-k (ms) | "
             "ratio to numpy | Qdrant filtered query (ms) | load (s) | reopen (s) | RSS open (MiB) | disk / memory |",
             "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in report["sizes"]:
        inc, exc, npy, qd = (r["recall_query_embedding_included"], r["recall_query_embedding_excluded"],
                             r["numpy_dot_topk"], r["qdrant_embedded_filtered_query"])
        lines.append(f"| {r['memories']:,} | {inc['p50_ms']:.2f} / {inc['p95_ms']:.2f} | {exc['p50_ms']:.2f} / "
                     f"{exc['p95_ms']:.2f} | {npy['p50_ms']:.3f} / {npy['p95_ms']:.3f} | "
                     f"{r['ratio_excluded_to_numpy_p50']}× | {qd['p50_ms']:.1f} / {qd['p95_ms']:.1f} | "
                     f"{r.get('load_s', '–')} | {r.get('reopen_s', '–')} | {r.get('rss_store_open_mb', '–')} | "
                     f"{r.get('disk_bytes_per_memory', 0):,} B |")
    w = report["writes"]
    lines += ["", f"Writes per second: raw embedder {w['raw_embedder_per_s']}, one `remember` at a time "
                  f"{w['single_writes_per_s']}, `write_many` batches {w['batched_writes_per_s']} "
                  f"({w['batched_vs_raw']:.0%} of the raw embedder). Peak RSS {report.get('peak_rss_mb', '–')} MiB."]
    by_size = {r["memories"]: r for r in report["sizes"]}
    checks = []
    if 10000 in by_size:
        ratio = by_size[10000]["ratio_excluded_to_numpy_p50"]
        checks.append(f"- recall p50 at 10k, query embedding excluded, ≤ 2× numpy: {_met(ratio <= 2)} ({ratio}×)")
    if 100000 in by_size:
        p50 = by_size[100000]["recall_query_embedding_excluded"]["p50_ms"]
        checks.append(f"- recall p50 at 100k < 50 ms: {_met(p50 < 50)} ({p50:.1f} ms)")
    checks.append(f"- batched writes ≥ 80% of the raw embedder: {_met(w['batched_vs_raw'] >= 0.8)} "
                  f"({w['batched_vs_raw']:.0%})")
    lines += ["", "Targets:", "", *checks, "", f"![Recall latency against store size]({image_prefix}speed.png)", "",
              f"Command: `{report.get('command', 'python benchmarks/speed.py')}` ({report['machine']}, "
              f"{report['date'][:10]})."]
    return lines


def render(results: Path, image_prefix: str = "benchmarks/results/") -> str:
    parts = ["## Benchmarks", "",
             "Generated by `python benchmarks/render_readme.py` from `benchmarks/results/*.json`; "
             "`make bench` reruns everything (see `benchmarks/README.md`). Timings are wall-clock on the machine "
             "named below, which other jobs shared: compare ratios within a run."]
    for name, section in (("locomo.json", locomo_section), ("locomo_ablations.json", ablation_section),
                          ("speed.json", speed_section)):
        source = results / name
        if source.exists():
            parts += [""] + section(json.loads(source.read_text()), image_prefix)
    return "\n".join(parts) + "\n"


def replace_between_markers(text: str, section: str) -> str:
    if START not in text or END not in text or text.index(START) > text.index(END):
        raise MarkersMissing(f"the README needs a line '{START}' followed later by a line '{END}'; the "
                             "benchmark section is written between them")
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{section}{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--readme", type=Path, default=HERE.parent / "README.md")
    parser.add_argument("--results", type=Path, default=HERE / "results")
    parser.add_argument("--stdout", action="store_true", help="print the section instead of editing the README")
    args = parser.parse_args(argv)
    section = render(args.results)
    if args.stdout:
        print(section)
        return 0
    try:
        args.readme.write_text(replace_between_markers(args.readme.read_text(encoding="utf-8"), section),
                               encoding="utf-8")
    except MarkersMissing as exc:
        print(f"error: {args.readme}: {exc}", file=sys.stderr)
        return 1
    print(f"updated {args.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
