"""The LlamaIndex quick start runs as written, offline."""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import pytest


SNIPPET = Path(__file__).with_name("quickstart_snippet.py")
README = Path(__file__).parents[2] / "README.md"


@pytest.mark.model
def test_the_quick_start_runs_and_shows_the_memory_to_the_model(capsys):
    # the snippet runs unchanged, with the default embedder
    runpy.run_path(str(SNIPPET), run_name="__main__")
    printed = capsys.readouterr().out
    system_part, _, user_part = printed.partition("user: Get the sales summary ready for the board handout.")
    assert user_part.strip() == "assistant:"  # the echoed prompt ends with the new request
    assert system_part.startswith("system: <memory>")
    assert "print all my reports in A4 landscape" in system_part


def test_the_readme_shows_the_quick_start_that_is_tested():
    text = README.read_text(encoding="utf-8")
    match = re.search(r"#+ LlamaIndex quick start.*?```python\n(.*?)```", text, re.S | re.I)
    assert match is not None, "README has no 'LlamaIndex quick start' section"
    assert match.group(1).strip() == SNIPPET.read_text(encoding="utf-8").strip()


@pytest.mark.model
@pytest.mark.parametrize("on_disk", [False, True], ids=["memory", "path"])
def test_the_quick_start_exits_with_every_turn_stored(tmp_path, on_disk):
    """Run as a script, no close(): the last turn, handed over as the process ends, is stored on the way out."""
    from tests.core.test_exit_flush import check_quick_start_stores_every_turn

    check_quick_start_stores_every_turn(SNIPPET, tmp_path, on_disk)
