"""`HindsightMiddleware(trace_policy=...)`: what LangSmith records of the middleware's spans, captured offline.

The LangSmith client below posts nowhere: it keeps each run it is handed, so the test
reads exactly what would have been sent.
"""

from __future__ import annotations

from langchain.agents import create_agent
from langgraph.types import TracePolicy, omit_payload
from langsmith import Client
from langsmith.run_helpers import tracing_context

from hindsight_core.recall.formatting import OPEN_TAG
from hindsight_langchain import HindsightMiddleware
from hindsight_langchain.testing import RecordingChatModel

from .helpers import PREFERENCE, says

QUESTION = "How should the quarterly report be printed?"
HOOKS = ("HindsightMiddleware.wrap_model_call", "HindsightMiddleware.after_agent")


class KeptRuns(Client):
    """A LangSmith client that keeps the runs it would post (no network)."""

    def __init__(self) -> None:
        super().__init__(api_url="http://127.0.0.1:9", api_key="offline", auto_batch_tracing=False)
        self.kept: list[dict] = []

    def create_run(self, *args, **run) -> None:  # type: ignore[override]
        self.kept.append(run)

    def update_run(self, *args, **run) -> None:  # type: ignore[override]
        self.kept.append(run)

    def recorded(self, name: str) -> str:
        """Everything the runs of this name carried, as one string."""
        return " ".join(f"{r.get('inputs')} {r.get('outputs')}" for r in self.kept if r.get("name") == name)

    def names(self) -> set[str]:
        return {r.get("name") for r in self.kept}


def traced_turn(memory, **options) -> KeptRuns:
    memory.write(PREFERENCE, user_id="alice")
    client = KeptRuns()
    agent = create_agent(RecordingChatModel(responses=["Landscape, A4."]),
                         middleware=[HindsightMiddleware(memory, **options)])
    with tracing_context(enabled=True, client=client, project_name="offline"):
        agent.invoke(says(QUESTION), context={"user_id": "alice"})
    return client


def test_by_default_the_middleware_spans_carry_the_conversation(fake_memory):
    runs = traced_turn(fake_memory)
    for hook in HOOKS:
        assert QUESTION in runs.recorded(hook), hook


def test_omit_payload_keeps_the_spans_and_drops_what_they_carry(fake_memory):
    policy = TracePolicy(process_inputs=omit_payload, process_outputs=omit_payload)
    runs = traced_turn(fake_memory, trace_policy=policy)
    assert set(HOOKS) <= runs.names()  # the spans and their timing stay
    for hook in HOOKS:
        assert QUESTION not in runs.recorded(hook) and PREFERENCE not in runs.recorded(hook), hook
    # what the policy does not hide, as documented: the model call's own span has the prompt, memories included
    model_span = runs.recorded("RecordingChatModel")
    assert OPEN_TAG in model_span and PREFERENCE in model_span


def test_trace_policy_is_off_unless_asked(fake_memory):
    assert HindsightMiddleware(fake_memory).trace_policy is None
    policy = TracePolicy(process_inputs=omit_payload)
    assert HindsightMiddleware(fake_memory, trace_policy=policy).trace_policy is policy
