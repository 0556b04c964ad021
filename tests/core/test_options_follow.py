"""Adding an option: a field is added to the option values on a scratch copy of the packages, and every face
either takes it unchanged or is one ARCHITECTURE.md's change table names as a place to change.

For each value (`WriteOptions`, `RecallOptions`) the copy gets a new field and its keyword, and nothing else; a
probe in a fresh interpreter then offers the option to each face. A face that refuses it, or drops it on its
way to the memory, must be named in the table's row; a face that takes it must not be (the row would ask for a
change nothing needs).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import hindsight_core

ROOT = Path(hindsight_core.__file__).parent.parent
PACKAGES = ("hindsight_core", "hindsight_langchain", "hindsight_llamaindex")

#: each face, the file that would change for it, and what it is called in the table's row
WRITE_FACES = {"MemoryAPI and both siblings": "api.py", "the server": "remote/api.py", "the client": "remote/client.py",
               "the write queue": "session/write_queue.py", "the conversation policy": "session/turns.py",
               "the tools": "session/tools.py"}
RECALL_FACES = {"MemoryAPI and both siblings": "api.py", "the server": "remote/api.py",
                "the client": "remote/client.py", "the LangChain retriever": "hindsight_langchain/retriever.py",
                "the LlamaIndex retriever": "hindsight_llamaindex/retriever.py",
                "the command line": "cli/everyday.py", "the tools": "session/tools.py"}

PROBE = textwrap.dedent('''
    import asyncio, inspect, json, sys, tempfile
    from pathlib import Path
    from hindsight_core import Hindsight
    from hindsight_core.api import MemoryAPI, keywords
    from hindsight_core.remote.api import EVERYONE, Call, Operations
    from hindsight_core.remote.client import HindsightClient
    from hindsight_core.remote.recall_log import RecallLog
    from hindsight_core.session import tools
    from hindsight_core.testing import FakeEmbedder, FrozenClock

    kind, name, value = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    followed = {}

    def takes(face, call):
        try:
            call()
            followed[face] = True
        except Exception as exc:  # a face that refuses the new option
            followed[face] = f"{type(exc).__name__}: {exc}"

    def typed(method, keywords_type):
        parameter = [p for p in inspect.signature(method).parameters.values() if p.kind is p.VAR_KEYWORD]
        assert parameter and parameter[0].annotation == f"Unpack[{keywords_type}]", method

    def client_takes(call):  # what the client sends is what its refusal of unknown names lets through
        assert name in keywords(call), f"{call} does not take {name}"

    def tool_takes(tool):
        assert name in inspect.signature(tool).parameters, f"{tool.__name__} has no {name}"

    with tempfile.TemporaryDirectory() as folder, Hindsight(path=Path(folder) / "s", embedder=FakeEmbedder(),
                                                          clock=FrozenClock()) as memory:
        operations = Operations(memory, RecallLog(clock=memory.now))
        if kind == "write":
            def siblings():
                for implementation in (MemoryAPI, Hindsight, HindsightClient):
                    typed(implementation.write, "WriteKeywords")
                memory.write("I keep my bike in the shed.", user_id="u", force=True, **{name: value})
            takes("MemoryAPI and both siblings", siblings)
            takes("the server", lambda: operations.table["write"](Call(
                {"text": "I like tea.", "user_id": "u", name: value}, who=EVERYONE, operation="write")))
            takes("the client", lambda: client_takes("write"))
            from hindsight_core.session.write_queue import WriteQueue
            from hindsight_core.session.turns import Turn, TurnLog
            def queue():
                q = WriteQueue(memory, journal=None)
                q.submit(["My sister lives in Porto."], user_id="u", **{name: value})
                q.flush()
                assert not q.failures, q.failures
                q.close()
            takes("the write queue", queue)
            takes("the conversation policy", lambda: TurnLog(memory).offer(
                [Turn("I prefer oat milk.", "user")], user_id="u", **{name: value}))
            takes("the tools", lambda: tool_takes(tools.write))
        else:
            def siblings():
                for implementation in (MemoryAPI, Hindsight, HindsightClient):
                    typed(implementation.recall, "RecallKeywords")
                memory.recall("tea", user_id="u", **{name: value})
            takes("MemoryAPI and both siblings", siblings)
            takes("the server", lambda: operations.table["recall"](Call(
                {"query": "tea", "user_id": "u", name: value}, who=EVERYONE, operation="recall")))
            takes("the client", lambda: client_takes("recall"))
            def langchain():
                from hindsight_langchain import HindsightRetriever
                HindsightRetriever(memory=memory, user_id="u", **{name: value}).invoke("tea")
            takes("the LangChain retriever", langchain)
            def llamaindex():
                from hindsight_llamaindex import HindsightRetriever
                HindsightRetriever(memory, user_id="u", **{name: value}).retrieve("tea")
            takes("the LlamaIndex retriever", llamaindex)
            def command_line():
                from click.testing import CliRunner
                from hindsight_core.cli import main
                answer = CliRunner().invoke(main, ["--store", str(Path(folder) / "s2"), "--embedding-model",
                                                   "fake-hash-embedder", "recall", "-u", "u", "tea",
                                                   "--" + name.replace("_", "-"), str(value)])
                assert answer.exit_code == 0, answer.output
            takes("the command line", command_line)
            takes("the tools", lambda: tool_takes(tools.search))
    print(json.dumps(followed))
''')


def _scratch_copy(tmp_path: Path, kind: str, name: str, annotation: str, default: str) -> Path:
    """The packages copied, with one more field in the option value and its keyword type."""
    copy = tmp_path / "copy"
    for package in PACKAGES:
        shutil.copytree(ROOT / package, copy / package, ignore=shutil.ignore_patterns("__pycache__"))
    options = copy / "hindsight_core" / "contract" / "options.py"
    text = options.read_text()
    value, keywords, last = ("WriteOptions", "WriteKeywords", "    context: str | None") if kind == "write" else \
        ("RecallOptions", "RecallKeywords", "    reinforce: bool")
    head, _, rest = text.partition(f"class {keywords}(")
    rest = rest.replace(f"{last}\n", f"{last}\n    {name}: {annotation}\n", 1)
    text = head + f"class {keywords}(" + rest
    head, _, rest = text.partition(f"class {value}:")
    marker = f"{last} = " if kind == "write" else f"{last} = "
    index = rest.index(marker)
    end = rest.index("\n", index)
    rest = rest[:end + 1] + f"    {name}: {annotation} = {default}\n" + rest[end + 1:]
    options.write_text(head + f"class {value}:" + rest)
    return copy


def _row(change: str) -> str:
    table = (ROOT / "ARCHITECTURE.md").read_text()
    return re.search(rf"^\| {re.escape(change)} \|(.*)$", table, re.M).group(1)


@pytest.mark.parametrize("kind, name, annotation, default, value, faces, change", [
    ("write", "topic", "str | None", "None", "gardening", WRITE_FACES, "a new write option"),
    ("recall", "min_score", "float | None", "None", 0.5, RECALL_FACES, "a new recall option"),
])
def test_a_new_option_reaches_every_face_or_the_table_names_the_face(tmp_path, kind, name, annotation, default,
                                                                     value, faces, change):
    copy = _scratch_copy(tmp_path, kind, name, annotation, default)
    answer = subprocess.run([sys.executable, "-c", PROBE, kind, name, json.dumps(value)], capture_output=True,
                            text=True, timeout=600, cwd=tmp_path, env={"PYTHONPATH": str(copy), "HF_HUB_OFFLINE": "1",
                                                                      "PATH": "/usr/bin:/bin",
                                                                      "HINDSIGHT_HOME": str(tmp_path / "home")})
    assert answer.returncode == 0, answer.stderr[-3000:]
    followed = json.loads(answer.stdout.strip().splitlines()[-1])
    assert set(followed) == set(faces)
    row = _row(change)
    must_change = {face for face, ok in followed.items() if ok is not True}
    assert {face: faces[face] for face in must_change if f"`{faces[face]}" not in row} == {}, followed
    named_needlessly = {face for face in set(faces) - must_change if f"`{faces[face]}" in row and face != "the tools"}
    assert named_needlessly == set(), followed
    assert "MemoryAPI and both siblings" not in must_change, followed  # the contract itself needs no new parameter
