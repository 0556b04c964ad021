"""The mood of a statement: whether it asserts something of its speaker, read from grammar, not from topic words.

Knowledge and changes of mind are drawn only from what the speaker asserts about themselves. Four structural readings,
each a small closed set of grammatical words in English and Chinese, say when a sentence does not: `asks` (a question),
`supposes` (a conditional, an unrealised case, a plan or a seeming), `quotes` (quoted or reported speech) and
`about_someone_else` (the subject is another person). `asserts(text)` is True when none holds; `why_not(text)` names the
first that does. `marks_change` and its neighbours read the closed set of words that say a value changed ("now",
"anymore", 改, 不再) or did not ("still", 仍然), and when such a change replaces nothing.
"""

from __future__ import annotations

import re

_QUOTE_PAIRS = re.compile(r"\"[^\"]{3,}\"|“[^”]{3,}”|「[^」]{2,}」|『[^』]{2,}』|‘[^’]{3,}’|'[^']{6,}'(?=\W|$)")
#: a quoted span that names something (a title, a band, a studio: "Hard Fork", “小满影像”) rather than repeating
#: someone's words: a few words with no sentence punctuation and no personal pronoun
_NAME_IN_QUOTES = re.compile(r"[\"“「『‘']\s*(?![^\"”」』’']*\b(?:i|you|we|he|she|they|me|us|my|your|our)\b)"
                             r"(?:[A-Z0-9][\w&'-]*(?: [\w&'-]+){0,4}|[^\x00-\x7f\s，。！？,.!?:：我你他她]{1,8})"
                             r"\s*[\"”」』’']")
_REPORTED = re.compile(
    r"\b(?:said|says|say|saying|told (?:me|us|him|her|them)|tells (?:me|us)|asked|asks|joked|jokes|joking|wrote|writes|"
    r"texted|tweeted|quoted|claims?|claimed|replied|yelled|shouted|whispered)\b\s*(?:[:,，：]|that\b|[\"“‘'])|"
    r"(?:说|讲|问|道|写|喊|开玩笑说|开玩笑)\s*[：:，,]?\s*[\"“「『‘]|(?:说|讲|道|问)[：:]|开玩笑|听说|据说|传言",
    re.I)
_QUESTION_MARK = re.compile(r"[?？]\s*[\"”」』)）]*\s*$")
#: an opening that asks: an auxiliary before its subject ("do you", "can I"), a wh-word before an auxiliary ("what
#: is"), or "who"; with the subject first, a wh-word opens a clause ("When printing, I …", "What you need is rest")
_QUESTION_OPENING = re.compile(
    r"^\s*(?:(?:do|does|did|is|are|was|were|am|can|could|would|will|shall|should|have|has|had|may|might|isn't|"
    r"aren't|don't|doesn't|didn't|won't|wouldn't|can't|couldn't)\s+(?:i|you|we|they|he|she|it|there|this|that|my|"
    r"your|our|the|a|an|any|anyone|anybody|someone)\b|(?:who|whom|whose)\b|"
    r"(?:what|which|where|when|how|why)(?:\s+(?!(?:i|you|we|they|he|she|it)\b)\w+)?\s*(?:\s(?:is|are|was|were|am|do|"
    r"does|did|can|could|would|will|should|have|has|had)|'s|'re)\b|(?:what|how) about\b)", re.I)
_ZH_QUESTION = re.compile(r"[吗呢嘛][\s。！!]*$|(?:是不是|有没有|要不要|能不能|会不会|可不可以|对不对|好不好|行不行|"
                          r"为什么|怎么样|怎么办|什么时候|哪里|哪儿|多少)")
_SUPPOSES = re.compile(
    r"\b(?:if|unless|suppose|supposing|imagine|imagining|assuming|in case|what if|whether|were i|had i|"
    r"would have|could have|might have|should have|would've|could've|might've|'d have|"
    r"might|maybe|perhaps|possibly|probably|someday|one day|wish|wishes|hope|hopes|hoping|"
    r"(?:thinking|thought|dreaming|dream) (?:about|of)|considering|consider|plan(?:ning|s)? to|"
    r"(?<!been )going to(?! (?:the|a|an|my|our|your|his|her|their|bed|work|school|church)\b)|gonna|"
    r"would love to|'d love to)\b|"
    # what the speaker will do, said in the moment ("I'll check it out", 我会尝试的): a plan, not a standing
    # statement, unless a habit word follows within the clause ("I'll always pay by card"; bounded: unbounded, many
    # "I'll" and one final "always" took quadratic time)
    r"\b(?:i'll|i will)\b(?![^.!?。！？]{0,60}\b(?:always|every|never|any ?more)\b)|"
    r"我会(?![^。！？]{0,12}(?:一直|每次|永远|总是))|"
    r"如果|要是|假如|假设|假使|倘若|若是|万一|的话|除非|设想|想象|可能|也许|或许|大概|说不定|打算|考虑|(?<![做定订制的周月年])计划(?![表书])|但愿|"
    # "hope" in Chinese, as in English
    r"希望|"
    r"梦想|要不(?!要)|将来|有朝一日|哪天|"
    # how things seem, not how they are
    r"好像|似乎|仿佛|\b(?:seems? like|as if|as though)\b", re.I)
_OTHER_PERSON_NOUNS = (
    r"mother|mom|mum|mommy|father|dad|daddy|parents?|sister|brother|siblings?|wife|husband|partner|spouse|"
    r"boyfriend|girlfriend|fianc[eé]e?|son|daughter|kids?|child|children|baby|friends?|bff|buddy|colleagues?|"
    r"co-?workers?|boss|manager|neighbou?rs?|roommates?|flatmates?|cousins?|aunt|uncle|grandma|grandpa|"
    r"grandmother|grandfather|grandparents?|niece|nephew|teacher|mentor|classmates?|teammates?|family")
_OTHER_SUBJECT_EN = re.compile(
    rf"^\s*(?:(?:and|but|so|well|oh|actually|also|then|now)[, ]+)*(?:he|she|they|he's|she's|they're|his|her|their|"
    rf"(?:my|our|your|his|her|their|a|the) (?:\w+ )?(?:{_OTHER_PERSON_NOUNS}))(?:'s)?\b|"
    # a name that a relative "who" marks as a person: "Marek, who trained me, is going back to sorting"
    r"^\s*(?-i:(?P<name>[A-Z][\w-]+(?: [A-Z][\w-]+)?)),\s+who\b", re.I)
_OTHER_SUBJECT_ZH = re.compile(
    r"^\s*(?:(?:现在|但是|可是|而且|后来)[，,]?)?(?:他|她|他们|她们|人家|别人|对方|"
    # a kin or social noun, owned and perhaps qualified: "我妈", "我最好的朋友", "我们新来的同事"
    r"(?:(?:我|我们|你|你们|他|她)(?:[^\s\W我你他她和与跟同]{1,4}的)?|我的|你的|他的|她的)?(?:妈妈|妈|爸爸|爸|父母|爸妈|姐姐|姐|妹妹|妹|哥哥|哥|弟弟|弟|老婆|老公|妻子|丈夫|"
    r"男朋友|女朋友|男友|女友|儿子|女儿|孩子|朋友|同事|老板|领导|上司|经理|邻居|室友|舍友|表姐|表哥|表妹|表弟|堂哥|"
    r"堂姐|奶奶|爷爷|外婆|外公|姥姥|姥爷|阿姨|叔叔|舅舅|老师|同学|队友|家人|隔壁|楼上|楼下|对门|"
    # fellow students by seniority, and who teaches whom
    r"师兄|师姐|师弟|师妹|学长|学姐|学弟|学妹|导师|学生|师傅|徒弟))")
#: "Caroline: ..." in a transcript: the label names who spoke, it says nothing
SPEAKER_LABEL = re.compile(r"^\s*[A-Z][\w'.-]{0,30}(?: [A-Z][\w'.-]{0,30})?:\s+")

#: words that say a value changed: the new one holds from now on, the old one no longer
CHANGE = re.compile(
    # "now", not "right now", "just now" or "for now" (for the time being)
    r"\b(?:now(?! and then| and again| that\b)(?<!right now)(?<!just now)(?<!for now)|nowadays|anymore|any more|no longer|"
    r"instead|from now on|these days|"
    # a change verb, not negated ("won't quit", "haven't changed", "never moved to"): nothing changed
    r"(?<!n't )(?<!n\u2019t )(?<!not )(?<!never )(?:"
    # "switched to", not "switch it up", "switch off" (vary, relax)
    r"switch(?:ed|ing)?(?! (?:\w+ )?(?:up|off|on)\b)|"
    r"mov(?:ed|ing)(?: \w+){0,3} (?:to|from|into|over)|migrat(?:ed|ing)|chang(?:ed|ing)|replac(?:ed|ing)|"
    # a past habit, not "got used to" (grew accustomed)
    r"(?<!get )(?<!got )(?<!gets )(?<!getting )(?<!be )(?<!been )(?<!'m )(?<!am )(?<!is )(?<!are )(?<!was )(?<!were )used to|"
    # "updated my address", not "keep you updated" (keep someone informed)
    r"(?<!you )(?<!me )(?<!us )(?<!them )(?<!him )(?<!her )updated?|"
    r"swapp?(?:ed|ing)|ditch(?:ed|ing)|quit|upgrad(?:ed|ing)|"
    r"downgrad(?:ed|ing)|relocat(?:ed|ing)|renam(?:ed|ing)|gone back to)|not \w+ any ?more|no more)\b|"
    r"(?<!到)现在(?!就)|如今|目前|(?<![点号天月年周时分钟后])以后|今后|从此|不再|已经不|换成|换了|换到|换用|换掉|搬到|搬去|搬家|搬了|搬好|迁到|迁移|迁往|升级|"
    r"挪到|调到|调去|调往|转到|转用|变成|变了|"
    # 改 before a verb says what is done instead (改用, 改学, 改喝, 改去, 改回); 修改, 改善, 改进 ... edit or improve
    r"(?<![修更篡])改(?=[\u4e00-\u9fff])(?![善进革良正造装编写稿动])", re.I)
#: words that say a value did not change: such a statement confirms, it never replaces
CONTINUITY = re.compile(r"\b(?:still|as always|as usual|same as (?:before|always))\b|仍然|仍旧|依然|"
                        r"(?<!最后)(?<!最终)(?<!后来)还是|照旧|一直", re.I)
#: the speaker or their side: I, we, my, our, 我, 我们
_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|us|our|ours)\b|我", re.I)
#: a third party named by a pronoun: he, she, they, their, 他, 她, 他们
_THIRD_PERSON = re.compile(r"\b(?:he|she|they|he's|she's|they're|they've|his|her|hers|their|theirs|him|them)\b|"
                           r"他|她", re.I)


def _body(text: str) -> str:
    return SPEAKER_LABEL.sub("", text, count=1).strip()


def asks(text: str) -> bool:
    """A question: it states nothing."""
    body = _body(text)
    return bool(_QUESTION_MARK.search(body) or _QUESTION_OPENING.match(body) or _ZH_QUESTION.search(body))


def supposes(text: str) -> bool:
    """A conditional, a wish, a plan or a possibility: something that does not hold (yet)."""
    return bool(_SUPPOSES.search(_body(text)))


def quotes(text: str) -> bool:
    """Quoted or reported speech: someone's words repeated, not the speaker's assertion. A quoted name (sign it
    "The Leafy Team", 落款写“花语小铺”) is no one's words (`_NAME_IN_QUOTES`)."""
    body = _QUOTE_PAIRS.sub(lambda m: " " if _NAME_IN_QUOTES.fullmatch(m.group(0)) else m.group(0), _body(text))
    return bool(_QUOTE_PAIRS.search(body) or _REPORTED.search(body))


def about_someone_else(text: str) -> bool:
    """The sentence's subject is another person (a third-person pronoun, a relative, a colleague)."""
    body = _body(text)
    return bool(_OTHER_SUBJECT_EN.match(body) or _OTHER_SUBJECT_ZH.match(body))


#: the name that may follow the noun naming someone: "My son Leo", "My manager is Olivia Chen", "女儿朵朵"
_NAME_AFTER_EN = re.compile(r"(?:'s)?\s+(?:(?:is|was)\s+)?([A-Z][\w-]+)")
_NAME_AFTER_ZH = re.compile(r"[\u4e00-\u9fff]{1,2}")


def other_person(text: str) -> tuple[str, ...]:
    """How a text that is about someone else names them: the noun or pronoun it opens with and the name right
    after it ("My son Leo" -> ("My son", "Leo")), or () when it is not about someone else."""
    body = _body(text)
    for pattern, after in ((_OTHER_SUBJECT_EN, _NAME_AFTER_EN), (_OTHER_SUBJECT_ZH, _NAME_AFTER_ZH)):
        m = pattern.match(body)
        if m and m.groupdict().get("name"):
            return (m.group("name"),)
        if m:
            name = after.match(body, m.end())
            person = m.group(0).strip().split()[-1] if pattern is _OTHER_SUBJECT_EN else m.group(0).strip()
            return (person,) + ((name.group(name.lastindex or 0),) if name else ())
    return ()


def names_any(text: str, words: tuple[str, ...]) -> bool:
    """Whether a text names one of `words` (whole words for Latin script)."""
    body = _body(text)
    return any(re.search(rf"\b{re.escape(w)}\b", body, re.I) if w.isascii() else w in body for w in words)


def why_not(text: str) -> str | None:
    """Why a text asserts nothing of its speaker ("a question", "a conditional or a wish", ...), or None."""
    for check, reason in ((asks, "a question"), (quotes, "quoted or reported speech"),
                          (supposes, "a conditional, a wish or a plan"),
                          (about_someone_else, "about someone else")):
        if check(text):
            return reason
    return None


def asserts(text: str) -> bool:
    """The speaker asserts something of themselves or of what is theirs (`why_not` is None)."""
    return why_not(text) is None


def marks_change(text: str) -> bool:
    """The statement says a value changed ("now", "switched to", "不再", "改用") and not that it stayed."""
    body = _body(text)
    return bool(CHANGE.search(body)) and not CONTINUITY.search(body)


def without_markers(text: str) -> str:
    """The text with its change and continuity words blanked out: what is left names the values."""
    return CONTINUITY.sub(" ", CHANGE.sub(" ", text))


#: speech reported without quote marks: "she says her dad is an astronaut", "同事说微信输入法挺好用"
_REPORTED_CLAUSE = re.compile(
    r"\b(?:says?|said|saying|claims?|claimed|claiming|swears?|swore|tells? me|told me)\s+(?:that\s+)?"
    r"(?:he|she|they|it|his|her|their|there)\b|"
    r"(?<![小听据话我])说(?=[^，。！？,.!?]{2,})(?![了过完好实真白])", re.I)


def reports(text: str) -> bool:
    """Someone's words repeated, quoted or not ("Leo said his friend is moving", "我妈说她想去学书法"); unlike
    `quotes`, a quoted name ("the podcast "Hard Fork"", “小满影像”) is no one's words."""
    body = _body(text)
    spans = [m.group(0) for m in _QUOTE_PAIRS.finditer(body)]
    return any(not _NAME_IN_QUOTES.fullmatch(span) for span in spans) or bool(_REPORTED.search(body)) or \
        bool(_REPORTED_CLAUSE.search(body))


#: where one sentence ends and the next begins: a sentence mark (a full stop only before a space, so "4.5" and
#: "v2.1" stay whole)
_SENTENCE_BREAK = re.compile(r"(?<=[!?。！？；;])\s*|(?<=\.)\s+")


#: where one full sentence ends (a semicolon joins two clauses of one sentence)
_FULL_STOP = re.compile(r"(?<=[!?。！？])\s*|(?<=\.)\s+")


def sentences(text: str) -> list[str]:
    """The full sentences of a text ("Sold the Civic. I'm driving a Yaris now." -> two)."""
    return [s for s in _FULL_STOP.split(_body(text)) if s.strip()]


def change_sentences(text: str) -> list[str]:
    """The sentences of a text that carry a change word ("You know what? My best friend is moving to Leeds." ->
    the second): what a change of mind says is read there, not in a question or aside around it."""
    return [s for s in _SENTENCE_BREAK.split(_body(text)) if s.strip() and CHANGE.search(s)]


#: the listener or a third person as the one a clause is about: "you", "your", "they're", "his"; 你, 他, 她
_OTHER_IN_CLAUSE = re.compile(r"\b(?:you|you're|you've|you'd|you'll|your|he|she|they|he's|she's|they're|they've|"
                              r"his|her|him|their|them)\b|你|您|他|她", re.I)


def _clause_about_someone_else(clause: str) -> bool:
    """A clause about the listener or a third person, with no word for the speaker: "even though you can't volunteer
    at the shelter anymore", "now they're always together", "你现在不去了"."""
    return bool(_OTHER_IN_CLAUSE.search(clause)) and not _FIRST_PERSON.search(clause)


def change_about_someone_else(text: str) -> bool:
    """Every sentence that says something changed is about another person (`about_someone_else`), or its clauses
    with a change word are (`_clause_about_someone_else`): "you transformed by changing your mindset"."""
    found = change_sentences(text)
    return bool(found) and all(about_someone_else(s) or all(_clause_about_someone_else(c) for c in change_clauses(s))
                               for s in found)


#: the end of a clause: what is reported after it ("书名改了，现在叫《风过雁门》，编辑说更有气势") is another statement
_CLAUSE_END = re.compile(r"[,，;；:：.!?。！？]")


def reports_change(text: str) -> bool:
    """The change a text tells is someone's words (`reports`), read up to the end of the clause of its last change
    word: a report that opens a later clause (", my editor says it's punchier") is about something else."""
    body = _body(text)
    if any(not _NAME_IN_QUOTES.fullmatch(m.group(0)) for m in _QUOTE_PAIRS.finditer(body)):
        return True  # a quoted sentence anywhere: its clauses are someone's words
    last = None
    for last in CHANGE.finditer(body):
        pass
    if last is None:
        return reports(body)
    end = _CLAUSE_END.search(body, last.end())
    return reports(body[:end.start() if end else len(body)])


#: verbs of feeling and knowing: a clause built on one tells the speaker's state of mind at that moment ("now I feel
#: so regretful"), not a value that holds until it changes
_STATE_OF_MIND = re.compile(r"\b(?:feel|feels|felt|feeling|think|thinks|know|knows|knew|remember|remembers)\b|"
                            r"感觉|感到|感受|觉得|知道|记得|心情", re.I)
#: where a clause ends inside a sentence: a clause mark, or a conjunction that joins two clauses
_CLAUSE_BREAK = re.compile(r"[,，;；:：.!?。！？—]+|\s(?:and|but|so|because)\s|但是|可是|所以|因为", re.I)


def change_clauses(text: str) -> list[str]:
    """The clauses of a text that carry a change word (`CHANGE`)."""
    return [c for c in _CLAUSE_BREAK.split(_body(text)) if CHANGE.search(c)]


def change_is_state_of_mind(text: str) -> bool:
    """Every clause that carries a change word tells a feeling or a thought (`_STATE_OF_MIND`): "I feel much
    better now"; a feeling in another clause than the change leaves the change standing."""
    found = change_clauses(text)
    return bool(found) and all(_STATE_OF_MIND.search(c) for c in found)


def speaks_of_self(text: str) -> bool:
    """The speaker or their side is named (I, we, our, 我, 我们)."""
    return bool(_FIRST_PERSON.search(_body(text)))


def speaks_of_others(text: str) -> bool:
    """A third party is named by a pronoun (he, they, their, 他, 她)."""
    return bool(_THIRD_PERSON.search(_body(text)))


#: how long the state a clause tells has held, up to now ("for two years now", 三年了): its "now" ends a span, the
#: state began that long ago and has continued since
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a few": 3,
                 "few": 3, "several": 3, "many": 3, "": 2,
                 "一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
                 "半": 0.5, "几": 3, "好几": 3, "很多": 3, "多": 3}
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365, "decade": 3650,
              "天": 1, "日": 1, "周": 7, "星期": 7, "礼拜": 7, "月": 30, "年": 365}
#: (a number of at most four digits or numerals: unbounded, a text of 32,000 digits or 多 took quadratic time)
_HELD_FOR = re.compile(
    r"\b(?:for\s+)?(?:(?:about|around|almost|nearly|roughly|over|more than|just under|just over|close to)\s+)?"
    r"(?P<n>\d{1,4}|a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|few|several|"
    r"many|)\s{0,4}(?P<unit>day|week|month|year|decade)s?\s+now\b|"
    r"(?P<zn>\d{1,4}|好几|很多|[一二两三四五六七八九十几半多]{1,4})(?:个)?(?:多)?(?P<zunit>天|日|周|星期|礼拜|月|年)(?:多)?了|"
    # a span of no stated length ("for a while now", "for ages now", 好久了): it may have begun at any time
    r"\bfor\s+(?P<vague>a while|some time|ages|a long time|so long)\s+now\b|(?P<zvague>很久|好久)了", re.I)
#: the change words that say only "up to this moment": with a span of holding they mark no change
_NOW = re.compile(r"\bnow\b|现在|如今|目前", re.I)


def _days(number: str, unit: str) -> float:
    number = number.lower()
    if number.isdigit():
        return int(number) * _UNIT_DAYS[unit.lower()]
    if number in _NUMBER_WORDS:
        return _NUMBER_WORDS[number] * _UNIT_DAYS[unit.lower()]
    value = sum(_NUMBER_WORDS.get(ch, 0) for ch in number) or 1  # 十二 -> 12 (near enough), 两 -> 2
    return value * _UNIT_DAYS[unit]


def held_for_days(text: str) -> float | None:
    """How long, in days, a text says its state has held up to now (infinite for a span of no stated length), when
    that is all its change words say: every clause with a change word tells a span of holding and has no other
    change word. Such a state replaces only what was said before it began (`rules.change_refused`); None else."""
    longest = None
    for clause in change_clauses(text):
        spans = list(_HELD_FOR.finditer(clause))
        if not spans:
            return None
        rest = _NOW.sub(" ", _HELD_FOR.sub(" ", clause))
        if CHANGE.search(rest):
            return None
        for m in spans:
            days = float("inf") if m.group("vague") or m.group("zvague") else \
                _days(m.group("n"), m.group("unit")) if m.group("unit") else _days(m.group("zn"), m.group("zunit"))
            longest = max(longest or 0.0, days)
    return longest


def past_habit_clauses(text: str) -> list[str]:
    """The clauses with a change word, when every change word of the text tells a past habit ("used to"): such a
    text names no new value, so it can end only a statement of that same thing (`rules.change_refused`); [] when
    another change word is there ("I used to drive, now I cycle")."""
    found = change_clauses(text)
    if not found or any(m.group(0).lower() != "used to" for c in found for m in CHANGE.finditer(c)):
        return []
    return found
