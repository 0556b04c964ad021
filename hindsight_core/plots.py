"""Pictures of memory: forgetting curves, store growth, the retention distribution, consolidation.

    plots.retention_curves(days=90, reinforce_on=[2, 5, 10, 20, 40])
    plots.retention_histogram(memory, "alice", path="retention.png")

matplotlib is the optional `plot` extra, imported inside the drawing functions only. Each returns a
`matplotlib.figure.Figure` made without pyplot (safe in a CLI, a server or a thread); given `path`, it is also written
there (PNG unless the suffix says otherwise) at exactly `size` x `dpi` pixels. `retention_path` and `layer_counts` are
plain data helpers.
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

import numpy as np

from . import decay as decay_math
from .api import MemoryAPI
from .config import DecayConfig, HindsightConfig
from .errors import HindsightError, InvalidInputError
from .types import Layer

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from .contract.results import StoreStats

__all__ = ["layer_counts", "memory_timeline", "retention_curves", "retention_histogram", "retention_path",
           "stats_figure", "store_growth"]

Size = tuple[float, float]
PathLike = str | Path

#: one colour per event type, the same in every plot
EVENT_COLOURS = {"preference": "#4c72b0", "correction": "#8172b3", "fact": "#55a868", "event": "#dd8452",
                 "dialogue": "#937860", "task_result": "#c44e52"}
LAYER_COLOURS = {"episodic": "#8fb3d9", "semantic": "#2b5d8c", "working": "#c7c7c7"}
_OTHER = "#7f7f7f"
_FADED = "#bbbbbb"
_EPOCH = datetime(2000, 1, 1, tzinfo=timezone.utc)  # anchors day numbers for decay's datetime helpers


# -- data ------------------------------------------------------------------------------------------------------
def retention_path(rate: float, days: float, *, reinforce_on: Iterable[float] = (), confidence: float = 1.0,
                   decay: DecayConfig | None = None, points_per_day: int = 24) -> tuple[np.ndarray, np.ndarray]:
    """Retention of one memory from its writing (day 0) to `days`, recalled on the days in `reinforce_on`.

    Follows `hindsight_core.decay` and `Hindsight.recall`: a recall restarts the curve at `confidence`, and a spaced
    one also divides the rate by `1 + reinforcement·n`. Returns (day, retention) arrays sampled every
    1/`points_per_day` day; at each counted recall the day appears twice, so a plotted line jumps straight up.
    """
    decay = decay or DecayConfig()
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not 0 <= rate <= 10:
        raise InvalidInputError(f"rate must be a number of per-day decay within 0..10, got {rate!r}")
    _check_positive(days, "days")
    if not 0 <= confidence <= 1:
        raise InvalidInputError("confidence must be within 0..1")
    if not (isinstance(points_per_day, int) and points_per_day >= 1):
        raise InvalidInputError("points_per_day must be a positive integer")
    recalls = sorted(_check_day(d, days) for d in reinforce_on)
    # segments of one curve each: (start day, last reinforced day, spaced recalls so far)
    segments = [(0.0, 0.0, 0)]
    for day in recalls:
        _, last, spaced = segments[-1]
        is_spaced = decay_math.is_spaced(_EPOCH + timedelta(days=last), _EPOCH + timedelta(days=day),
                                         decay.min_spacing_hours)
        segments.append((day, day, spaced + int(is_spaced)))
    # one grid for all segments, so whole days (and every 1/points_per_day) are sampled exactly
    grid = np.arange(math.floor(days * points_per_day) + 1) / points_per_day
    t_parts, r_parts = [], []
    for i, (start, last, spaced) in enumerate(segments):
        end = segments[i + 1][0] if i + 1 < len(segments) else float(days)
        t = np.concatenate([[start], grid[(grid > start) & (grid < end)], [end]])
        rate_now = decay_math.effective_rate(rate, spaced, decay.reinforcement)
        t_parts.append(t)
        r_parts.append(np.fromiter((decay_math.retention(confidence, rate_now, x - last) for x in t),
                                   dtype=np.float64, count=len(t)))
    return np.concatenate(t_parts), np.concatenate(r_parts)


def layer_counts(memory: MemoryAPI, user_id: str, *, at: datetime | None = None) -> dict[str, int]:
    """One snapshot for `store_growth`: memories per layer, and how many have not faded.

    `retained` counts memories at or above the retention threshold at `at` (default: the memory's clock now).
    """
    records = memory.memories(user_id=user_id)
    counts = {Layer.EPISODIC.value: 0, Layer.SEMANTIC.value: 0}
    threshold = memory.config.decay.retention_threshold
    retained = 0
    for record in records:
        counts[record.layer.value] = counts.get(record.layer.value, 0) + 1
        retained += memory.retention_of(record, at) >= threshold
    counts["retained"] = retained
    return counts


# -- drawing ---------------------------------------------------------------------------------------------------
def retention_curves(config: DecayConfig | HindsightConfig | None = None, event_types: Sequence[str] | None = None,
                     *, days: float = 90, reinforce_on: Sequence[float] = (), confidence: float = 1.0,
                     title: str | None = None, path: PathLike | None = None, size: Size = (8, 4.5),
                     dpi: int = 100) -> Figure:
    """Forgetting curves per event type (solid); with `reinforce_on`, the same recalled on those days (dashed).

    `config` gives the rates λ (default `DecayConfig()`); the dotted line is the retention threshold.
    """
    decay = config.decay if isinstance(config, HindsightConfig) else (config or DecayConfig())
    kinds = list(event_types) if event_types is not None else list(decay.rates)
    if not kinds:
        raise InvalidInputError("name at least one event type")
    fig, (ax,) = _new_figure(size, dpi)
    for i, kind in enumerate(kinds):
        rate = decay.rate_for(kind)
        colour = EVENT_COLOURS.get(kind, f"C{i}")
        t, r = retention_path(rate, days, confidence=confidence, decay=decay)
        ax.plot(t, r, color=colour, lw=1.8, label=f"{kind} (λ={rate:g}/day)")
        if reinforce_on:
            t, r = retention_path(rate, days, reinforce_on=reinforce_on, confidence=confidence, decay=decay)
            ax.plot(t, r, color=colour, lw=1.8, ls="--", label=f"{kind}, recalled")
    for day in sorted(set(reinforce_on)):
        ax.axvline(day, color=_FADED, lw=0.8, ls=":", zorder=0)
    _threshold_line(ax, decay.retention_threshold, horizontal=True)
    ax.set(xlim=(0, days), ylim=(0, max(confidence, 0.05) * 1.05), xlabel="days since the memory was written",
           ylabel="retention", title=title or _curves_title(reinforce_on))
    ax.legend(fontsize=8, ncol=2 if len(kinds) > 3 else 1, loc="upper right")
    return _finish(fig, path)


def store_growth(history: Sequence[tuple[Any, Mapping[str, int]]], *, title: str = "Memories in the store",
                 path: PathLike | None = None, size: Size = (8, 4.5), dpi: int = 100) -> Figure:
    """How the store grows: layers stacked, other counts (e.g. `retained`) as lines.

    `history` is a sequence of `(x, counts)` pairs, x a day number or a datetime, counts as `layer_counts` returns.
    """
    if not history:
        raise InvalidInputError("history is empty: collect at least one (x, counts) snapshot")
    xs = [x for x, _ in history]
    keys: list[str] = []
    for _, counts in history:
        if not isinstance(counts, Mapping):
            raise InvalidInputError("each history entry must be an (x, mapping of counts) pair")
        keys += [k for k in counts if k not in keys]
    layers = [k for k in keys if k in LAYER_COLOURS]
    lines = [k for k in keys if k not in LAYER_COLOURS]
    fig, (ax,) = _new_figure(size, dpi)
    if layers:
        ax.stackplot(xs, *[[counts.get(k, 0) for _, counts in history] for k in layers], labels=layers,
                     colors=[LAYER_COLOURS[k] for k in layers], alpha=0.9)
    for i, key in enumerate(lines):
        ax.plot(xs, [counts.get(key, 0) for _, counts in history], color="black" if i == 0 else f"C{i + 2}",
                lw=1.6, ls="--", label=key)
    ax.set(xlabel="day" if not isinstance(xs[0], datetime) else "date", ylabel="memories", title=title)
    if len(xs) > 1:
        ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(bottom=0)
    _integer_ticks(ax)
    ax.legend(loc="upper left", fontsize=8)
    return _finish(fig, path)


def retention_histogram(source: MemoryAPI | Sequence[float], user_id: str | None = None, *, at: datetime | None = None,
                        bins: int = 20, threshold: float | None = None, title: str | None = None,
                        path: PathLike | None = None, size: Size = (8, 4.5), dpi: int = 100) -> Figure:
    """How retained a user's memories are now: a histogram stacked by layer, faded ones in grey.

    `source` is a memory (`MemoryAPI`, with `user_id`; retention at `at`, default now)
    or a plain sequence of retention values (then `threshold` defaults to 0.1).
    """
    if isinstance(source, MemoryAPI):
        if user_id is None:
            raise InvalidInputError("retention_histogram(memory, user_id): name the user")
        memory: Any = source
        series: dict[str, list[float]] = {}
        for record in memory.memories(user_id=user_id):
            series.setdefault(record.layer.value, []).append(memory.retention_of(record, at))
        threshold = memory.config.decay.retention_threshold if threshold is None else threshold
    else:
        series = {"memories": [float(v) for v in source]}
        threshold = DecayConfig().retention_threshold if threshold is None else threshold
    if not (isinstance(bins, int) and bins >= 1):
        raise InvalidInputError("bins must be a positive integer")
    values = [v for vs in series.values() for v in vs]
    fig, (ax,) = _new_figure(size, dpi)
    _faded_histogram(ax, series, threshold, bins, legend=True)
    faded = sum(v < threshold for v in values)
    who = f" of {user_id}" if user_id else ""
    ax.set(xlim=(0, 1), xlabel="retention now", ylabel="memories",
           title=title or f"Retention{who}: {_plural(len(values), 'memory')}, "
                             f"{faded} faded (retention below {threshold:g})")
    return _finish(fig, path)


def memory_timeline(memory: MemoryAPI, user_id: str, *, at: datetime | None = None, title: str | None = None,
                    path: PathLike | None = None, size: Size = (9, 4.5), dpi: int = 100) -> Figure:
    """Every memory of a user by date and retention; lines join episodes to the knowledge made from them.

    Circles are episodes (hollow once consolidated), stars semantic memories, coloured by event type."""
    records = memory.memories(user_id=user_id)
    retention = {r.id: memory.retention_of(r, at) for r in records}
    by_id = {r.id: r for r in records}
    fig, (ax,) = _new_figure(size, dpi)
    when: dict[str, Any] = {r.id: r.timestamp for r in records}  # matplotlib plots datetimes; its stubs say floats
    for record in records:
        target = by_id.get(record.consolidated_into or "")
        if target is not None:
            ax.plot([when[record.id], when[target.id]], [retention[record.id], retention[target.id]],
                    color=LAYER_COLOURS["semantic"], lw=0.7, alpha=0.5, zorder=1)
    episodes = [r for r in records if r.layer is not Layer.SEMANTIC]
    knowledge = [r for r in records if r.layer is Layer.SEMANTIC]
    for kind in sorted({r.event_type for r in episodes}):
        group = [r for r in episodes if r.event_type == kind]
        colour = EVENT_COLOURS.get(kind, _OTHER)
        faces = ["none" if r.consolidated_into else colour for r in group]
        ax.scatter([when[r.id] for r in group], [retention[r.id] for r in group], s=28, label=kind,
                   facecolors=faces, edgecolors=colour, zorder=2)
    if knowledge:
        ax.scatter([when[r.id] for r in knowledge], [retention[r.id] for r in knowledge], marker="*", s=220,
                   color=[EVENT_COLOURS.get(r.event_type, _OTHER) for r in knowledge], edgecolors="black",
                   linewidths=0.8, label="knowledge (semantic)", zorder=3)
    _threshold_line(ax, memory.config.decay.retention_threshold, horizontal=True)
    consolidated = sum(1 for r in episodes if r.consolidated_into)
    ax.set(ylim=(0, 1.05), xlabel="written on", ylabel="retention now",
           title=title or f"{_plural(len(episodes), 'episode')}, {consolidated} of them consolidated into "
                          f"{_plural(len(knowledge), 'semantic memory')}")
    if records:
        ax.tick_params(axis="x", labelrotation=25)
        fig.legend(fontsize=8, loc="outside right upper")
    return _finish(fig, path)


def stats_figure(report: StoreStats, *, title: str | None = None, path: PathLike | None = None,
                 size: Size = (10, 4), dpi: int = 100) -> Figure:
    """`hindsight stats` as a picture (`maintenance.stats`): memories per layer and status, and retention."""
    fig, (left, right) = _new_figure(size, dpi, ncols=2)
    bars = {**report.layers, "archived": report.archived}
    left.barh(list(bars), list(bars.values()), color=[LAYER_COLOURS.get(k, _FADED) for k in bars])
    left.invert_yaxis()
    left.set(xlabel="memories", title="by layer")
    for y, value in enumerate(bars.values()):
        left.annotate(str(value), (value, y), xytext=(3, 0), textcoords="offset points", va="center", fontsize=8)
    values = list(report.retention)
    _faded_histogram(right, {"memories": values}, report.threshold, 20, legend=False)
    faded = sum(v < report.threshold for v in values)
    right.set(xlim=(0, 1), xlabel="retention now", ylabel="memories",
              title=f"retention: {faded} of {len(values)} faded")
    fig.suptitle(title or f"{_plural(report.memories, 'memory')} of {_plural(len(report.users), 'user')}")
    return _finish(fig, path)


# -- helpers ---------------------------------------------------------------------------------------------------
def _figure_class() -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError as exc:
        raise HindsightError("plots need matplotlib: pip install 'hindsight-memory[plot]'") from exc
    return Figure


def _new_figure(size: Size, dpi: int, ncols: int = 1) -> tuple[Figure, list[Axes]]:
    """A pyplot-free figure of `size` inches at `dpi`, with `ncols` axes side by side."""
    if not (len(size) == 2 and all(isinstance(s, (int, float)) and 0 < s <= 100 for s in size)):
        raise InvalidInputError("size must be (width, height) in inches, each within 0..100")
    if not (isinstance(dpi, int) and 10 <= dpi <= 1000):
        raise InvalidInputError("dpi must be an integer within 10..1000")
    fig = _figure_class()(figsize=size, dpi=dpi, layout="constrained")
    axes = fig.subplots(1, ncols, squeeze=False)[0]
    return fig, list(axes)


def _finish(fig: Figure, path: PathLike | None) -> Figure:
    if path is not None:
        try:
            # bbox_inches=None keeps the full canvas: the file is exactly size x dpi pixels
            fig.savefig(Path(path), dpi=fig.dpi, bbox_inches=None)
        except OSError as exc:
            raise InvalidInputError(f"cannot write the plot to {path}: {exc.strerror or exc}") from None
        except ValueError as exc:  # matplotlib's answer to an unknown suffix
            raise InvalidInputError(f"cannot write the plot to {path}: {exc}") from None
    return fig


def _faded_histogram(ax: Axes, series: Mapping[str, Sequence[float]], threshold: float, bins: int, *,
                     legend: bool) -> None:
    """A stacked histogram of retention over 0..1, bins below the retention threshold (faded) in grey."""
    labels = [k for k in series if series[k]]
    if labels:
        from matplotlib.patches import Patch

        colours = [LAYER_COLOURS.get(k, LAYER_COLOURS["semantic"]) for k in labels]
        edges = np.linspace(0.0, 1.0, bins + 1).tolist()
        patches: Any = ax.hist([list(series[k]) for k in labels], bins=edges, stacked=True, color=colours)[2]
        for group in patches if len(labels) > 1 else [patches]:
            for patch in group:
                if patch.get_x() + patch.get_width() <= threshold + 1e-9:
                    patch.set_facecolor(_FADED)
        if legend:
            handles = [Patch(color=c, label=k) for k, c in zip(labels, colours)]
            ax.legend(handles=[*handles, Patch(color=_FADED, label="faded")], fontsize=8, loc="upper right")
    _threshold_line(ax, threshold, horizontal=False)
    _integer_ticks(ax)


def _integer_ticks(ax: Axes) -> None:
    """Whole numbers on the y axis: it counts memories."""
    from matplotlib.ticker import MaxNLocator

    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def _threshold_line(ax: Axes, threshold: float, *, horizontal: bool) -> None:
    label = f"retention threshold {threshold:g}"
    if horizontal:
        ax.axhline(threshold, color="black", lw=0.9, ls=":", label=label)
    else:
        ax.axvline(threshold, color="black", lw=0.9, ls=":", label=label)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word[:-1] + 'ies' if word.endswith('y') else word + 's'}"


def _curves_title(reinforce_on: Sequence[float]) -> str:
    if not reinforce_on:
        return "Forgetting curves: retention = exp(−λ·t) · confidence"
    days = ", ".join(f"{d:g}" for d in sorted(reinforce_on))
    return f"Forgetting curves, and recalled on days {days} (dashed)"


def _check_positive(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise InvalidInputError(f"{what} must be a positive number, got {value!r}")
    return float(value)


def _check_day(value: Any, days: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= days:
        raise InvalidInputError(f"recall days must be numbers within 0..{days:g}, got {value!r}")
    return float(value)
