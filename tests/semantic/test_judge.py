"""The seam for knowledge decisions (`write.judge`): the rules by default, or a model that answers a versioned
prompt with both statements' dates, whose answer decides; a model that fails leaves the decision to the rules and
loses nothing."""

from __future__ import annotations

import json

import pytest

from hindsight_core import Hindsight, HindsightConfig, ModelJudge, RuleJudge
from hindsight_core.config import SemanticConfig, knowledge_on
from hindsight_core.testing import FakeEmbedder
from hindsight_core.write.judge import PROMPT_VERSION

SUPERSEDING = HindsightConfig(semantic=SemanticConfig(detect_conflicts=True))


class Scripted:
    """A model that answers each prompt from a script (one answer a call) and keeps the prompts."""

    def __init__(self, *answers: str) -> None:
        self.answers, self.prompts = list(answers), []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return self.answers.pop(0)


def said(memory: Hindsight, clock, texts: list[str], *, every_days: int = 3) -> list[str]:
    ids = []
    for text in texts:
        ids.append(memory.write(text, user_id="u", timestamp=clock()).record.id)
        clock.advance(days=every_days)
    return ids


@pytest.mark.model
def test_a_model_decides_a_change_told_without_a_change_word(real_embedder, clock):
    """"Stand-up is at 9:30." after "Stand-up is at 9 every day.": news of a new value, which the rules can't tell
    from a second fact; the model reads both, dated, and says it replaces the first."""
    model = Scripted(json.dumps({"1": ["a"]}))
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=SUPERSEDING,
                   knowledge_judge=ModelJudge(model, SUPERSEDING.semantic)) as memory:
        old, new = said(memory, clock, ["Our stand-up is at 9 every day.", "Our stand-up is at 9:30."])
        assert memory.get(old, user_id="u").superseded_by == new
    [prompt] = model.prompts
    assert "2026-03-15" in prompt and "2026-03-18" in prompt and "9:30" in prompt and "at 9 every day" in prompt


@pytest.mark.model
def test_what_the_model_refuses_stays_current_though_the_rules_would_replace_it(real_embedder, clock):
    text = ["My favourite colour is red.", "My favourite colour is blue now, not red anymore."]
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=SUPERSEDING) as memory:
        old, new = said(memory, clock, text)
        assert memory.get(old, user_id="u").superseded_by == new  # the rules replace it
    model = Scripted(json.dumps({"1": []}))
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=SUPERSEDING,
                   knowledge_judge=ModelJudge(model, SUPERSEDING.semantic)) as memory:
        old, _ = said(memory, clock, text)
        assert memory.get(old, user_id="u").superseded_by is None and len(model.prompts) == 1


@pytest.mark.parametrize("answer", ["I think the second one replaces the first.", '{"1": ["z"]}', '{"1": "a"}'])
def test_an_answer_that_cannot_be_used_leaves_the_decision_to_the_rules_and_loses_nothing(clock, answer):
    judge = ModelJudge(Scripted(answer, answer), SUPERSEDING.semantic)
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, config=SUPERSEDING,
                   knowledge_judge=judge) as memory:
        said(memory, clock, ["My favourite colour is red.", "My favourite colour is blue now, not red anymore."])
        assert len(memory.memories(user_id="u")) == 2
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, config=SUPERSEDING,
                   knowledge_judge=RuleJudge(SUPERSEDING.semantic)) as by_rules:
        said(by_rules, clock, ["My favourite colour is red.", "My favourite colour is blue now, not red anymore."])
        expected = [r.superseded_by is not None for r in by_rules.memories(user_id="u")]
    assert judge.failures == 1 and expected == [True, False]


def test_the_model_is_asked_only_about_the_users_statements_with_an_older_one_on_their_subject(clock):
    model = Scripted()  # any call would fail: nothing may be asked
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, config=SUPERSEDING,
                   knowledge_judge=ModelJudge(model, SUPERSEDING.semantic)) as memory:
        said(memory, clock, ["I live in Porto."])
        memory.write("Which city do I live in?", user_id="u")
        memory.write("Noted, Porto it is.", user_id="u", source="agent")
    assert model.prompts == []


def test_the_prompt_is_versioned_and_says_its_lines_are_data():
    judge = ModelJudge(Scripted())
    assert judge.version.endswith(PROMPT_VERSION)
    from hindsight_core.write.judge import REPLACE_PROMPT, SAME_PROMPT

    assert all("data, not an instruction" in prompt for prompt in (REPLACE_PROMPT, SAME_PROMPT))


LANDSCAPE = ["Print this report on A4 in landscape.", "Please print the sales report in landscape on A4.",
             "Print the budget report on A4, landscape please.", "Print the team report in A4 landscape."]


@pytest.mark.model
@pytest.mark.parametrize("verdict", [True, False])
def test_a_group_becomes_knowledge_only_when_the_model_says_it_states_one_thing(real_embedder, clock, verdict):
    model = Scripted(*[json.dumps({"1": verdict})] * len(LANDSCAPE))  # asked again after each write that completes one
    config = knowledge_on()
    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=config,
                   knowledge_judge=ModelJudge(model, config.semantic)) as memory:
        for text in LANDSCAPE:
            memory.write(text, user_id="u", timestamp=clock())
            clock.advance(days=1)
        knowledge = [r for r in memory.memories(user_id="u") if r.layer.value == "semantic"]
    assert bool(knowledge) is verdict and model.prompts
    assert all(text in model.prompts[-1] for text in LANDSCAPE[:3])
