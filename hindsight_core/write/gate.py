"""The write gate: decides whether a turn is worth remembering, and says why.

`RuleBasedGate` needs no model: only content-free turns are skipped (greetings, thanks, acknowledgements, laughter,
emoji, questions about the present moment); anything else is kept, as the kind of memory it is, in English and Chinese
(a preference, a correction, a request that carries a parameter, a task result, a personal fact, an event, or plain
dialogue). The kind sets the decay rate. `LLMGate` asks any text-in/text-out callable for a JSON verdict, and falls back
to the rules when the answer cannot be used.

Text that did not come from the user is data: a tool's or an agent's words are never typed as the user's preference,
correction or request (`USER_ONLY_KINDS`, `as_data`). A gate is any callable `(text, source) -> GateDecision`.
"""

from __future__ import annotations

import json
import re
from typing import Callable, Protocol

from ..language.cues import attributes, exclusive_terms
from ..language.entities import extract_entities
from ..language.mood import SPEAKER_LABEL, asserts
from ..language.text import HAN_CHAR, STOP_WORDS
from ..safety.literals import Prefiltered
from ..types import EventType, GateDecision, Source


class WriteGate(Protocol):
    def __call__(self, text: str, source: Source) -> GateDecision: ...


def _rx(*parts: str) -> re.Pattern[str]:
    # not run on a text without any literal its matches need: the same answers, most turns spared the search
    return Prefiltered(re.compile("|".join(parts), re.IGNORECASE))  # type: ignore[return-value]  # a Pattern in all it is used for


PREFERENCE = _rx(
    r"\bfrom now on\b", r"\bgoing forward\b", r"\bin (?:the )?future\b", r"\bfrom here on\b",
    r"\bi (?:really |strongly |generally |usually |always |would )?(?:prefer|like|love|enjoy|hate|dislike|want|need|favou?r)\b",
    r"\bi(?:'d| would) rather\b", r"\bmy (?:favou?rite|preferred|preference)\b",
    r"\b(?:please )?(?:always|never) (?:use|print|send|call|write|reply|show|give|make|book|put|format)\b",
    # a standing instruction: it holds for every case of a kind, from now on ("for all test runs", "in every Go file")
    r"\b(?:for|in|on|to|with) (?:all|every|each|any) (?:of (?:the|my|our) )?\w+",
    r"^\s*(?:please\s+|and\s+)?(?:always|never)\b",
    # "every month" in an ask ("Please send all invoices to billing every month."), not in a story
    r"^\s*(?:please\s+)?[a-z]+\b(?:[^.!?]|\.(?=\S)){0,80}\bevery (?:time|month|week|day|morning|evening)\b"
    r"(?![^.!?]*\b(?:she|he|they|we|i)\b)",
    r"以后都", r"每次", r"所有.{0,6}都",
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
#: questions about the present moment: their answer is stale within the hour
TRIVIAL = _rx(
    r"^\s*(?:hi|hello|hey|yo|thanks|thank you|thx|ok|okay|k|sure|cool|great|nice|lol|haha|yes|no|yep|nope|"
    r"bye|good (?:morning|night|evening|afternoon)|how are you|what'?s up)\W*$",
    r"^\s*what(?:'s| is) the (?:time|date|weather)(?: like)?(?: today| now| outside)?\W*$",
    r"^\s*what time is it(?: now)?\W*$", r"^\s*what day is (?:it|today)\W*$",
    r"^\s*(?:你好|您好|嗨|谢谢|多谢|好的|好|嗯|哦|行|可以|再见|早上好|晚安|哈哈)+[。！!.～~]*$",
    r"^\s*(?:现在)?几点了?[？?。]*$", r"^\s*今天(?:星期|周|礼拜)几[？?。]*$", r"^\s*今天天气(?:怎么样|如何)?[？?。]*$",
    # ... and their answers: the present moment stated is as stale as the question
    r"^\s*(?:it is|it's|its)\s+(?:now\s+)?\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.|o'?clock)?"
    r"(?:\s+in the (?:morning|afternoon|evening)|\s+at night)?(?:\s+now)?\W*$",
    r"^\s*(?:现在|目前)(?:是)?\s*(?:上午|下午|晚上|早上)?\s*\d{1,2}\s*[点:：](?:\s*\d{1,2}\s*分?)?[。！!.]*$",
)
#: words that carry no content on their own: greetings, thanks, acknowledgements, interjections, laughter
FILLER_WORDS = frozenset("""
    hi hello hey heya hiya yo howdy greetings thanks thank thx ty tysm cheers ok okay okey k kk alright sure
    cool great nice awesome amazing wonderful lovely fantastic perfect fine good wow whoa yay oh ah aw aww ooh
    hmm hm um uh er eh lol lmao rofl xd xo xoxo yes yeah yep yup ya yea no nope nah bye goodbye cya later
    night morning afternoon evening welcome np please pls plz sound sounds glad love totally absolutely
    definitely exactly indeed right agreed agree true really well noted see soon care also hear heard know
    mean guess bet course problem worries thing deal going doing happy help anytime same likewise congrats
    congratulations omg gosh wish luck let go hope fun cute sweet take much lot lots haha hahaha hehe
""".split())
_LAUGHTER = re.compile(r"^(?:a?(?:ha|he|hi|ja|lo)+h?l?|l+o+l+|x+d+|m+|u+h+|a+h+|o+h+|h+m+|w+o+w+)$")
_ZH_FILLER = re.compile(
    r"你好|您好|大家好|哈喽|嗨|谢谢|多谢|感谢|不客气|不用谢|好的|好吧|好滴|好嘞|好啊|好呀|没问题|收到|明白|了解|知道了|"
    r"再见|拜拜|早上好|早安|午安|下午好|晚上好|晚安|好主意|太棒了|真棒|厉害|真好|辛苦了|加油|是的|是啊|对的|对啊|"
    r"你呢|您呢|怎么样|你好吗|最近好吗|哈+|呵+|嘿+|嘻+|嗯+|哦+|噢+|喔+|啊+|呀+|哇+|诶|欸|好|行|对|嗯|可以|"
    r"了|吧|呢|吗|的|啦|嘛|呗|呐")
_LATIN_WORD = re.compile(r"[^\W_]+", re.UNICODE)

_REQUEST_VERBS = (
    r"print|send|e-?mail|mail|write|use|make|format|save|export|convert|translate|book|schedule|set|put|draft|"
    r"reply|respond|answer|call|text|message|share|forward|order|reserve|remind|add|create|generate|render|show|"
    r"display|sort|list|summari[sz]e|rewrite|code|deploy|run|attach|upload|post|cc|sign|open|plot|chart|"
    r"give|bring|pick|change|switch|keep|cut|copy|paste|file|move|name|label|color|colour|resize|scan|fax|ship|"
    r"deliver|pay|transfer|invite|notify|ping|buy|get|find|look up|check|play|turn|read|spell|address")
#: the shape of a request: an imperative opening, a polite ask, or "the same again"
REQUEST = _rx(
    rf"^\s*(?:(?:please|pls|plz|kindly)\s+|(?:can|could|would|will) you\s+(?:please\s+)?|"
    rf"i(?:'d| would) like you to\s+|i need you to\s+|let'?s\s+)?(?:{_REQUEST_VERBS})\b",
    r"\bplease\b", r"^(?!\s*(?:i|we|you|he|she|they|it|that|this|there|my|our)\b)[^.!?]{1,60}\bagain\b",
    r"\bsame (?:\w+ )?as (?:last time|before|usual|always)\b", r"\bas usual\b",
    r"^\s*(?:请|麻烦|帮我|帮忙|给我|替我|能不能|能否|可不可以|你能|你可以)",
    r"用\s*[^\s，。,.]{1,20}?\s*(?:写|打印|发|做|画|回复|翻译|实现|编|算|记|表示|格式)",
    r"把.{1,20}?(?:发给|发到|寄给|交给|转给|传给|打印|改成|改为|翻译成|转成|存成|存为|做成|给)",
    r"(?:发给|寄给|转给|抄送|交给)\s*\S", r"(?:(?<!不)再(?!也)|(?<!最后)(?<!最终)(?<!后来)还是|照旧|照样|跟上次一样|和上次一样|老样子)",
    # a format named next to the action, with no one said to have done it: "季度总结也横向打印"
    r"^(?!\s*(?:我|你|他|她|它|我们|你们|他们|她们|大家))[^。！？]{0,20}"
    # a format named for a thing, with no verb: "Landscape for the summary too.", "Portrait orientation for the slides"
    r"^\s*(?:landscape|portrait|a[345]|duplex|double-sided|single-sided|bold|pdf|markdown)\b[\w ]{0,20}?\bfor "
    r"(?:the|this|that|my|our|all|every|each) \w+",
    r"(?:(?:横向|纵向|竖向|双面|单面|彩色|黑白|加粗)\s*(?:打印|印|排版|显示|保存|导出)|"
    r"(?:打印|印|排版|保存|导出)\S{0,3}(?:横向|纵向|竖向|双面|单面|彩色|黑白))",
)
#: what makes a request worth learning from: the parameter it sets ("in landscape", "to Maria", "用Python")
_PARAMETER = _rx(
    r"\b(?:in|as|to|on|with|using|via|into|onto|for|by|at|from|without|double-sided|single-sided)\s+\S",
    r"\b(?:landscape|portrait|bold|italic|pdf|docx?|csv|json|markdown|a[345]|letter|legal|colou?r|"
    r"black and white|grayscale|greyscale|duplex)\b",
    r"用|按|以|成|给|到|横向|纵向|竖向|格式|双面|单面|彩色|黑白",
)

#: the speaker as a clause's subject: "I ..." (anywhere), "we ...", "my/our ...", and 我 / 我们 (not 我的, which may
#: open someone else's news) in Chinese, where the topic often comes first ("冰水我不喝")
_FIRST_PERSON_SUBJECT = re.compile(
    r"(?:^|[,;:.!]\s+)(?:(?:and|but|so|well|oh|also|actually|honestly|yeah|yes|no)[, ]+)*"
    r"(?:i|we|my|our|i'm|i've|we're|we've)\b|(?-i:\bI\b)|"
    r"我(?!的)|我们|咱们", re.I)


def states_about_speaker(text: str) -> bool:
    """A declarative statement whose subject is the speaker ("I don't eat coriander", "我不吃香菜", "our app runs
    on MySQL"): not a question, a conditional, quoted speech or someone else's news (`mood.asserts`)."""
    body = strip_speaker(text)
    return bool(_FIRST_PERSON_SUBJECT.search(body)) and asserts(body)


_WH_QUESTION = re.compile(r"^\s*(?:what|which|who|whom|where|when|how|why|do i|did i|am i)\b.*[?？]\s*$|"
                          r"(?:什么|哪|谁|几|怎么|为什么|吗|呢)[^。！!]*[?？]?\s*$", re.I | re.S)
_WH_START = re.compile(r"^\s*(?:what|which|who|whom|where|when|how|why)\b|^\s*(?:什么|哪|谁|为什么|怎么)", re.I)
_QUESTION = re.compile(r"[?？]\s*$|^\s*(?:what|when|where|who|how|why|which|is|are|do|does|can|could|would)\b", re.I)

_CONFIDENCE = {
    EventType.PREFERENCE: 0.9, EventType.CORRECTION: 0.9, EventType.FACT: 0.8,
    EventType.TASK_RESULT: 0.7, EventType.EVENT: 0.7, EventType.REQUEST: 0.7, EventType.DIALOGUE: 0.6,
}
#: a question is kept when it has content (it says what the user is thinking about), trusted a little less
_QUESTION_CONFIDENCE = 0.5
#: what the agent or a tool says is trusted less than what the user says
SOURCE_TRUST = {Source.USER: 1.0, Source.SYSTEM: 1.0, Source.AGENT: 0.7, Source.TOOL: 0.6}


#: kinds only the user's own words can have: what the user wants, corrects or asks for
USER_ONLY_KINDS = frozenset({EventType.PREFERENCE.value, EventType.CORRECTION.value, EventType.REQUEST.value})


def as_data(kind: str, source: Source, *, stated: bool = True) -> str:
    """The event type text from `source` may carry: a user-only kind becomes a fact (or dialogue, when `stated` is
    False) for anyone else."""
    if Source(source) is Source.USER or kind not in USER_ONLY_KINDS:
        return kind
    return EventType.FACT.value if stated else EventType.DIALOGUE.value


def strip_speaker(text: str) -> str:
    """The text without a leading transcript label such as "Caroline: "."""
    return SPEAKER_LABEL.sub("", text, count=1)


def speaker(text: str) -> str | None:
    """The leading transcript label ("Caroline" in "Caroline: I moved."), or None."""
    match = SPEAKER_LABEL.match(text)
    return match.group(0).strip().rstrip(":：").strip() if match else None


def content_words(text: str) -> int:
    """How many words carry content: the rule the gate skips by. Latin words count unless they are stop words,
    filler (`FILLER_WORDS`) or laughter; numbers count; CJK text counts one word per two characters left once
    filler phrases are removed. Emoji and punctuation count nothing, nor does one word repeated three times."""
    cjk_rest = HAN_CHAR.findall(_ZH_FILLER.sub("", text)) if HAN_CHAR.search(text) else []  # filler is all Han
    words = []
    for word in _LATIN_WORD.findall(HAN_CHAR.sub(" ", text).lower()):
        word = word.split("'")[0]
        if word in STOP_WORDS or word in FILLER_WORDS or _LAUGHTER.match(word):
            continue
        words.append(word)
    if len(words) >= 3 and len(set(words)) == 1 and not cjk_rest:
        return 0  # one word said over and over ("text text text", "no no no") states nothing
    return len(words) + (len(cjk_rest) + 1) // 2


def filler_removed(text: str) -> str:
    """The text with its Chinese filler phrases (`你好`, `谢谢`, `好主意`, particles) blanked out: what is left can
    say what the text is about."""
    return _ZH_FILLER.sub(" ", text)


def sets_attribute(text: str) -> bool:
    """Whether a statement sets a single-valued attribute of the user's (where they live, a phone number, a
    favourite): a fact. Naming an exclusive value alone ("I printed it in landscape") does not."""
    return any(not name.startswith("exclusive:") for name in attributes(text))


def asks_for_nothing(text: str) -> bool:
    """A turn that needs no memory: a greeting, thanks, an acknowledgement, emoji, "what time is it"."""
    body = strip_speaker(text)
    return bool(TRIVIAL.search(body)) or content_words(body) < 1


def is_request(text: str) -> bool:
    """A request that carries a parameter: the shape of an ask (`REQUEST`) and a parameter (`_PARAMETER`), as in
    "send it to Maria" or "用Python写"; a question only when it is a polite ask ("Could you send it to Maria?")."""
    body = strip_speaker(text)
    if not REQUEST.search(body):
        return False
    return bool(_PARAMETER.search(body) or extract_entities(body) or exclusive_terms(body))


class RuleBasedGate:
    """The default write gate: patterns and entities, English and Chinese, no model.

    The rules, in order: skip a question about the present moment (`TRIVIAL`); skip a turn with fewer than
    `min_content_tokens` content words (`content_words`), one more from an agent or a tool; keep a correction, a
    preference, a request with a parameter, a task result or a personal fact (`states_about_speaker` counts as one), as
    the first that matches (questions state no preference, correction or fact), the first three only from the user: from
    anyone else they are kept as data (a task result or fact); keep a statement naming entities as an event; keep
    anything else as dialogue (a question with a lower confidence).
    """

    def __init__(self, min_content_tokens: int = 1) -> None:
        self.min_content_tokens = min_content_tokens

    def __call__(self, text: str, source: Source = Source.USER) -> GateDecision:
        source = Source(source)
        trust = SOURCE_TRUST[source]
        body = strip_speaker(text)
        if TRIVIAL.search(body):
            return GateDecision(False, EventType.DIALOGUE.value, ("small talk or a trivial request",), 0.0)
        # an agent's or a tool's one word ("Ordered.", "Done!") acknowledges; the user's may answer a question
        if content_words(body) < self.min_content_tokens + (source is not Source.USER):
            return GateDecision(False, EventType.DIALOGUE.value,
                                ("no content: a greeting, thanks, an acknowledgement or emoji",), 0.0)
        signals: list[tuple[EventType, str]] = []
        asks = bool(_WH_QUESTION.search(body))  # "what do I like?" asks about a preference, states none
        if CORRECTION.search(body) and not asks:
            signals.append((EventType.CORRECTION, "a correction"))
        if PREFERENCE.search(body) and not asks:
            signals.append((EventType.PREFERENCE, "a stated preference"))
        if is_request(body) and (not asks or not _WH_START.search(body)):
            signals.append((EventType.REQUEST, "a request with a parameter"))
        if TASK_RESULT.search(body):
            signals.append((EventType.TASK_RESULT, "a task result"))
        if (FACT.search(body) or sets_attribute(body) or states_about_speaker(body)) and not asks:
            signals.append((EventType.FACT, "a personal fact or commitment"))
        entities = extract_entities(body)
        named: tuple[str, ...] = (f"entities: {', '.join(entities[:5])}",) if entities else ()
        if signals and source is not Source.USER:
            said = [(k, r) for k, r in signals if k.value not in USER_ONLY_KINDS]
            if len(said) < len(signals):
                dropped = "; ".join(r for k, r in signals if k.value in USER_ONLY_KINDS)
                signals = said or [(EventType.FACT, f"{source.value} text kept as data")]
                named = named + (f"not the user's words, so not typed as the user's ({dropped})",)
        if signals:
            kind = signals[0][0]
            reasons = tuple(r for _, r in signals) + named
            return GateDecision(True, kind.value, reasons, round(_CONFIDENCE[kind] * trust, 3))
        is_question = bool(_QUESTION.search(body))
        if entities and not is_question:
            return GateDecision(True, EventType.EVENT.value, (f"mentions {', '.join(entities[:5])}",),
                                round(_CONFIDENCE[EventType.EVENT] * trust, 3))
        if is_question:
            return GateDecision(True, EventType.DIALOGUE.value, ("a question with content",) + named,
                                round(_QUESTION_CONFIDENCE * trust, 3))
        return GateDecision(True, EventType.DIALOGUE.value, ("a statement with content",) + named,
                            round(_CONFIDENCE[EventType.DIALOGUE] * trust, 3))


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

    If the answer is not the JSON asked for, the rule-based verdict is used and its reasons say so.
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
        kind = EventType(as_data(kind.value, source))
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
