"""The README's LangChain quick start runs as written (offline, with the real embedder)."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest

SNIPPET = Path(__file__).with_name("quickstart.py")
README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_quick_start_runs_and_shows_the_recalled_preference(capsys):
    runpy.run_path(str(SNIPPET), run_name="__main__")
    printed = capsys.readouterr().out
    assert printed.startswith("You are a helpful assistant.\n\n<memories>\n")
    assert "(preference) From now on, print all my reports in A4 landscape." in printed


def test_the_readme_quick_start_is_this_snippet():
    text = README.read_text(encoding="utf-8")
    block = re.search(r"^#+ LangChain quick start\s*$.*?```python\n(.*?)```", text, re.M | re.S | re.I)
    assert block is not None, "the LangChain quick start section has no python block"
    assert block.group(1).strip() == SNIPPET.read_text(encoding="utf-8").strip()


@pytest.mark.model
@pytest.mark.parametrize("on_disk", [False, True], ids=["memory", "path"])
def test_the_quick_start_exits_with_every_turn_stored(tmp_path, on_disk):
    """Run as a script, no close(): the last turn, handed over as the process ends, is stored on the way out."""
    from tests.core.test_exit_flush import check_quick_start_stores_every_turn

    check_quick_start_stores_every_turn(SNIPPET, tmp_path, on_disk)
