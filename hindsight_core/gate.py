"""The write gate: decides whether a turn is worth remembering, and says why.

`RuleBasedGate` needs no model. It looks, in English and Chinese, for
preferences ("from now on…", "以后都…"), corrections ("no, it should be…",
"不对，应该是…"), task results, personal facts, and entities (names, codes,
dates, amounts, deadlines); it skips greetings, acknowledgements and bare
questions such as "what time is it". Substantial statements with none of those
signals are kept as dialogue, which decays fastest.

`LLMGate` asks any text-in/text-out callable (the LangChain and LlamaIndex
adapters pass their chat models) for a JSON verdict, and falls back to the
rules when the answer cannot be used.

A gate is any callable `(text, source) -> GateDecision`.
"""

from __future__ import annotations

import json
import re
from typing import Callable, Protocol

from .entities import extract_entities
from .text import keyword_tokens
from .types import EventType, GateDecision, Source


class WriteGate(Protocol):
    def __call__(self, text: str, source: Source) -> GateDecision: ...


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(parts), re.IGNORECASE)


PREFERENCE = _rx(
    r"\bfrom now on\b", r"\bgoing forward\b", r"\bin (?:the )?future\b", r"\bfrom here on\b",
    r"\bi (?:really |strongly |generally |usually |always |would )?(?:prefer|like|love|enjoy|hate|dislike|want|need|favou?r)\b",
    r"\bi(?:'d| would) rather\b", r"\bmy (?:favou?rite|preferred|preference)\b",
    r"\b(?:please )?(?:always|never) (?:use|print|send|call|write|reply|show|give|make|book|put|format)\b",
    r"\bdon'?t (?:ever )?(?:use|send|call|print|show|give|book)\b", r"\bi'?m (?:allergic|vegetarian|vegan)\b",
    r"\bthe user (?:really |strongly )?(?:prefers|likes|loves|wants|needs|hates|dislikes|always|never)\b",
    r"用户(?:更|比较|很|最)?(?:喜欢|偏好|希望|想要|讨厌)",
    r"以后", r"今后", r"从现在(?:起|开始)", r"我(?:更|比较|很|最|特别)?(?:喜欢|偏好|偏爱|爱|讨厌|不喜欢|习惯|想要|需要)",
    r"(?:最|更|比较|还是|一直)?(?:喜欢|偏好|偏爱|讨厌)",
    r"(?:总是|一直|每次都|都要|都用|始终)", r"(?:不要|别)再", r"我对.{0,8}过敏", r"我吃素",
)
CORRECTION = _rx(
    r"^\s*(?:no|nope|not quite|actually|wait|correction|sorry)\b[,!. ]",
    r"\bthat'?s (?:wrong|not right|incorrect|not what i)\b", r"\bit should (?:be|have been)\b",
    r"\bi meant\b", r"\b(?:change|update|correct|switch) (?:it|that|this) to\b", r"\binstead of\b",
    r"\bnot \w+(?: \w+)?, but\b", r"\bactually,? (?:it'?s|i|my|the|we)\b",
    r"不对", r"错了", r"应该是", r"更正", r"改成", r"改为", r"其实是", r"我是说", r"不是.{1,12}而是",
)
TASK_RESULT = _rx(
    r"\b(?:is|are|was|were|has been|have been|got|just|successfully|already) "
    r"(?:done|completed|finished|deployed|shipped|merged|fixed|resolved|sent|booked|scheduled|created|"
    r"saved|uploaded|approved|submitted|published|released|installed|paid|cancel+ed|renewed)\b",
    r"\b(?:i|we|you) (?:finished|completed|deployed|shipped|merged|fixed|resolved|booked|submitted|"
    r"published|released|paid|cancel+ed|renewed)\b",
    r"\b(?:the )?(?:result|outcome|answer) (?:is|was)\b", r"\b(?:task|job|build|test|run) (?:succeeded|failed|passed)\b",
    r"完成了", r"已(?:经)?(?:完成|发送|部署|提交|修复|付款|预订|上线|发布)", r"搞定", r"结果是", r"(?:成功|失败)了",
)
FACT = _rx(
    r"\bmy (?:name|birthday|address|email|e-mail|phone|number|wife|husband|partner|son|daughter|kids?|"
    r"children|mom|mother|dad|father|sister|brother|friend|boss|manager|team|project|company|job|dog|cat|"
    r"car|home|house|flat|apartment|doctor|school|password|account|salary|budget|deadline|meeting|flight|hotel)\b",
    r"\bi (?:live|work|worked|am|was born|moved|have|had|got|started|joined|bought|visited|went|"
    r"graduated|study|studied|teach|run|ran|signed up|adopted|lost|won|met|married|travel(?:l)?ed)\b",
    r"\bi'?m (?:a|an|from|working|moving|going|planning|learning|studying|training)\b",
    r"\b(?:deadline|due (?:on|by)|appointment|meeting|birthday|anniversary|interview|flight)\b",
    r"我叫", r"我的(?:名字|生日|地址|电话|邮箱|老板|项目|公司|工作|孩子|女儿|儿子|妻子|丈夫|狗|猫)",
    r"我(?:住在|在.{1,10}工作|是|有|去了|搬到|买了|参加了|学习|毕业)", r"截止", r"期限", r"会议", r"生日", r"预约",
)
TRIVIAL = _rx(
    r"^\s*(?:hi|hello|hey|yo|thanks|thank you|thx|ok|okay|k|sure|cool|great|nice|lol|haha|yes|no|yep|nope|"
    r"bye|good (?:morning|night|evening|afternoon)|how are you|what'?s up)\W*$",
    r"^\s*what(?:'s| is) the (?:time|date|weather)\b", r"^\s*what time is it\b", r"^\s*what day is (?:it|today)\b",
    r"^\s*(?:你好|您好|嗨|谢谢|多谢|好的|好|嗯|哦|行|可以|再见|早上好|晚安|哈哈)+[。！!.～~]*$",
    r"^\s*(?:现在)?几点了", r"^\s*今天(?:星期|周)几", r"^\s*今天天气",
)
_WH_QUESTION = re.compile(r"^\s*(?:what|which|who|whom|where|when|how|why|do i|did i|am i)\b.*[?？]\s*$|"
                          r"(?:什么|哪|谁|几|怎么|为什么|吗|呢)[^。！!]*[?？]?\s*$", re.I | re.S)
_QUESTION = re.compile(r"[?？]\s*$|^\s*(?:what|when|where|who|how|why|which|is|are|do|does|can|could|would)\b", re.I)

_CONFIDENCE = {
    EventType.PREFERENCE: 0.9, EventType.CORRECTION: 0.9, EventType.FACT: 0.8,
    EventType.TASK_RESULT: 0.7, EventType.EVENT: 0.7, EventType.DIALOGUE: 0.6,
}
#: what the agent or a tool says is trusted less than what the user says
SOURCE_TRUST = {Source.USER: 1.0, Source.SYSTEM: 1.0, Source.AGENT: 0.7, Source.TOOL: 0.6}


_CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


def content_words(text: str) -> int:
    """Rough count of content words: Latin words (stop words out) plus one per two CJK characters."""
    cjk = len(_CJK_CHAR.findall(text))
    latin = [t for t in keyword_tokens(_CJK_CHAR.sub(" ", text))]
    return len(latin) + cjk // 2


class RuleBasedGate:
    """The default write gate: patterns and entities, English and Chinese, no model.

    `min_content_tokens`: a statement with no signal is still kept as dialogue
    when it has at least this many content words (stop words excluded).
    """

    def __init__(self, min_content_tokens: int = 6) -> None:
        self.min_content_tokens = min_content_tokens

    def __call__(self, text: str, source: Source = Source.USER) -> GateDecision:
        source = Source(source)
        trust = SOURCE_TRUST[source]
        if TRIVIAL.search(text):
            return GateDecision(False, EventType.DIALOGUE.value, ("small talk or a trivial request",), 0.0)
        signals: list[tuple[EventType, str]] = []
        asks = bool(_WH_QUESTION.search(text))  # "what do I like?" asks about a preference, states none
        if CORRECTION.search(text) and not asks:
            signals.append((EventType.CORRECTION, "a correction"))
        if PREFERENCE.search(text) and not asks:
            signals.append((EventType.PREFERENCE, "a stated preference"))
        if TASK_RESULT.search(text):
            signals.append((EventType.TASK_RESULT, "a task result"))
        if FACT.search(text) and not asks:
            signals.append((EventType.FACT, "a personal fact or commitment"))
        entities = extract_entities(text)
        if signals:
            kind = signals[0][0]
            # a correction that restates a preference is best filed as the preference it sets
            if kind is EventType.CORRECTION and any(k is EventType.PREFERENCE for k, _ in signals):
                kind = EventType.CORRECTION
            reasons = tuple(r for _, r in signals) + ((f"entities: {', '.join(entities[:5])}",) if entities else ())
            return GateDecision(True, kind.value, reasons, round(_CONFIDENCE[kind] * trust, 3))
        content = content_words(text)
        is_question = bool(_QUESTION.search(text))
        if entities and not is_question:
            return GateDecision(True, EventType.EVENT.value, (f"mentions {', '.join(entities[:5])}",),
                                round(_CONFIDENCE[EventType.EVENT] * trust, 3))
        if is_question and content < 2 * self.min_content_tokens:
            return GateDecision(False, EventType.DIALOGUE.value, ("a question with nothing to remember in it",), 0.0)
        if content >= self.min_content_tokens or (entities and content >= 3):
            return GateDecision(True, EventType.DIALOGUE.value, ("a substantial statement",),
                                round(_CONFIDENCE[EventType.DIALOGUE] * trust, 3))
        return GateDecision(False, EventType.DIALOGUE.value, ("too short to carry a preference, fact or result",), 0.0)


LLM_GATE_PROMPT = """You decide whether a message is worth keeping in an assistant's long-term memory.
Keep preferences, corrections, personal facts, named entities, deadlines and task results.
Skip greetings, small talk and questions that carry no information.
Answer with JSON only: {{"store": true|false, "event_type": "preference|correction|fact|task_result|event|dialogue", "reason": "..."}}

Message (from the {source}):
<<<
{text}
>>>"""


class LLMGate:
    """A write gate backed by a language model: `llm` takes a prompt and returns its answer text.

    If the answer is not the JSON asked for, the rule-based verdict is used and
    its reasons say so; the gate never raises because a model misbehaved.
    """

    def __init__(self, llm: Callable[[str], str], fallback: WriteGate | None = None) -> None:
        self.llm = llm
        self.fallback = fallback or RuleBasedGate()

    def __call__(self, text: str, source: Source = Source.USER) -> GateDecision:
        source = Source(source)
        try:
            answer = self.llm(LLM_GATE_PROMPT.format(text=text, source=source.value))
            verdict = parse_gate_json(answer)
        except Exception as exc:  # a model or its client failing must not lose the turn
            decision = self.fallback(text, source)
            return GateDecision(decision.store, decision.event_type,
                                decision.reasons + (f"LLM evaluator unusable ({type(exc).__name__}); used rules",),
                                decision.confidence)
        event_type = verdict["event_type"]
        kind = EventType(event_type) if event_type in EventType._value2member_map_ else EventType.DIALOGUE
        confidence = _CONFIDENCE[kind] * SOURCE_TRUST[source] if verdict["store"] else 0.0
        return GateDecision(verdict["store"], kind.value, ("LLM: " + verdict["reason"],), round(confidence, 3))


def parse_gate_json(answer: str) -> dict:
    """Pull {"store", "event_type", "reason"} out of a model's answer; ValueError if absent."""
    match = re.search(r"\{.*\}", answer or "", re.S)
    if not match:
        raise ValueError("no JSON object in the answer")
    data = json.loads(match.group(0))
    if not isinstance(data.get("store"), bool):
        raise ValueError("'store' must be true or false")
    return {"store": data["store"], "event_type": str(data.get("event_type") or "dialogue"),
            "reason": str(data.get("reason") or "no reason given")[:300]}
