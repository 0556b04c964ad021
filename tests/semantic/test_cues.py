"""The conflict cues, read by both the write-time supersede rule and the recall-time consensus check."""

import pytest

from hindsight_core.write import rules
from hindsight_core.language import cues
from hindsight_core.recall import consensus


def test_one_module_holds_the_cues():
    assert consensus.polarity is cues.polarity and consensus.value_slots is cues.value_slots
    assert rules.attributes is cues.attributes and rules.exclusive_clash is cues.exclusive_clash
    assert not hasattr(rules, "EXCLUSIVE") and not hasattr(consensus, "EXCLUSIVE")  # the clashing name is gone


@pytest.mark.parametrize("a, b, reason", [
    ("Print it in landscape.", "From now on, portrait please.", "exclusive terms: landscape vs portrait"),
    ("报告用A4横向打印", "以后改成纵向打印", "exclusive terms: landscape vs portrait"),
    ("以后所有报表都用A4纸横向打印", "Actually, print everything in portrait from now on.",
     "exclusive terms: landscape vs portrait"),  # across languages
    ("Window seat, please.", "I'd like an aisle seat.", "exclusive terms: window vs aisle"),
    ("Print it in landscape.", "Landscape again.", None),
    ("Print it in landscape on A4.", "Portrait and landscape both work.", None),  # b uses both: no clash
])
def test_exclusive_clash(a, b, reason):
    assert cues.exclusive_clash(a, b) == reason


@pytest.mark.parametrize("text, exclusive", [
    ("The user prefers aisle seats.", True), ("I prefer tea.", True), ("我最喜欢蓝色", True),
    ("My address is 5 Rue de Rivoli.", True), ("I went to Paris.", False), ("打印报告", False),
])
def test_exclusive_statement(text, exclusive):
    assert bool(cues.EXCLUSIVE_STATEMENT.search(text)) is exclusive


def test_zh_number():
    assert [cues.zh_number(t) for t in ("一", "十", "十二", "二十三", "7", "x")] == [1, 10, 12, 23, 7, None]


@pytest.mark.parametrize("text, expected", [
    ("My home address is 12 Baker Street, London.", {"residence"}),
    ("I moved to 5 Rue de Rivoli.", {"residence"}),
    ("我住在上海", {"residence"}),
    ("My favourite colour is green.", {"favourite:colour"}),
    ("I prefer red for the slide theme.", {"for:slide theme", "favourite:colour"}),
    ("The red and blue in this painting stand for the flag.", set()),  # a colour described sets nothing
    ("Run the integration tests now.", set()),                        # a task sets no attribute
    ("I played basketball with friends.", set()),
    ("What movie will you watch tonight?", set()),
])
def test_attributes_name_the_slot_a_statement_sets(text, expected):
    assert cues.attributes(text) == expected


def test_an_address_and_an_amount_beside_long_runs_are_found_as_before():
    """Addresses and amounts are looked for from the start of a run only; long runs around them change nothing
    (32 KB of digits once kept consolidation busy for minutes: each position of the run was tried)."""
    text = "x" * 20_000 + " mail ana.silva+work@example.org, pay 1,200.50 dollars; " + "7" * 20_000 + " usd"
    slots = cues.value_slots(text)
    assert slots["email"] == {"ana.silva+work@example.org"}
    assert slots["money"] == {"1,200.50dollars", "7" * 20_000 + "usd"}
    assert cues.value_slots("1," * 10_000 + "5 euros")["money"] == {"1," * 10_000 + "5euros"}


def test_exclusive_terms_find_every_spelling_as_the_plain_reading_does():
    """The spellings are found by an automaton in one pass; the answer is the plain one: Latin spellings as whole
    words only, other scripts anywhere, every group and value named."""
    import re

    from hindsight_core.language.cues import EXCLUSIVE_VALUES, exclusive_terms

    def plainly(text):
        lowered = text.lower()
        words = " " + " ".join(re.findall(r"[a-z0-9]+", lowered)) + " "
        found = {}
        for i, group in enumerate(EXCLUSIVE_VALUES):
            for value, spellings in group.items():
                if any((f" {t} " in words) if t.isascii() else (t in lowered) for t in spellings):
                    found.setdefault(i, set()).add(value)
        return found

    every = [t for group in EXCLUSIVE_VALUES for spellings in group.values() for t in spellings]
    texts = [f"Please use {t} this time." for t in every] + [" and ".join(every), "Landscapes of Portraiture",
                                                               "the windowsill", "横向和竖版都行"]
    for text in texts:
        assert exclusive_terms(text) == plainly(text), text
    assert exclusive_terms("the windowsill") == {}
