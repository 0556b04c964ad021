"""The conflict cues, read by both the write-time supersede rule and the recall-time consensus check."""

import pytest

from hindsight_core import consensus, cues, semantic


def test_one_module_holds_the_cues():
    assert consensus.polarity is cues.polarity and consensus.value_slots is cues.value_slots
    assert semantic.CHANGE_MARKERS is cues.CHANGE_MARKERS and semantic.EXCLUSIVE_STATEMENT is cues.EXCLUSIVE_STATEMENT
    assert not hasattr(semantic, "EXCLUSIVE") and not hasattr(consensus, "EXCLUSIVE")  # the clashing name is gone


@pytest.mark.parametrize("a, b, reason", [
    ("Print it in landscape.", "From now on, portrait please.", "exclusive terms: landscape vs portrait"),
    ("报告用A4横向打印", "以后改成纵向打印", "exclusive terms: 横向 vs 纵向"),
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
