"""The README's core snippets run as written, with the default embedder (multilingual-e5-small)."""

import re
from pathlib import Path

README = Path(__file__).parents[2] / "README.md"


def snippet(heading: str) -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(heading)}\s*$.*?```python\n(.*?)```", text, re.S | re.M)
    assert match, f"no python block under '## {heading}'"
    return match.group(1)


def test_python_api_snippet_runs(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(snippet("Python API"), namespace)
    assert "A4 landscape" in namespace["system_prompt"]


def test_working_memory_snippet_runs(capsys):
    namespace: dict = {}
    exec(snippet("Working memory and the context builder"), namespace)
    context = namespace["context"]
    assert context.tokens.total <= context.tokens.available
    assert namespace["messages"][-1]["content"] == "Run the integration tests now."
    assert any("eu-west-2" in m.raw_content for m in namespace["memory"].memories(user_id="alice"))


def test_the_readme_is_short_and_opens_with_the_quick_starts():
    """A newcomer from LangChain or LlamaIndex finds their quick start within the first 150 lines of at most 600."""
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 600
    for heading in ("## Two commands", "## LangChain quick start", "## LlamaIndex quick start"):
        assert lines.index(heading) < 150, heading
    assert "make demo" in "\n".join(lines[:150]) and "make test" in "\n".join(lines[:150])


def test_the_knowledge_switch_the_readme_shows_runs():
    text = README.read_text(encoding="utf-8")
    [block] = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "knowledge_on()" in b]
    namespace: dict = {}
    exec(block, namespace)
    semantic = namespace["memory"].config.semantic
    assert semantic.auto_consolidate and semantic.detect_conflicts
