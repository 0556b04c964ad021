"""What every benchmark shares: where things are, how time is measured, how a result file is written.

A result file says when, on what machine and by which command it was made, so every figure rendered
from it (`render_readme.py`) can say so too:

    report = write_results(RESULTS / "speed.json", report, __file__, argv)   # stamps, writes, returns
    write_results(path, report, __file__, argv, keep=("turn_cost",))          # ... keeping another run's entry
    write_entry(RESULTS / "tenants.json", "shared-shards", run, __file__)     # one labelled run of several

Timings are wall-clock milliseconds (`time.perf_counter`), summarised as p50 / p95 (`percentiles`).
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

BENCHMARKS = Path(__file__).resolve().parent
ROOT = BENCHMARKS.parent
RESULTS = BENCHMARKS / "results"
DATA = BENCHMARKS / "data"
CACHE = RESULTS / "cache"
#: the read-only data sets beside the repository (LoCoMo is CC BY-NC: read in place, never copied)
SHARED = ROOT.parent / "shared" / "benchmarks"
LOCOMO = SHARED / "locomo10.json"


def machine() -> str:
    """The machine a figure was measured on, in one line."""
    return f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def command(script: str | Path, args: Sequence[str] | None = None) -> str:
    """The command that reproduces a run: `python -m benchmarks.NAME ARGS`, from the repository root.

    `args` are the script's arguments (default: this process's, `sys.argv[1:]`)."""
    args = sys.argv[1:] if args is None else args
    return " ".join([f"python -m benchmarks.{Path(script).stem}", *map(str, args)])


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def stamped(report: dict[str, Any], script: str | Path, args: Sequence[str] | None = None) -> dict[str, Any]:
    """`report` with `date`, `command` and `machine` first (those it already has are kept)."""
    return {"date": report.get("date") or now(), "command": report.get("command") or command(script, args),
            "machine": report.get("machine") or machine(), **report}


def write_results(path: Path, report: dict[str, Any], script: str | Path,
                  args: Sequence[str] | None = None, *, keep: Sequence[str] = ()) -> dict[str, Any]:
    """Write one result file (JSON, UTF-8, indented), stamped with its date, command and machine; returns it.

    `keep`: entries of the file this run does not make (a run of the same script with other arguments wrote
    them, through `write_entry`): carried over from the file as it is, so the main run does not drop them."""
    path = Path(path)
    report = stamped(report, script, args)
    if keep and path.exists():
        before = json.loads(path.read_text(encoding="utf-8"))
        report.update({key: before[key] for key in keep if key in before and key not in report})
    _write_json(path, report)
    return report


def write_entry(path: Path, key: str, entry: dict[str, Any], script: str | Path,
                args: Sequence[str] | None = None) -> dict[str, Any]:
    """Write one run under `key` of a result file that keeps several (a label per store layout, an extra
    measurement beside the main one): the entry is stamped, the file's other entries stay; returns the file."""
    path = Path(path)
    report = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    report[key] = stamped(entry, script, args)
    _write_json(path, report)
    return report


def _write_json(path: Path, report: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def percentiles(samples_ms: Sequence[float], digits: int = 3) -> dict[str, float]:
    """p50 (median) and p95 (nearest rank) of millisecond samples."""
    if not samples_ms:
        return {"p50_ms": float("nan"), "p95_ms": float("nan")}
    ordered = sorted(samples_ms)
    return {"p50_ms": round(statistics.median(ordered), digits),
            "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], digits)}


def timed(call: Callable[[Any], Any], items: Iterable[Any]) -> list[float]:
    """Milliseconds that `call(item)` took, one sample per item."""
    samples = []
    for item in items:
        start = time.perf_counter()
        call(item)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def best_of(call: Callable[[], Any], repeats: int) -> float:
    """The fastest of `repeats` runs of `call()`, in seconds (for work whose noise only adds time)."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best
