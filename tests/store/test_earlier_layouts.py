"""A store written in an earlier layout is refused, untouched, with how to move its memories: nothing is released
yet, so there is no migration code, only an export by the version that wrote it and an import here."""

from __future__ import annotations

import subprocess
import sys

import pytest

from hindsight_core import Hindsight, StoreUnavailableError
from hindsight_core.store import EdgeStore
from hindsight_core.testing import FakeEmbedder


def _files(root):
    return sorted((p.relative_to(root).as_posix(), p.read_bytes() if p.is_file() else b"") for p in root.rglob("*"))


@pytest.mark.parametrize("layout", ["qdrant local mode", "format 3", "format 4", "users without a FORMAT file"])
def test_an_earlier_layout_is_refused_untouched_with_how_to_move_it(tmp_path, layout):
    root = tmp_path / "old"
    if layout == "qdrant local mode":  # hindsight 0.1
        (root / "collection").mkdir(parents=True)
        (root / "meta.json").write_text("{}")
    else:
        (root / "users" / "0123abcd").mkdir(parents=True)
        (root / "users" / "0123abcd" / "user.json").write_text('{"user_id": "alice"}')
        if layout.startswith("format"):  # 4: user ids in the clear in the shards, keyword IDF over every user
            (root / "FORMAT").write_text(layout.split()[1] + "\n")
    before = _files(root)
    for opening in (lambda: EdgeStore(root), lambda: Hindsight(path=root, embedder=FakeEmbedder())):
        with pytest.raises(StoreUnavailableError) as refused:
            opening()
        assert "earlier hindsight" in str(refused.value) and "export" in str(refused.value) \
            and "import" in str(refused.value)
    assert _files(root) == before  # no lock, no FORMAT file, nothing moved


def test_the_command_line_says_the_same_without_a_traceback(tmp_path):
    root = tmp_path / "old"
    (root / "users" / "0123abcd").mkdir(parents=True)
    (root / "FORMAT").write_text("2\n")
    answer = subprocess.run([sys.executable, "-m", "hindsight_core.cli", "--store", str(root), "stats"],
                            capture_output=True, text=True, timeout=120)
    assert answer.returncode != 0 and "Traceback" not in answer.stderr
    assert f"hindsight --store {root} export" in answer.stderr and "import" in answer.stderr


def test_a_new_store_is_of_the_current_layout(tmp_path):
    with Hindsight(path=tmp_path / "new", embedder=FakeEmbedder()) as memory:
        memory.write("I keep my bike in the shed.", user_id="alice", force=True)
    assert (tmp_path / "new" / "FORMAT").read_text().strip() == "5"
    with Hindsight(path=tmp_path / "new", embedder=FakeEmbedder()) as memory:  # and opens again
        assert len(memory.memories(user_id="alice")) == 1
