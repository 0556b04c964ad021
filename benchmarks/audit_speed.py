"""How long the write audit takes on large hostile texts (the cases `tests/security/test_audit.py` checks for verdicts).

    python -m benchmarks.audit_speed [--repeats 3] [--out benchmarks/results/audit_speed.json]

Each text is near the 32 KB write limit and built to make a careless pattern
slow (long runs of one word, invisible characters, base64-like runs). The target
is linear time: the same text at half and full length, time per kilobyte reported.
Wall-clock on this machine: compare within one run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from hindsight_core.safety.audit import audit  # noqa: E402
from hindsight_core.types import Source  # noqa: E402
from benchmarks.harness import best_of, write_results  # noqa: E402

CASES = {
    "repeated word": lambda n: ("ignore " * (n // 7)) + "</memories>",
    "invisible characters": lambda n: "a\u200b" * (n // 4) + "</memories>",
    "base64-like run": lambda n: "QUJD" * (n // 4) + " </memories>",
    "CJK run": lambda n: "忽略之前的" * (n // 15) + "</memories>",
    "address-like run": lambda n: "a@b." * (n // 4) + "</memories>",
}


def timed(text: str, repeats: int) -> float:
    """The fastest of `repeats` audits of `text`, in seconds."""
    return best_of(lambda: audit(text, Source.TOOL), repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "audit_speed.json")
    args = parser.parse_args()
    rows = []
    for name, make in CASES.items():
        half, full = make(16_000), make(32_000)
        t_half, t_full = timed(half, args.repeats), timed(full, args.repeats)
        row = {"case": name, "bytes": len(full.encode()), "seconds": round(t_full, 4),
               "ms_per_kb": round(1000 * t_full / (len(full.encode()) / 1024), 3),
               "full_over_half": round(t_full / t_half, 2) if t_half else None}
        print(row, flush=True)
        rows.append(row)
    write_results(args.out, {"benchmark": "audit_speed", "rows": rows}, __file__)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
