"""HTML built from values that are escaped unless marked safe: memory texts may be hostile.

Every `str` passed to `el` (as a child or an attribute value) is escaped; only `Safe` strings, which `el` returns,
go in as they are, so a page is escaped by construction.
"""

from __future__ import annotations

import html
from typing import Any, Iterable

#: elements without a closing tag
_VOID = {"br", "hr", "img", "input", "link", "meta"}


class Safe(str):
    """A string of HTML that is already escaped."""


def escape(value: Any) -> Safe:
    """`value` as HTML text: itself if already `Safe`, else escaped (quotes included)."""
    if isinstance(value, Safe):
        return value
    return Safe(html.escape(str(value), quote=True))


def _children(items: Iterable[Any]) -> Iterable[Safe]:
    for item in items:
        if item is None or item is False:
            continue
        if isinstance(item, (list, tuple)) or (not isinstance(item, str) and hasattr(item, "__iter__")):
            yield from _children(item)
        else:
            yield escape(item)


def _attribute(name: str, value: Any) -> str:
    name = name.rstrip("_").replace("_", "-")
    if value is True:
        return f" {name}"
    return f' {name}="{escape(value)}"'


def el(tag: str, *children: Any, **attrs: Any) -> Safe:
    """One element: `el("a", "text", href="/x", class_="c")`; None and False attributes are left out."""
    opened = f"<{tag}" + "".join(_attribute(k, v) for k, v in attrs.items() if v is not None and v is not False)
    if tag in _VOID:
        return Safe(opened + ">")
    return Safe(f"{opened}>{''.join(_children(children))}</{tag}>")


def join(items: Iterable[Any], separator: Any = "") -> Safe:
    """Escaped items joined by an (escaped) separator."""
    return Safe(escape(separator).join(_children(items)))
