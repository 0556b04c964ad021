"""The inspector in a real browser (Debian's Chromium): the paths a person takes through it."""

from __future__ import annotations

import re

import pytest

from hindsight_core import Status
from hindsight_core.ui import InspectorServer

from .seed import HOSTILE, PLANTED

pytestmark = pytest.mark.timeout(120)


def test_page_load_and_choose_a_user(page, server):
    page.goto(server.url)
    assert page.locator("h1").inner_text() == "Choose a user"
    assert page.locator("ul.users a").all_inner_texts() == ["alice", "bob"]

    page.select_option("select[name=user]", "bob")
    page.click("form.picker button")
    assert page.locator("h1").inner_text() == "Memories of bob"
    assert page.locator("#layer-episodic .summary").all_inner_texts() == ["I prefer tea to coffee."]

    page.select_option("select[name=user]", "alice")
    page.click("form.picker button")
    assert page.locator("h1").inner_text() == "Memories of alice"
    assert page.locator("#layer-semantic h2").inner_text() == "Semantic (1)"
    # quarantined memories are not among the layers, only counted
    assert PLANTED not in page.locator("main").inner_text()
    assert page.locator("a.tab.active").inner_text() == "Memories"
    assert page.locator("nav a", has_text="Quarantine").inner_text() == "Quarantine (1)"


def test_memories_show_retention_source_confidence_and_lineage(page, server, memory):
    page.goto(f"{server.url}memories?user=alice")
    knowledge = page.locator("#layer-semantic article.memory").first
    facts = knowledge.locator(".facts").inner_text()
    assert re.search(r"\b\d{1,3}%", facts) and "source user" in facts and "confidence" in facts
    assert knowledge.locator("svg.bar rect.bar-fill").count() == 1
    derived = knowledge.locator(".lineage a")
    # the print requests it was consolidated from (the first four: said on three days over three, it formed after the
    # fourth; the fifth is not close enough to its summary to confirm it), and what superseded it
    assert derived.count() == 4 + 1

    # the portrait correction superseded the five landscape requests (and the knowledge drawn from them)
    superseded = page.locator("#layer-episodic article.memory", has=page.locator("text=superseded by"))
    assert superseded.count() == 5
    superseded.first.locator(".lineage a", has_text="portrait").click()
    assert page.locator("h1").inner_text().startswith("Actually, print every report in portrait")

    page.go_back()
    derived_id = knowledge.locator(".lineage a").first.get_attribute("title")
    knowledge.locator(".lineage a").first.click()
    assert page.locator("dl.fields").inner_text().count(derived_id) == 1
    page.locator(".lineage a", has_text="Prefers printing").click()  # consolidated into: back to the knowledge
    assert page.locator("blockquote.raw").inner_text() == memory.get(
        page.url.split("id=")[1], user_id="alice").raw_content


def test_a_hostile_memory_is_shown_as_text(page, server):
    page.goto(f"{server.url}memories?user=alice")
    card = page.locator("article.memory", has_text="alert(")
    assert card.locator(".summary").inner_text() == HOSTILE
    assert card.locator("b, script").count() == 0
    assert page.locator("main script").count() == 0
    assert page.dialogs == []


def test_search_shows_ranks_and_retention_not_scores(page, server):
    page.goto(f"{server.url}search?user=alice")
    page.fill("input[name=q]", "print the report in landscape")
    page.click("form.search button")
    results = page.locator("ol.results > li")
    assert results.count() >= 3
    first = results.first.locator(".why").inner_text()
    assert first.startswith("#1")
    assert re.search(r"dense #\d+", first) and re.search(r"keyword #\d+", first)
    assert re.search(r"retention \d{1,3}%", first)
    assert not re.search(r"\d\.\d{3}", page.locator("ol.results").inner_text())  # no raw fused scores
    # the portrait correction replaced every landscape memory: it stands above them
    assert "portrait" in results.first.locator(".summary").inner_text().lower()
    # what recall's explanation notes is shown: the knowledge (standing for its episodes), what superseded it,
    # and the superseded memories' lower weight
    knowledge = results.filter(has_text="Prefers printing reports on A4 in landscape").first
    assert "knowledge from 4 episodes" in knowledge.locator(".notes").inner_text()
    assert re.search(r"weight 30%", knowledge.locator(".why").inner_text())
    assert knowledge.locator(".lineage a", has_text="portrait").count() >= 1
    assert page.locator("ol.results .lineage a", has_text=re.compile(r"^[0-9a-f]{8}$")).count() == 0  # no bare ids


def test_retention_plot(page, server, ids):
    page.goto(f"{server.url}memory?user=alice&id={ids['restart']}")
    plot = page.locator("svg.plot")
    assert plot.locator("polyline.curve").get_attribute("points").count(",") == 60
    assert plot.locator("line.now").count() == 1 and plot.locator("line.threshold").count() == 1
    assert re.match(r"retention from \d+% on 2026-03-15 to \d+% on 2026-", plot.locator("title").text_content())


def test_forget_by_topic_dry_run_then_confirm(page, server, memory, ids):
    page.goto(f"{server.url}forget?user=alice")
    page.fill("form.forget-topic input[name=about]", "Baker Street address")
    page.click("form.forget-topic button")
    assert page.locator("p.dry-run").inner_text().startswith("Dry run for the topic “Baker Street address”")
    assert "12 Baker Street" in page.locator("table.removed").inner_text()
    assert memory.get(ids["address"], user_id="alice")  # the dry run removed nothing

    page.click("form.confirm button")
    assert page.locator("p.receipt").inner_text().startswith("Forgot 1 memory for good")
    assert ids["address"] not in {r.id for r in memory.memories(user_id="alice")}


def test_forget_one_memory_from_its_page(page, server, memory, ids):
    page.goto(f"{server.url}memory?user=alice&id={ids['restart']}")
    page.click("text=Forget this memory")
    assert f"Dry run for memory {ids['restart']}" in page.locator("p.dry-run").inner_text()
    page.click("form.confirm button")
    assert "staging server" in page.locator("table.removed").inner_text()
    assert ids["restart"] not in {r.id for r in memory.memories(user_id="alice")}


def test_quarantine_release(page, server, memory, ids):
    page.goto(f"{server.url}quarantine?user=alice")
    held = page.locator("article.quarantined")
    assert held.count() == 1
    assert held.locator("blockquote.raw").inner_text() == PLANTED
    reasons = held.locator("ul.reasons").inner_text()
    assert "directive" in reasons and "source: agent" in reasons

    held.locator("button", has_text="Release").click()
    assert page.locator("p.notice").inner_text().startswith("Released:")
    assert page.locator("article.quarantined").count() == 0
    assert memory.get(ids["planted"], user_id="alice").status is Status.ACTIVE
    page.click("nav a:has-text('Memories')")
    assert page.locator("#layer-episodic .summary", has_text="ACME").count() == 1


def test_with_a_token_the_printed_link_logs_the_browser_in(page, memory, ids):
    with InspectorServer(memory, port=0, token="a-token/with+odd=chars") as server:
        page.goto(f"{server.url}quarantine?user=alice")
        assert page.locator("h1").inner_text() == "Unauthorized"
        page.goto(server.login_url)
        assert page.url == server.url  # the token left the address bar
        assert page.locator("h1").inner_text() == "Choose a user"
        page.goto(f"{server.url}quarantine?user=alice")
        page.locator("article.quarantined button", has_text="Release").click()  # the cookie goes with the POST
        assert page.locator("p.notice").inner_text().startswith("Released:")
    assert memory.get(ids["planted"], user_id="alice").status is Status.ACTIVE
