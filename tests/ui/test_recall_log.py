"""The inspector served by `hindsight serve`, in Chromium: what the agent saw on its last turn."""

from __future__ import annotations

import pytest

from hindsight_core.remote import HindsightClient
from hindsight_core.remote.runner import BackgroundServer, ServeOptions

pytestmark = pytest.mark.timeout(120)
QUESTION = "Can you print the quarterly report for me?"


def test_the_recall_log_shows_an_agent_turn_per_session(page, memory):
    from langchain.agents import create_agent

    from hindsight_langchain import HindsightMiddleware
    from hindsight_langchain.testing import RecordingChatModel

    with BackgroundServer(memory, ServeOptions(port=0)) as server:
        with HindsightClient(server.url, session="tuesday-chat") as client:
            model = RecordingChatModel(responses=["Printing it in portrait."])
            agent = create_agent(model, system_prompt="You are helpful.", middleware=[HindsightMiddleware(client)])
            agent.invoke({"messages": [{"role": "user", "content": QUESTION}]}, context={"user_id": "alice"})
            seen = client.recall_log(user_id="alice")[0]
        page.goto(f"{server.url}memories?user=alice")
        page.click("nav a:has-text('What the agent saw')")
        assert page.locator("h1").inner_text() == "What the agent saw of alice's memories"
        page.click("nav.sessions a:has-text('tuesday-chat')")
        entry = page.locator("li.recall").first
        assert QUESTION in entry.locator("q").inner_text()
        assert "by hindsight_langchain" in entry.inner_text() and "session tuesday-chat" in entry.inner_text()
        shown = entry.locator("ol > li > a").all_inner_texts()
        assert shown == [r.memory.summary for r in seen["results"]] and shown
        assert "dense" in entry.locator("ol > li .why").first.inner_text()  # each memory with its explanation
        entry.locator("summary", has_text="Injected block").click()
        block = entry.locator("pre").inner_text()
        assert block.strip() == seen["block"].strip() and block.strip() in model.system_prompts()[0]
        # the first memory opens on its own page
        entry.locator("ol > li > a").first.click()
        assert page.locator("h1").inner_text() == seen["results"][0].memory.summary
