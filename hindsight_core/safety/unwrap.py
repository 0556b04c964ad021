"""The layers a text can hide an instruction under, peeled off so the rules see what a model would read.

    unwrap_layers(text) -> [("url", ...), ("html", ...), ("json", ...), ("markdown", ...)]

Each layer is returned only when decoding changes the text: percent-encoding (decoded up to three times), HTML character
references and tags, a JSON document read as the words in its strings (keys included), markdown syntax. The write audit
(`screening.scan`) screens each layer like the visible text. Decoding is bounded (the write path's text limit, JSON
walked without recursion, nothing decoded more than three times).
"""

from __future__ import annotations

import html
import json
import re
from urllib.parse import unquote_plus

_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_ENTITY = re.compile(r"&(?:#\d{1,7}|#x[0-9A-Fa-f]{1,6}|[A-Za-z]{2,10});")
_TAG = re.compile(r"<\s*/?\s*[A-Za-z][^<>]{0,300}>")
_JSON_START = re.compile(r"[\[{]")
_FENCE = re.compile(r"```[^\n`]*\n?|~~~[^\n]*\n?")
_INLINE_CODE = re.compile(r"`+([^`]{0,500})`+")
_LINK = re.compile(r"!?\[([^\]]{0,300})\]\(([^)\s]{0,500})(?:\s+\"[^\"]{0,200}\")?\)")
_EMPHASIS = re.compile(r"(\*{1,3}|_{2,3}|~~)(?=\S)(.{1,300}?)(?<=\S)\1")
_LINE_MARK = re.compile(r"^[ \t]{0,3}(?:#{1,6}|>+|[-*+]|\d{1,3}[.)])[ \t]+", re.M)
_MAX_JSON_STRINGS = 2_000


def url_layer(text: str) -> str | None:
    if not _PERCENT.search(text):
        return None
    decoded = text
    for _ in range(3):
        step = unquote_plus(decoded) if "%" in decoded else decoded
        if step == decoded:
            break
        decoded = step
    return decoded if decoded != text else None


def html_layer(text: str) -> str | None:
    if not (_ENTITY.search(text) or _TAG.search(text)):
        return None
    decoded = text
    for _ in range(3):
        step = _TAG.sub(" ", html.unescape(decoded))
        if step == decoded:
            break
        decoded = step
    decoded = " ".join(decoded.split())
    return decoded if decoded != " ".join(text.split()) else None


def json_strings(value: object) -> list[str]:
    """The strings in a JSON value (keys and values, in order), walked without recursion."""
    out: list[str] = []
    stack = [value]
    while stack and len(out) < _MAX_JSON_STRINGS:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            for key, inner in reversed(list(item.items())):
                stack.append(inner)
                stack.append(key)
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return out


def json_layer(text: str) -> str | None:
    start = _JSON_START.search(text)
    if start is None:
        return None
    decoder = json.JSONDecoder()
    pieces: list[str] = []
    position, attempts = start.start(), 0
    while position < len(text) and attempts < 20:  # bounded: a run of brackets costs 20 tries, not one per bracket
        attempts += 1
        try:
            value, end = decoder.raw_decode(text, position)
        except (ValueError, RecursionError):
            following = _JSON_START.search(text, position + 1)
            if following is None:
                break
            position = following.start()
            continue
        if isinstance(value, (dict, list)):
            pieces.extend(json_strings(value))
        following = _JSON_START.search(text, end)
        if following is None:
            break
        position = following.start()
    words = ". ".join(p.strip() for p in pieces if p.strip())
    return words or None


def markdown_layer(text: str) -> str | None:
    if not any(mark in text for mark in ("`", "](", "**", "__", "~~", "#", ">", "* ", "- ")):
        return None
    decoded = _FENCE.sub("\n", text)
    decoded = _INLINE_CODE.sub(r"\1", decoded)
    decoded = _LINK.sub(r"\1 \2", decoded)
    for _ in range(2):
        decoded = _EMPHASIS.sub(r"\2", decoded)
    decoded = _LINE_MARK.sub("", decoded)
    decoded = " ".join(decoded.split())
    return decoded if decoded != " ".join(text.split()) else None


def unwrap_layers(text: str) -> list[tuple[str, str]]:
    """(layer name, decoded text) for each encoding or wrapping found in `text`."""
    out = []
    for name, peel in (("url", url_layer), ("html", html_layer), ("json", json_layer), ("markdown", markdown_layer)):
        decoded = peel(text)
        if decoded and decoded.strip():
            out.append((name, decoded))
    return out
