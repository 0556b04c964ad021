"""Inline SVG for retention: a bar for one value and a curve over time. Pure: values in, markup out."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Callable, Sequence

from .markup import Safe, el, escape


def percent(value: float) -> str:
    """0.734 -> '73%'."""
    return f"{round(max(0.0, min(1.0, value)) * 100)}%"


def bar(value: float, *, width: int = 120, height: int = 10) -> Safe:
    """A horizontal bar filled to `value` (0..1), with the percentage as its title."""
    filled = round(max(0.0, min(1.0, value)) * width)
    return el("svg", el("title", f"retention {percent(value)}"),
              el("rect", width=width, height=height, class_="bar-bg"),
              el("rect", width=filled, height=height, class_="bar-fill"),
              class_="bar", width=width, height=height, viewBox=f"0 0 {width} {height}", role="img",
              aria_label=f"retention {percent(value)}")


def sample(retention: Callable[[datetime], float], start: datetime, end: datetime,
           samples: int = 60) -> list[tuple[datetime, float]]:
    """`retention` evaluated at `samples` evenly spaced moments from `start` to `end` (both included)."""
    if samples < 2 or end <= start:
        raise ValueError("need at least two samples and end after start")
    step = (end - start) / (samples - 1)
    return [(start + step * i, retention(start + step * i)) for i in range(samples)]


def curve(points: Sequence[tuple[datetime, float]], *, now: datetime | None = None, threshold: float | None = None,
          width: int = 640, height: int = 220) -> Safe:
    """Retention (0..1) against time as a line, with axes in % and dates, `now` and the fade threshold marked.

    x = left + (t - t0) / (t1 - t0) * plot width; y = top + (1 - retention) * plot height.
    """
    left, right, top, bottom = 44, 12, 12, 28
    inner_w, inner_h = width - left - right, height - top - bottom
    t0, t1 = points[0][0], points[-1][0]
    span = (t1 - t0).total_seconds() or 1.0

    def x(moment: datetime) -> float:
        return round(left + (moment - t0).total_seconds() / span * inner_w, 1)

    def y(value: float) -> float:
        return round(top + (1 - max(0.0, min(1.0, value))) * inner_h, 1)

    parts = []
    for level in (0, 0.25, 0.5, 0.75, 1):
        parts.append(el("line", x1=left, x2=left + inner_w, y1=y(level), y2=y(level), class_="grid"))
        parts.append(el("text", percent(level), x=left - 6, y=y(level) + 4, class_="axis", text_anchor="end"))
    for i in range(5):
        moment = t0 + timedelta(seconds=span * i / 4)
        parts.append(el("text", f"{moment:%Y-%m-%d}", x=x(moment), y=height - 8, class_="axis",
                        text_anchor="middle" if 0 < i < 4 else ("start" if i == 0 else "end")))
    if threshold is not None:
        parts.append(el("line", x1=left, x2=left + inner_w, y1=y(threshold), y2=y(threshold), class_="threshold"))
        parts.append(el("text", f"faded below {percent(threshold)}", x=left + inner_w, y=y(threshold) - 4,
                        class_="axis", text_anchor="end"))
    if now is not None and t0 <= now <= t1:
        parts.append(el("line", x1=x(now), x2=x(now), y1=top, y2=top + inner_h, class_="now"))
        parts.append(el("text", "now", x=x(now) + 4, y=top + 12, class_="axis"))
    line = " ".join(f"{x(t)},{y(v)}" for t, v in points)
    parts.append(el("polyline", points=line, class_="curve"))
    summary = f"retention from {percent(points[0][1])} on {t0:%Y-%m-%d} to {percent(points[-1][1])} on {t1:%Y-%m-%d}"
    return el("svg", el("title", summary), *parts, class_="plot", width=width, height=height,
              viewBox=f"0 0 {width} {height}", role="img", aria_label=escape(summary))
