"""Folding text for the audit, and the tricks used to hide things in it.

`normalise` applies NFKC, strips invisible characters, folds each word that reads as Latin to its skeleton (Unicode's
confusables; a word wholly in one other script is kept), joins spaced letters and Chinese characters, lower-cases,
collapses whitespace, and counts each trick it undid. Text hidden in tag characters or variation selectors is decoded,
and `decode_base64_runs` finds base64 runs that decode to text; each hidden layer is screened like the visible text.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

_TAG_RANGE = (0xE0000, 0xE007F)
_FLAG_TAGS = re.compile("\U0001F3F4[\U000E0030-\U000E0039\U000E0061-\U000E007A]{2,7}\U000E007F")
_INVISIBLE = frozenset(
    [0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180E, 0x200B, 0x200C, 0x200D, 0x200E, 0x200F,
     0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0x3164, 0xFEFF, 0xFFA0]
    + list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A)))
_BIDI = frozenset(list(range(0x202A, 0x202F)) + list(range(0x2066, 0x206A)))
_VARIATION = frozenset(list(range(0xFE00, 0xFE10)) + list(range(0xE0100, 0xE01F0)))
#: any character the per-character pass looks at (invisible, variation selector, tag): text without one skips it
_HIDING = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(_INVISIBLE)) +
                     "\uFE00-\uFE0F\U000E0100-\U000E01EF\U000E0000-\U000E007F]")


def _confusables() -> dict[str, str]:
    """The characters that look like a Latin letter, and that letter (`confusables.txt`, from Unicode's
    confusables data: scripts/confusables.py)."""
    table = {}
    for line in (Path(__file__).with_name("confusables.txt")).read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            code, letter, _ = line.split("\t", 2)
            table[chr(int(code, 16))] = letter
    return table


#: a word's letters as the Latin ones they look like (its skeleton, UTS #39, restricted to Latin targets)
_SKELETON = str.maketrans({**_confusables(), "ε": "e", "κ": "k", "τ": "t"})
_WORD = re.compile(r"\w+")
_ASCII_LETTER = re.compile(r"[a-zA-Z]")
_SPACED_LETTERS = re.compile(r"(?<![a-z])(?:[a-z][ .\-_*·]){3,}[a-z](?![a-z])")
#: Chinese characters with a space (or a dot) between each: Chinese puts none, so the spacing only hides words
_SPACED_HAN = re.compile(r"(?:[\u3400-\u9fff][ .\-_*·]+){3,}[\u3400-\u9fff]")
_SPACER = re.compile(r"[ .\-_*·]+")
_WS = re.compile(r"[^\S\n]+")
_NEWLINES = re.compile(r"\s*\n\s*")
_B64_RUN = re.compile(r"(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=_-])")


def _script(char: str) -> str:
    """The script a letter belongs to, as its Unicode name begins ("LATIN", "CYRILLIC", "ARMENIAN", …)."""
    return unicodedata.name(char, "?").split(" ", 1)[0]


def _collapse(text: str) -> str:
    """Collapse runs of spaces, keep line breaks (role labels are recognised at a line start)."""
    return _NEWLINES.sub("\n", _WS.sub(" ", text)).strip()


def _is_word_char(ch: str) -> bool:
    """Letters of scripts where an invisible character has no business inside a word."""
    cp = ord(ch)
    return (ch.isascii() and ch.isalnum()) or 0xC0 <= cp <= 0x24F or 0x370 <= cp <= 0x4FF or \
        0x3400 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF


@dataclass(frozen=True)
class Normalised:
    """What the audit screens: the folded text plus the structural signals found on the way."""

    text: str                         # folded: NFKC, invisibles stripped, look-alikes folded, lower-cased
    naive: str                        # lower-cased only: what a plain filter would see
    cased: str                        # NFKC, invisibles stripped, case kept (for base64)
    hidden: str = ""                  # text carried by Unicode tag characters
    smuggled: str = ""                # text carried by runs of variation selectors
    tag_chars: int = 0
    invisible_in_words: int = 0
    bidi_controls: int = 0
    mixed_script_words: int = 0


def _decode_tags(chars: Iterable[str]) -> str:
    return "".join(chr(ord(c) - 0xE0000) for c in chars if 0xE0020 <= ord(c) <= 0xE007E)


def _decode_variation_run(run: str) -> str:
    """Variation selectors as bytes (FE00..FE0F = 0..15, E0100..E01EF = 16..255), the known smuggling scheme."""
    data = bytes(ord(c) - 0xFE00 if ord(c) < 0xFE10 else ord(c) - 0xE0100 + 16 for c in run)
    return data.decode("utf-8", errors="ignore")


def normalise(text: str) -> Normalised:
    """Fold `text` for matching and count the tricks used to hide things in it."""
    body = _FLAG_TAGS.sub("\U0001F3F4", text)  # subdivision flags (Scotland, Wales) legitimately use tags
    if _HIDING.search(body) is None:  # nothing hidden: the pass below would keep every character
        return _folded(text, unicodedata.normalize("NFKC", body), [], [], 0, 0)
    tags = [c for c in body if _TAG_RANGE[0] <= ord(c) <= _TAG_RANGE[1]]
    smuggled, run, kept = [], [], []
    invisible_in_words = bidi = 0
    visible = [c for c in body if not (_TAG_RANGE[0] <= ord(c) <= _TAG_RANGE[1])]
    following = [""] * len(visible)  # the next character that is not invisible, for each position
    for i in range(len(visible) - 2, -1, -1):
        nxt = visible[i + 1]
        following[i] = following[i + 1] if ord(nxt) in _INVISIBLE else nxt
    before = ""
    for i, ch in enumerate(visible):
        cp = ord(ch)
        if cp in _VARIATION:
            run.append(ch)
            continue
        if len(run) >= 2:  # one selector after an emoji is normal; a run of them carries data
            smuggled.append(_decode_variation_run("".join(run)))
        run = []
        if cp in _INVISIBLE:
            bidi += cp in _BIDI
            if before and following[i] and _is_word_char(before) and _is_word_char(following[i]):
                invisible_in_words += 1
            continue
        before = ch
        kept.append(ch)
    if len(run) >= 2:
        smuggled.append(_decode_variation_run("".join(run)))
    return _folded(text, unicodedata.normalize("NFKC", "".join(kept)), tags, smuggled, invisible_in_words, bidi)


def _folded(text: str, cased: str, tags: list[str], smuggled: list[str], invisible_in_words: int,
            bidi: int) -> Normalised:
    """The rest of `normalise`, once the invisible characters are out: look-alikes, case, spacing."""
    mixed = 0

    def fold(match: re.Match[str]) -> str:
        nonlocal mixed
        word = match.group(0)
        if word.isascii():
            return word
        folded = word.translate(_SKELETON)
        if folded == word:
            return word
        scripts = {_script(c) for c in word if not c.isascii() and c.isalpha()}
        latin = bool(_ASCII_LETTER.search(word)) or "LATIN" in scripts
        if not latin and len(scripts) < 2:  # a word of one other script is a word of that language, not a disguise
            return word
        mixed += bool(scripts - {"LATIN"})  # Latin mixed with another script (a Latin alpha or a dotless i is not)
        return folded

    folded = (cased if cased.isascii() else _WORD.sub(fold, cased)).casefold()  # ASCII words fold to themselves
    folded = _SPACED_LETTERS.sub(lambda m: _SPACER.sub("", m.group(0)), folded)
    if not folded.isascii():
        folded = _SPACED_HAN.sub(lambda m: _SPACER.sub("", m.group(0)), folded)
    return Normalised(
        text=_collapse(folded), naive=_collapse(text.casefold()), cased=cased,
        hidden=_decode_tags(tags), smuggled=" ".join(s for s in smuggled if s.strip()), tag_chars=len(tags),
        invisible_in_words=invisible_in_words, bidi_controls=bidi, mixed_script_words=mixed)


def decode_base64_runs(text: str, *, min_letters: int = 6) -> list[str]:
    """The base64 (or base64url) runs in `text` that decode to readable UTF-8 text."""
    out = []
    for match in _B64_RUN.finditer(text):
        run = match.group(0)
        padded = run + "=" * (-len(run) % 4)
        try:
            raw = base64.b64decode(padded.replace("-", "+").replace("_", "/"), validate=True)
            decoded = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        printable = sum(ch.isprintable() or ch in "\n\t" for ch in decoded)
        letters = sum(ch.isalpha() for ch in decoded)
        if decoded and printable / len(decoded) >= 0.95 and letters >= min_letters and (
                " " in decoded or any(0x3400 <= ord(c) <= 0x9FFF for c in decoded)):
            out.append(decoded)
    return out
