"""Reading LoCoMo-shaped files: conversations, turns with their session dates, questions with clean evidence.

The schema (snap-research/LoCoMo, `data/locomo10.json`) is a list of samples:
`{"sample_id", "conversation": {"speaker_a", "speaker_b", "session_N": [turn, ...],
"session_N_date_time": "1:56 pm on 8 May, 2023", ...}, "qa": [{"question", "answer" |
"adversarial_answer", "evidence": ["D1:3", ...], "category"}]}`; a turn is
`{"speaker", "dia_id", "text"}` and may carry `blip_caption` (a caption of a shared image).

Evidence ids are cleaned where the intent is unambiguous: "D8:6; D9:17" and
"D9:1 D4:4" are split, "D:11:26" becomes "D11:26", "D30:05" becomes "D30:5".
Ids that still name no turn of the conversation ("D", or a turn that does not
exist) are dropped and counted, so every system is scored on the same evidence.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
TEXT_FORMATS = ("plain", "speaker", "speaker_date")

_SESSION = re.compile(r"session_(\d+)")
_DATE = re.compile(r"\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*", re.I)
_MONTHS = {m: i for i, m in enumerate(["january", "february", "march", "april", "may", "june", "july", "august",
                                         "september", "october", "november", "december"], 1)}
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")


class LocomoFormatError(ValueError):
    """The file is not in LoCoMo's schema; the message says where."""


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    caption: str | None
    session: int
    timestamp: datetime


@dataclass(frozen=True)
class Question:
    question: str
    category: int
    evidence: tuple[str, ...]
    dropped_evidence: tuple[str, ...] = ()


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    speaker_a: str
    speaker_b: str
    turns: tuple[Turn, ...]
    questions: tuple[Question, ...]

    @property
    def last_time(self) -> datetime:
        return max(t.timestamp for t in self.turns)


def parse_session_date(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware UTC datetime (LoCoMo gives no zone; UTC is as good as any)."""
    match = _DATE.fullmatch(text or "")
    month = _MONTHS.get(match.group(5).lower()) if match else None
    if match is None or month is None:
        raise LocomoFormatError(f"session date {text!r} is not like '1:56 pm on 8 May, 2023'")
    hour = int(match.group(1)) % 12 + (12 if match.group(3).lower() == "p" else 0)
    return datetime(int(match.group(6)), month, int(match.group(4)), hour, int(match.group(2)), tzinfo=timezone.utc)


def normalise_evidence(raw: list[Any], known: set[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(clean ids in order, dropped pieces) for one question's evidence list."""
    clean: list[str] = []
    dropped: list[str] = []
    for entry in raw or []:
        for piece in re.split(r"[;,\s]+", str(entry).strip()):
            if not piece:
                continue
            match = _EVIDENCE.fullmatch(piece)
            dia_id = f"D{int(match.group(1))}:{int(match.group(2))}" if match else None
            if dia_id in known:
                if dia_id not in clean:
                    clean.append(dia_id)
            else:
                dropped.append(piece)
    return tuple(clean), tuple(dropped)


def _require(mapping: Any, key: str, where: str) -> Any:
    if not isinstance(mapping, dict) or key not in mapping:
        raise LocomoFormatError(f"{where}: missing {key!r}")
    return mapping[key]


def parse_sample(sample: dict[str, Any], position: int) -> Conversation:
    sample_id = str(sample.get("sample_id", f"sample-{position}"))
    conv = _require(sample, "conversation", sample_id)
    speaker_a, speaker_b = _require(conv, "speaker_a", sample_id), _require(conv, "speaker_b", sample_id)
    turns: list[Turn] = []
    sessions = sorted((int(m.group(1)), key) for key in conv if (m := _SESSION.fullmatch(key)))
    for number, key in sessions:
        when = parse_session_date(_require(conv, f"{key}_date_time", sample_id))
        for i, turn in enumerate(conv[key] or []):
            where = f"{sample_id} {key} turn {i}"
            text = _require(turn, "text", where)
            if not isinstance(text, str):
                raise LocomoFormatError(f"{where}: text must be a string")
            turns.append(Turn(str(_require(turn, "dia_id", where)), str(_require(turn, "speaker", where)), text,
                              turn.get("blip_caption") or None, number, when))
    if not turns:
        raise LocomoFormatError(f"{sample_id}: no session_N turns")
    known = {t.dia_id for t in turns}
    questions = []
    for i, qa in enumerate(sample.get("qa") or []):
        where = f"{sample_id} qa {i}"
        evidence, dropped = normalise_evidence(qa.get("evidence") or [], known)
        questions.append(Question(str(_require(qa, "question", where)), int(_require(qa, "category", where)),
                                  evidence, dropped))
    return Conversation(sample_id, str(speaker_a), str(speaker_b), tuple(turns), tuple(questions))


def load_locomo(path: str | Path, limit: int | None = None) -> list[Conversation]:
    """The conversations of a LoCoMo-shaped JSON file (the first `limit` of them, if given)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LocomoFormatError(f"no such file: {path} (LoCoMo is at ../shared/benchmarks/locomo10.json)") from None
    except json.JSONDecodeError as exc:
        raise LocomoFormatError(f"{path} is not JSON: {exc}") from None
    if not isinstance(data, list):
        raise LocomoFormatError(f"{path}: expected a list of samples, got {type(data).__name__}")
    return [parse_sample(sample, i) for i, sample in enumerate(data[:limit] if limit else data)]


def turn_text(turn: Turn, fmt: str = "speaker", *, caption: bool = True) -> str:
    """The text a system is given for one turn: 'plain', 'speaker' ("Name: text") or 'speaker_date'."""
    if fmt not in TEXT_FORMATS:
        raise ValueError(f"text format {fmt!r}; choose from {TEXT_FORMATS}")
    body = turn.text.strip()
    if caption and turn.caption:
        body = f"{body} [shared a photo: {turn.caption.strip()}]"
    if fmt == "plain":
        return body
    if fmt == "speaker":
        return f"{turn.speaker}: {body}"
    return f"[{turn.timestamp:%-d %B %Y}] {turn.speaker}: {body}"


def history_text(conversation: Conversation) -> str:
    """The whole conversation as a prompt would carry it: one '[date] speaker: text' line a turn."""
    return "\n".join(turn_text(t, "speaker_date") for t in conversation.turns)
