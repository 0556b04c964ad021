"""PNG plots from the benchmark JSON (needs matplotlib: pip install -e '.[plot]').

    python -m benchmarks.plots [--results benchmarks/results]

Writes, for whichever JSON files exist: locomo_recall.png (recall@5 per
category and system, with the LoCoMo paper's DRAGON figures), locomo_tokens.png
(prompt tokens per question, log scale, beside the full history), speed.png
(recall latency against store size).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
CATS = ["overall", "single-hop", "multi-hop", "temporal", "open-domain", "adversarial"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    return plt


def _ok(report: dict) -> dict:
    return {name: r for name, r in report["systems"].items() if r.get("status") == "ok"}


def plot_locomo(report: dict, out: Path) -> list[Path]:
    plt = _pyplot()
    systems = _ok(report)
    rows = {name: [r["summary"].get(c, {}).get("recall@5", 0.0) for c in CATS] for name, r in systems.items()}
    for name, figures in report.get("published", {}).items():
        rows[name.split(",")[0] + " (paper)"] = [figures.get(c, {}).get("recall@5", 0.0) for c in CATS]
    fig, ax = plt.subplots(figsize=(11, 4.8))
    width = 0.8 / max(len(rows), 1)
    for i, (name, values) in enumerate(rows.items()):
        ax.bar([x + i * width for x in range(len(CATS))], values, width, label=name)
    ax.set_xticks([x + 0.4 - width / 2 for x in range(len(CATS))], CATS)
    ax.set_ylabel("recall@5 of evidence turns (%)")
    ax.set_ylim(0, 100)
    ax.set_title(f"LoCoMo retrieval, {report['data']['questions']:,} questions ({report['date'][:10]})")
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    recall_png = out / "locomo_recall.png"
    fig.savefig(recall_png, dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4))
    names = list(systems) + ["full history"]
    tokens = [r["summary"]["overall"]["tokens"] for r in systems.values()] + [report["full_history"]["tokens"]]
    ax.barh(names, tokens, color=["#4c72b0"] * len(systems) + ["#c44e52"])
    ax.set_xscale("log")
    ax.set_xlabel("prompt tokens per question (cl100k_base, log scale)")
    ax.invert_yaxis()
    fig.tight_layout()
    tokens_png = out / "locomo_tokens.png"
    fig.savefig(tokens_png, dpi=110)
    plt.close(fig)
    return [recall_png, tokens_png]


def plot_speed(report: dict, out: Path) -> list[Path]:
    plt = _pyplot()
    series = {"recall, exact search": "recall_exact_excluded",
              "recall, with the vector index": "recall_indexed_excluded",
              "numpy dot + top-k": "numpy_dot_topk"}
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, key in series.items():
        points = [(r["memories"], r[key]["p50_ms"]) for r in report["sizes"] if r.get(key)]
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("memories in one user's store")
    ax.set_ylabel("p50 latency (ms, log scale)")
    ax.set_title(f"Recall latency, embedded store ({report['date'][:10]})")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = out / "speed.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return [path]


#: the result file each plot is drawn from
PLOTS = (("locomo.json", plot_locomo), ("speed.json", plot_speed))


def make_all(results: Path = RESULTS) -> list[Path]:
    made: list[Path] = []
    for name, plot in PLOTS:
        source = results / name
        if source.exists():
            made += plot(json.loads(source.read_text()), results)
    return made


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    for path in make_all(args.results):
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
