import pytest

from hindsight_core import LLMGate, RuleBasedGate, Source

gate = RuleBasedGate()


@pytest.mark.parametrize("text, kind", [
    ("I prefer window seats on long flights.", "preference"),
    ("From now on, print everything in landscape.", "preference"),
    ("Please always reply in French.", "preference"),
    ("以后都用A4纸横向打印报表", "preference"),
    ("我喜欢喝不加糖的咖啡", "preference"),
    ("No, it should be the 14th, not the 12th.", "correction"),
    ("Actually, my flight is on Tuesday.", "correction"),
    ("不对，应该是下周三开会", "correction"),
    ("The deployment to production is done.", "task_result"),
    ("部署已经完成了，结果是成功", "task_result"),
    ("My manager is Priya Raman and the project deadline is June 30.", "fact"),
    ("我叫王小明，住在上海", "fact"),
    ("The Falcon project kickoff with Acme Corp is on 2026-04-02.", "event"),
])
def test_worth_remembering(text, kind):
    decision = gate(text, Source.USER)
    assert decision.store, decision
    assert decision.event_type == kind, decision
    assert decision.reasons and all(decision.reasons)


@pytest.mark.parametrize("text", [
    "what time is it", "What time is it?", "hi", "Thanks!", "ok", "how are you?",
    "现在几点了？", "你好", "谢谢", "好的", "今天星期几", "What's the weather like?", "Is it?",
])
def test_trivial_turns_are_not_stored(text):
    decision = gate(text, Source.USER)
    assert not decision.store, decision
    assert decision.reasons


def test_agent_and_tool_writes_get_lower_confidence():
    text = "I prefer window seats on long flights."
    user, agent, tool = (gate(text, s).confidence for s in (Source.USER, Source.AGENT, Source.TOOL))
    assert user > agent > tool > 0


def test_llm_gate_uses_the_models_verdict():
    llm_gate = LLMGate(lambda prompt: '{"store": false, "event_type": "dialogue", "reason": "chit-chat"}')
    decision = llm_gate("I prefer window seats on long flights.", Source.USER)
    assert not decision.store and "chit-chat" in decision.reasons[0]


def test_llm_gate_falls_back_to_rules_on_garbage():
    llm_gate = LLMGate(lambda prompt: "sure! I think you should store it")
    decision = llm_gate("I prefer window seats on long flights.", Source.USER)
    assert decision.store and decision.event_type == "preference"
    assert "used rules" in decision.reasons[-1]


def test_llm_gate_survives_a_failing_model():
    def broken(prompt):
        raise TimeoutError("model timed out")

    decision = LLMGate(broken)("what time is it?", Source.USER)
    assert not decision.store and "TimeoutError" in decision.reasons[-1]


def test_third_person_preferences_from_tools_or_agents_are_recognised():
    assert gate("The user prefers aisle seats on short flights.", Source.AGENT).event_type == "preference"
    assert gate("用户喜欢靠窗的座位", Source.AGENT).event_type == "preference"
