"""The inspector's pure parts: escaping by construction, the SVG maths, and the security checks."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from hindsight_core.ui.markup import Safe, el, escape, join
from hindsight_core.ui.plot import bar, curve, percent, sample
from hindsight_core.ui.security import Guard, UnsafeExposureError, check_exposure, is_loopback

T0 = datetime(2026, 3, 15, tzinfo=timezone.utc)


def test_el_escapes_children_and_attributes_but_not_safe_markup():
    html = el("a", "<b>x</b> & y", el("i", "z"), None, href='/m?a=1&b="2"', class_="c", hidden=True, title=None)
    assert html == '<a href="/m?a=1&amp;b=&quot;2&quot;" class="c" hidden>&lt;b&gt;x&lt;/b&gt; &amp; y<i>z</i></a>'
    assert isinstance(html, Safe)
    assert el("input", name="q", value="'") == '<input name="q" value="&#x27;">'
    assert el("span", aria_label="n") == '<span aria-label="n"></span>'
    assert escape(Safe("<i>ok</i>")) == "<i>ok</i>" and escape("<i>") == "&lt;i&gt;"
    assert join(["<a>", el("b", 1)], " | ") == "&lt;a&gt; | <b>1</b>"


def test_percent_and_bar():
    assert [percent(v) for v in (0, 0.004, 0.734, 1, 1.7, -1)] == ["0%", "0%", "73%", "100%", "100%", "0%"]
    half = bar(0.5, width=120)
    assert '<rect width="60" height="10" class="bar-fill">' in half and "retention 50%" in half


def test_sample_is_even_and_includes_both_ends():
    points = sample(lambda at: (at - T0).days / 10, T0, T0 + timedelta(days=10), samples=6)
    assert [p[0] for p in points] == [T0 + timedelta(days=2 * i) for i in range(6)]
    assert [p[1] for p in points] == [0, 0.2, 0.4, 0.6, 0.8, 1.0]
    with pytest.raises(ValueError):
        sample(lambda at: 1.0, T0, T0, samples=5)


def test_curve_maps_time_and_retention_onto_the_plot_area():
    # plot area of a 640x220 figure: x from 44 to 628 (584 wide), y from 12 (100%) to 192 (0%)
    points = [(T0, 1.0), (T0 + timedelta(days=5), 0.5), (T0 + timedelta(days=10), 0.0)]
    svg = curve(points, now=T0 + timedelta(days=5), threshold=0.1)
    assert 'points="44.0,12.0 336.0,102.0 628.0,192.0"' in svg
    assert '<line x1="336.0" x2="336.0" y1="12" y2="192" class="now">' in svg
    assert '<line x1="44" x2="628" y1="174.0" y2="174.0" class="threshold">' in svg  # 12 + 0.9 * 180
    assert "retention from 100% on 2026-03-15 to 0% on 2026-03-25" in svg
    assert 'class="now"' not in curve(points, now=T0 - timedelta(days=1))


@pytest.mark.parametrize("host, loopback", [("127.0.0.1", True), ("127.0.0.2", True), ("localhost", True),
                                            ("::1", True), ("[::1]", True), ("0.0.0.0", False), ("::", False),
                                            ("10.0.0.5", False), ("example.org", False)])
def test_is_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_check_exposure():
    check_exposure("127.0.0.1", None)
    check_exposure("0.0.0.0", "a-token")
    for host, token in (("0.0.0.0", None), ("127.0.0.1", ""), ("0.0.0.0", " ")):
        with pytest.raises(UnsafeExposureError):
            check_exposure(host, token)


def test_guard_host_and_origin():
    open_guard, locked = Guard(port=8765), Guard(port=8765, token="t")
    assert open_guard.host_allowed("127.0.0.1:8765") and open_guard.host_allowed("localhost:8765")
    assert open_guard.host_allowed("[::1]:8765")
    assert not open_guard.host_allowed("127.0.0.1:9999") and not open_guard.host_allowed("evil.example:8765")
    assert not open_guard.host_allowed(None)
    assert locked.host_allowed("inspector.lan:8765")
    assert open_guard.same_origin("http://127.0.0.1:8765", "same-origin", "127.0.0.1:8765")
    assert open_guard.same_origin(None, None, "127.0.0.1:8765")  # an old client sends neither: the form token decides
    assert not open_guard.same_origin("http://evil.example", None, "127.0.0.1:8765")
    assert not open_guard.same_origin(None, "same-site", "127.0.0.1:8765")
    assert open_guard.form_token_ok(open_guard.form_token) and not open_guard.form_token_ok(None)
    assert Guard(port=1).form_token != Guard(port=1).form_token
    assert Guard(port=1).cookie_name != Guard(port=2).cookie_name


def test_the_search_page_lists_what_the_retrieval_check_held_back_with_its_reason():
    from hindsight_core import Explanation, MemoryRecord, RecallResults, ScoredMemory, Source
    from hindsight_core.ui.pages import search_page

    def scored(i, text, source, notes=()):
        record = MemoryRecord(id=f"m{i}", user_id="alice", summary=text, raw_content=text, timestamp=T0,
                              source=source)
        return ScoredMemory(record, 0.02, 0.9, Explanation(1, 0.9, None, 0.0, None, 0.02, 0.9, "episodic", 0.02,
                                                           notes=notes))

    reason = "held back by the retrieval check: contradicts (conflicts with user memory m0 (different time))"
    results = RecallResults([scored(0, "Standup is at 9am.", Source.USER)],
                            held_back=[scored(1, "Standup moved to 3pm <b>.", Source.TOOL, (reason,))])
    page = search_page("alice", "standup", 5, results, {})
    assert "1 memory held back by the retrieval check" in page and reason in page
    assert "&lt;b&gt;" in page and "<b>" not in page
    empty = search_page("alice", "standup", 5, RecallResults([], held_back=results.held_back), {})
    assert "Nothing recalled" in empty and "held back" in empty
    assert "held back" not in search_page("alice", "standup", 5, RecallResults(results), {})
