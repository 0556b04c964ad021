"""Commands that need no embedding never load a model; text comes in on standard input; failures are one line."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hindsight_core import Hindsight
from hindsight_core.cli import LazyEmbedder
from hindsight_core.embed.embedder import DEFAULT_MODEL
from hindsight_core.testing import FakeEmbedder

from .conftest import FAKE

PREFERENCE = "From now on, print all my reports in A4 landscape."
ROOT = Path(__file__).parents[2]


def one_error_line(result) -> str:
    """The failure's message, checked to be a single line with no traceback."""
    assert result.exit_code != 0, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def unloadable_model(folder: Path, dimension: int = 384) -> Path:
    """A model folder whose config says its dimension but which has no weights: loading it fails."""
    (folder / "1_Pooling").mkdir(parents=True)
    (folder / "modules.json").write_text(json.dumps([
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]))
    (folder / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": dimension, "pooling_mode_mean_tokens": True}))
    return folder


def test_models_know_their_dimension_without_loading():
    from hindsight_core.embed import multilingual

    before = multilingual._MODEL  # None unless an earlier test embedded with it
    assert LazyEmbedder(DEFAULT_MODEL).dimension == 384 and multilingual._MODEL is before
    minilm = LazyEmbedder("all-MiniLM-L6-v2")  # a sentence-transformers model, read from its files
    assert minilm.dimension == 384 and not minilm.loaded


def test_commands_that_do_not_embed_never_load_the_model(hs, tmp_path):
    model = str(unloadable_model(tmp_path / "model"))
    with Hindsight(path=hs.store, embedder=FakeEmbedder(dimension=384, name=model)) as memory:
        memory.remember(PREFERENCE, user_id="alice")
        other = memory.remember("I am allergic to peanuts, so never suggest dishes with peanuts.", user_id="alice")

    assert "memories: 2" in hs("stats", model=model).stdout
    export = tmp_path / "alice.jsonl"
    hs("export", str(export), model=model)
    assert hs("forget", "-u", "alice", "--id", other.id, model=model).stdout.startswith("forgot 1 memory")
    assert hs("recall", "-u", "nobody", "reports", model=model).stdout == "no memories found\n"
    imported = hs("--home", str(tmp_path / "other"), "import", str(export), model=model).stdout
    assert imported.startswith("imported 2 memories") and "0 re-embedded" in imported
    # and the model really cannot load: a command that embeds says so, in one line
    message = one_error_line(hs("recall", "-u", "alice", "reports", model=model, ok=False))
    assert message.startswith("Error: cannot load embedding model")


def test_a_non_embedding_command_does_not_even_import_torch(tmp_path):
    script = textwrap.dedent(f"""
        import sys
        from hindsight_core.cli import main
        from hindsight_core.store import EdgeStore
        EdgeStore({str(tmp_path / "store")!r}).close()  # an empty store: read-only commands refuse a missing one
        for args in (["stats"], ["export", "-"], ["recall", "-u", "alice", "reports"]):
            try:
                main(["--home", {str(tmp_path)!r}, *args], standalone_mode=False)
            except SystemExit:
                pass
        print("torch" in sys.modules, "sentence_transformers" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         cwd=ROOT, check=True, env={"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1",
                                                     "PATH": "/usr/bin:/bin"})
    assert out.stdout.splitlines()[-1] == "False False", out.stderr


def test_a_model_that_is_not_there_is_refused_before_torch_loads(tmp_path):
    script = textwrap.dedent(f"""
        import sys
        from hindsight_core.cli import main
        try:
            main(["--home", {str(tmp_path)!r}, "--embedding-model", "no-such-model", "remember", "-u", "alice",
                  "I prefer green tea over coffee."], standalone_mode=False)
        except Exception as exc:
            print(type(exc).__name__, exc)
        print("torch" in sys.modules)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                         cwd=ROOT, check=True, env={"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1",
                                                     "PATH": "/usr/bin:/bin"})
    error, torch_loaded = out.stdout.splitlines()[-2:]
    assert "cannot load embedding model 'no-such-model': no such folder" in error
    assert torch_loaded == "False", out.stderr
    assert not (tmp_path / "store").exists()  # refused before the store: no empty folder left behind


def test_remember_and_recall_read_standard_input(hs):
    assert hs("remember", "-u", "alice", "-", input=PREFERENCE + "\n").stdout.startswith("stored ")
    assert hs("remember", "-u", "alice", input="I am vegetarian, so never suggest meat dishes.").stdout \
        .startswith("stored ")
    found = json.loads(hs("recall", "-u", "alice", "-", "--json", input="print reports A4").stdout)
    assert found[0]["memory"]["raw_content"] == PREFERENCE
    # "-" is never stored as the text itself
    with Hindsight(path=hs.store, embedder=FakeEmbedder()) as memory:
        assert "-" not in {m.raw_content for m in memory.memories(user_id="alice")}


def test_a_megabyte_on_standard_input(hs):
    text = "The quarterly figures for the northern region are in the shared folder. " * 14_000  # about 1 MB
    assert len(text.encode()) > 1_000_000
    message = one_error_line(hs("remember", "-u", "alice", "--force", input=text, ok=False))
    assert "the limit is 32,768 bytes" in message and "--max-text-bytes" in message
    stored = hs("--max-text-bytes", "2000000", "remember", "-u", "alice", "--force", input=text).stdout
    assert stored.startswith("stored ")
    with Hindsight(path=hs.store, embedder=FakeEmbedder()) as memory:
        assert [len(m.raw_content) for m in memory.memories(user_id="alice")] == [len(text.strip())]


def test_import_reads_standard_input(hs, tmp_path):
    with Hindsight(path=tmp_path / "source", embedder=FakeEmbedder()) as memory:
        memory.remember(PREFERENCE, user_id="alice")
    source = hs("--store", str(tmp_path / "source"), "export", model=FAKE).stdout
    assert hs("import", "-", input=source).stdout.startswith("imported 1 memory ")
    assert hs("--store", str(tmp_path / "third"), "import", input=source).stdout.startswith("imported 1 memory ")


def test_text_that_is_not_utf8_is_one_line(hs, tmp_path):
    latin1 = tmp_path / "notes.jsonl"
    latin1.write_bytes("caf\u00e9 cr\u00e8me".encode("latin-1"))
    message = one_error_line(hs("import", str(latin1), ok=False))
    assert "notes.jsonl is not UTF-8 text" in message and "iconv" in message
    message = one_error_line(hs("remember", "-u", "alice", "-", input="caf\u00e9".encode("latin-1"), ok=False))
    assert "standard input is not UTF-8 text" in message


def test_mcp_without_the_mcp_extra_says_what_to_install(tmp_path):
    script = ("import sys; sys.modules['mcp'] = None; from hindsight_core.cli import main; "
              "main(['--home', sys.argv[1], 'mcp', '--user-id', 'alice'])")
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, text=True,
                         timeout=300, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 1
    assert out.stderr.strip() == 'Error: this needs the mcp extra: pip install "hindsight-memory[mcp]"'


@pytest.mark.parametrize("args, message", [
    (["mcp", "--http", "--user-id", "alice", "--token", ""], "the token is empty"),
])
def test_an_empty_token_is_refused(hs, args, message):
    result = hs(*args, ok=False)
    assert result.exit_code == 2 and message in result.output


@pytest.mark.model
def test_a_model_load_prints_no_progress_bar(tmp_path):
    """The "Loading weights ... 103/103" bar of every load is not shown; the command's answer is."""
    env = {"PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin", "HINDSIGHT_HOME": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "hindsight_core.cli", "remember", "-u", "alice", PREFERENCE],
                         capture_output=True, text=True, timeout=300, cwd=ROOT, env=env, check=True)
    assert out.stdout.startswith("stored ")
    assert out.stderr.splitlines() == [f"hindsight: created a new store at {tmp_path / 'store'}"]  # and nothing else
