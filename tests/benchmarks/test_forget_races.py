"""`benchmarks/forget_races.py` on a few races: no acknowledged write lost, nothing forgotten comes back."""

from __future__ import annotations

import json

from benchmarks import forget_races
import pytest

pytestmark = pytest.mark.timeout(900)


def test_a_few_forgets_racing_the_writer_lose_no_acknowledged_write(tmp_path):
    out = tmp_path / "forget_races.json"
    report = forget_races.main(["--races", "6", "--wave", "3", "--out", str(out)])
    assert json.loads(out.read_text(encoding="utf-8")) == report
    for arm in ("embedded", "client"):
        run = report[arm]
        assert run["acknowledged"] == 18 and run["must_be_stored"] == 12, run
        assert (run["lost"], run["came_back"], run["writer_stopped"], run["errors"]) == (0, 0, False, []), run
    assert report["command"].startswith("python -m benchmarks.forget_races --races 6")
