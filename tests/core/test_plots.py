"""Plot helpers: the retention arithmetic matches the store, and every figure renders to a PNG of the right size."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from datetime import timedelta

import numpy as np
import pytest
from PIL import Image

from hindsight_core import (
    DecayConfig,
    Hindsight,
    HindsightConfig,
    HindsightError,
    InvalidInputError,
    Layer,
    maintenance,
    plots,
)
from hindsight_core.testing import FakeEmbedder

from ..conftest import START

PRINTING = [
    "Print this report on A4 in landscape.",
    "Please print the sales report in landscape on A4.",
    "Print the budget report on A4, landscape please.",
    "Print the team report in A4 landscape.",
    "A4 landscape for this printout too, please.",
]


def value_at(path, day):
    """The path's value at `day` (after the recall, on a recall day)."""
    t, r = path
    return float(r[np.searchsorted(t, day + 1e-9) - 1])


def png(path, size):
    """Open a written PNG and check it is a real picture of `size` pixels."""
    assert path.stat().st_size > 0
    image = Image.open(path)
    assert image.format == "PNG" and image.size == size
    colours = image.convert("RGB").getcolors(maxcolors=1_000_000)
    assert len(colours) > 20, "the image is (nearly) blank"
    return image


# -- the arithmetic ------------------------------------------------------------------------------------------------
def test_retention_path_without_recalls_is_the_ebbinghaus_curve():
    path = plots.retention_path(0.02, 10, confidence=0.8)
    assert path[0][0] == 0 and path[0][-1] == 10
    assert value_at(path, 0) == pytest.approx(0.8)
    assert value_at(path, 10) == pytest.approx(0.8 * math.exp(-0.2))


def test_spaced_recalls_restart_and_flatten_the_curve():
    path = plots.retention_path(0.02, 10, reinforce_on=[2, 5], confidence=0.8)
    t, r = path
    jump = np.flatnonzero(t == 2)
    assert len(jump) == 2 and r[jump[0]] == pytest.approx(0.8 * math.exp(-0.04)) and r[jump[1]] == pytest.approx(0.8)
    # two spaced recalls: λ_eff = 0.02 / (1 + 0.5·2) = 0.01 from day 5
    assert value_at(path, 10) == pytest.approx(0.8 * math.exp(-0.01 * 5))


def test_massed_recalls_count_once():
    path = plots.retention_path(0.02, 10, reinforce_on=[2, 2.1, 2.2], confidence=0.8)
    # one spaced recall (λ_eff = 0.02/1.5); the curve restarts at the last recall, day 2.2
    assert value_at(path, 10) == pytest.approx(0.8 * math.exp(-0.02 / 1.5 * 7.8))


def test_a_recall_after_the_memory_faded_still_counts():
    path = plots.retention_path(1.0, 8, reinforce_on=[5], confidence=1.0)  # e^-5 < 0.1 by day 5: faded, not hidden
    assert value_at(path, 6) == pytest.approx(math.exp(-1.0 / 1.5))  # restarted on day 5, rate / (1 + 0.5·1)


def test_retention_path_matches_what_the_store_records(clock):
    """Real recalls on a frozen clock, read back every day, against the pure path."""
    config = HindsightConfig(decay=DecayConfig(rates={"fact": 0.02, "flash": 0.5}))
    with Hindsight(location=":memory:", embedder=FakeEmbedder(), clock=clock, config=config) as memory:
        start = clock()
        kept = memory.write("alpha bravo charlie delta", user_id="u", event_type="fact", confidence=0.8,
                            force=True).record
        flash = memory.write("alpha golf hotel india", user_id="u", event_type="flash", confidence=0.9,
                             force=True).record
        recalls = [1.0, 1.2, 3.0, 8.0, 20.0, 45.0]
        moments = sorted({*recalls, *range(61)})
        seen = {kept.id: {}, flash.id: {}}
        for day in moments:
            clock.set(start + timedelta(days=day))
            if day in recalls:
                memory.recall("alpha zulu yankee xray", user_id="u", k=2)  # a weak cue: one word of four
            for record_id, by_day in seen.items():
                by_day[day] = memory.retention_of(memory.get(record_id, user_id="u"))
        flash_after = memory.get(flash.id, user_id="u")
    # recalled on days 1, 1.2 (not spaced), 3, 8, 20 and 45: by day 20 it has faded (0.9·e^(-0.5/2.5·12) < 0.1),
    # but recall never hides it, and the shared word cues it, so that recall strengthens it too
    assert flash_after.access_count == 6 and flash_after.spaced_recalls == 5
    for record, confidence, rate in ((kept, 0.8, 0.02), (flash, 0.9, 0.5)):
        path = plots.retention_path(rate, 60, reinforce_on=recalls, confidence=confidence, decay=config.decay)
        for day in range(61):
            assert value_at(path, day) == pytest.approx(seen[record.id][day], abs=1e-12), (record.event_type, day)


def test_layer_counts_counts_layers_and_retained(fake_memory, clock):
    fake_memory.write("alpha bravo charlie delta", user_id="u", event_type="task_result", force=True)
    fake_memory.write("golf hotel india juliet", user_id="u", event_type="preference", force=True)
    assert plots.layer_counts(fake_memory, "u") == {"episodic": 2, "semantic": 0, "retained": 2}
    clock.advance(days=60)  # task_result: 0.6·e^-3 < 0.1; preference: 0.6·e^-0.6 > 0.1
    assert plots.layer_counts(fake_memory, "u") == {"episodic": 2, "semantic": 0, "retained": 1}


# -- the pictures --------------------------------------------------------------------------------------------------
def test_retention_curves_png(tmp_path):
    out = tmp_path / "curves.png"
    fig = plots.retention_curves(DecayConfig(), ["preference", "task_result"], days=90, reinforce_on=[2, 10],
                                 path=out)
    png(out, (800, 450))
    ax = fig.axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert "preference (λ=0.01/day)" in labels and "task_result, recalled" in labels
    solid = ax.get_lines()[labels.index("task_result (λ=0.05/day)")]
    assert solid.get_ydata()[-1] == pytest.approx(math.exp(-0.05 * 90))


def test_retention_curves_default_to_every_configured_type(tmp_path):
    fig = plots.retention_curves(HindsightConfig(), path=tmp_path / "all.png", size=(6, 3), dpi=80)
    png(tmp_path / "all.png", (480, 240))
    assert sum("λ=" in line.get_label() for line in fig.axes[0].get_lines()) == len(DecayConfig().rates)


def test_store_growth_png(tmp_path):
    history = [(START + timedelta(days=d), {"episodic": 2 * d, "semantic": d // 5, "retained": d + 1})
               for d in range(30)]
    fig = plots.store_growth(history, path=tmp_path / "growth.png", size=(7, 4), dpi=90)
    png(tmp_path / "growth.png", (630, 360))
    [line] = fig.axes[0].get_lines()
    assert line.get_label() == "retained" and list(line.get_ydata()) == [d + 1 for d in range(30)]


def test_retention_histogram_of_values_and_of_a_store(tmp_path, fake_memory, clock):
    plots.retention_histogram([0.05, 0.2, 0.5, 0.9, 0.95], path=tmp_path / "values.png")
    png(tmp_path / "values.png", (800, 450))

    for i, kind in enumerate(["task_result", "task_result", "preference", "fact"]):
        fake_memory.write(f"memory number {i} about topic {kind}", user_id="u", event_type=kind, force=True)
    clock.advance(days=50)
    fig = plots.retention_histogram(fake_memory, "u", path=tmp_path / "store.png")
    png(tmp_path / "store.png", (800, 450))
    faded = sum(fake_memory.retention_of(r) < 0.1 for r in fake_memory.memories(user_id="u"))
    assert faded == 2 and fig.axes[0].get_title() == "Retention of u: 4 memories, 2 faded (retention below 0.1)"


def test_memory_timeline_shows_consolidation(tmp_path, clock, real_embedder):
    from hindsight_core.config import knowledge_on

    with Hindsight(location=":memory:", embedder=real_embedder, clock=clock, config=knowledge_on()) as memory:
        memory.write("My manager is Dana Whitfield.", user_id="alice")
        for text in PRINTING:
            memory.write(text, user_id="alice")
            clock.advance(days=1)
        assert [m.layer for m in memory.memories(user_id="alice")].count(Layer.SEMANTIC) == 1
        fig = plots.memory_timeline(memory, "alice", path=tmp_path / "timeline.png")
    png(tmp_path / "timeline.png", (900, 450))
    # the first four print requests formed it (said on three days over three); the fifth stays an episode
    assert fig.axes[0].get_title() == "6 episodes, 4 of them consolidated into 1 semantic memory"


def test_stats_figure_png_from_the_store_statistics(tmp_path, clock, real_embedder):
    with Hindsight(path=tmp_path / "store", embedder=real_embedder, clock=clock) as memory:
        memory.write("I'm vegetarian, so please never suggest meat dishes.", user_id="alice")
        memory.write("The staging server restart is done; it took 14 minutes.", user_id="bob")
        clock.advance(days=60)
        report = maintenance.stats(memory)
    fig = plots.stats_figure(report, path=tmp_path / "stats.png")
    png(tmp_path / "stats.png", (1000, 400))
    assert fig._suptitle.get_text() == "2 memories of 2 users"
    assert fig.axes[1].get_title() == "retention: 1 of 2 faded"


def test_figures_can_be_saved_later_in_other_formats(tmp_path):
    fig = plots.retention_curves(event_types=["fact"])
    fig.savefig(tmp_path / "curves.svg")
    assert (tmp_path / "curves.svg").read_text().lstrip().startswith("<?xml")


# -- errors and dependencies ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    lambda: plots.retention_path(-0.02, 10),
    lambda: plots.retention_path(0.02, 0),
    lambda: plots.retention_path(0.02, float("nan")),
    lambda: plots.retention_path(0.02, 10, reinforce_on=[11]),
    lambda: plots.retention_path(0.02, 10, reinforce_on=["day 3"]),
    lambda: plots.retention_path(0.02, 10, confidence=1.5),
    lambda: plots.retention_curves(event_types=[]),
    lambda: plots.retention_curves(size=(0, 4)),
    lambda: plots.retention_curves(dpi=5),
    lambda: plots.store_growth([]),
    lambda: plots.store_growth([(0, 5)]),
    lambda: plots.retention_histogram([0.5], bins=0),
])
def test_bad_input_is_a_clear_error(call):
    with pytest.raises(InvalidInputError):
        call()


@pytest.mark.parametrize("name", ["no-such-folder/plot.png", "plot.notaformat"])
def test_an_unwritable_path_is_a_clear_error(tmp_path, name):
    with pytest.raises(InvalidInputError, match="cannot write the plot"):
        plots.retention_curves(event_types=["fact"], path=tmp_path / name)


def test_histogram_of_a_store_needs_a_user(fake_memory):
    with pytest.raises(InvalidInputError, match="name the user"):
        plots.retention_histogram(fake_memory)


def test_without_matplotlib_the_error_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(HindsightError, match=r"hindsight-memory\[plot\]"):
        plots.retention_curves()


def test_matplotlib_is_imported_only_when_drawing_and_pyplot_never(tmp_path):
    code = textwrap.dedent(f"""
        import sys
        import hindsight_core, hindsight_core.plots as plots
        assert "matplotlib" not in sys.modules, "imported with the module"
        plots.retention_path(0.02, 10)
        assert "matplotlib" not in sys.modules, "imported by a data helper"
        plots.retention_curves(path={str(tmp_path / 'x.png')!r})
        assert "matplotlib" in sys.modules and "matplotlib.pyplot" not in sys.modules
    """)
    subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
