"""A loaded machine for the benchmarks: a CPU-bound process on every core, for the length of a `with` block."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from typing import Iterator


@contextlib.contextmanager
def cpu_hogs(on: bool = True, count: int | None = None) -> Iterator[int]:
    """Run `python -c "while True: pass"` on every core (or `count` of them) while the block runs; yields how many."""
    procs = []
    if on:
        procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count or os.cpu_count() or 1)]
        time.sleep(0.5)  # let them reach full speed
    try:
        yield len(procs)
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()
