"""Text handling: validation of what callers send, a summary line, and BM25 tokens.

The keyword tokenizer works for English and Chinese alike: Latin words are lower-cased, stripped of a few English
suffixes and stop words; runs of CJK characters become their characters plus overlapping bigrams.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal, overload

from ..errors import EmptyTextError, InvalidInputError, InvalidUserIdError, TextTooLargeError

# C0/C1 controls except tab, newline and carriage return; they have no place in memory text.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)
_CJK_RUN = re.compile(rf"^[{_CJK}]+$")
#: one Chinese character (CJK unified ideographs and extension A): what tells Chinese text from Latin script
HAN_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s*")

STOP_WORDS = frozenset(
    """a an the and or but if of to in on at by for with from as is are was were be been being
    do does did have has had i me my we our you your he him his she her it its they them their
    this that these those there here what which who whom whose when where why how not no so than
    too very can will just would should could shall may might must am im ive id ill youre
    about into over after before again then once all any both each few more most other some such
    only own same up down out off under further s t don""".split()
)


def validate_text(text: object, *, max_bytes: int, what: str = "text") -> str:
    """Check and clean text a caller wants stored or searched; returns the cleaned text.

    Control characters are removed (tab and newlines kept), Unicode is NFC-normalised.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"{what} must be a str, got {type(text).__name__}")
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > max_bytes:
        raise TextTooLargeError(
            f"{what} is {size:,} bytes; the limit is {max_bytes:,} bytes. "
            "Split it into smaller memories or raise Limits.max_text_bytes."
        )
    try:
        cleaned = unicodedata.normalize("NFC", _CONTROL.sub("", text))
        cleaned.encode("utf-8")
    except UnicodeError as exc:
        raise InvalidInputError(f"{what} is not valid Unicode text: {exc}") from None
    if not cleaned.strip():
        raise EmptyTextError(f"{what} is empty; there is nothing to remember or search for")
    return cleaned.strip()


_WILDCARDS = frozenset({"*", "?", "%", "all", "any", "everyone", "*/*", ".*", "_"})


def normalise_id(value: str) -> str:
    """An id as hindsight keys it: NFC ("café" typed composed or decomposed is one id), nothing else folded."""
    return unicodedata.normalize("NFC", value)


@overload
def validate_id(value: object, *, what: str = ..., max_chars: int = ..., required: Literal[True] = ...) -> str: ...
@overload
def validate_id(value: object, *, what: str = ..., max_chars: int = ..., required: bool) -> str | None: ...
def validate_id(value: object, *, what: str = "user_id", max_chars: int = 256, required: bool = True) -> str | None:
    """Check an id: a non-empty string, no control characters, no wildcard look-alikes.

    Ids are NFC-normalised, then compared exactly: 'Alice' and 'alice' are two users, and so are a Latin 'a' and a
    Cyrillic 'а'.
    """
    if value is None:
        if required:
            raise InvalidUserIdError(f"{what} is required: hindsight never searches across users")
        return None
    if not isinstance(value, str):
        raise InvalidUserIdError(f"{what} must be a str, got {type(value).__name__}")
    value = normalise_id(value)
    if not value.strip():
        raise InvalidUserIdError(f"{what} is empty")
    if len(value) > max_chars:
        raise InvalidUserIdError(f"{what} is longer than {max_chars} characters")
    if any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn") for ch in value):
        raise InvalidUserIdError(f"{what} {value!r} contains control or invisible characters")
    if value != value.strip():
        raise InvalidUserIdError(f"{what} {value!r} has leading or trailing whitespace")
    if value.strip().lower() in _WILDCARDS or set(value) <= set("*?%._ "):
        raise InvalidUserIdError(f"{what} {value!r} looks like a wildcard; name one user")
    return value


def summarize_line(text: str, max_chars: int = 200) -> str:
    """One short line for the summary field: the first sentence, cut at a word boundary."""
    flat = " ".join(text.split())
    first = _SENTENCE_END.split(flat, maxsplit=1)[0] or flat
    if len(first) < 40 and len(flat) > len(first):
        first = flat  # a very short opener ("Hi!") says little; keep going
    if len(first) <= max_chars:
        return first
    cut = first[: max_chars - 1]
    if " " in cut[max_chars // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut + "…"


def _stem(word: str) -> str:
    """A light English suffix stripper: enough to match 'prints'/'printing'/'printed'."""
    if len(word) <= 3 or not word.isascii():
        return word
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""), ("ly", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            if suffix == "s" and word.endswith("ss"):
                return word
            return word[: -len(suffix)] + keep
    return word


def is_cjk(text: str) -> bool:
    """Whether `text` is a run of CJK characters only (Chinese, Japanese kana, Korean)."""
    return bool(_CJK_RUN.match(text))


def keyword_tokens(text: str) -> list[str]:
    """Tokens for the BM25 channel (English words stemmed, CJK as unigrams + bigrams)."""
    tokens: list[str] = []
    for match in _TOKEN.finditer(unicodedata.normalize("NFKC", text).lower()):
        piece = match.group(0).replace("’", "'")
        if _CJK_RUN.match(piece):
            tokens.extend(piece)
            tokens.extend(piece[i : i + 2] for i in range(len(piece) - 1))
            continue
        piece = piece.split("'")[0] if piece.endswith(("'s", "'t", "'re", "'ll", "'ve", "'m", "'d")) else piece
        if piece in STOP_WORDS:
            continue
        tokens.append(_stem(piece))
    return tokens
