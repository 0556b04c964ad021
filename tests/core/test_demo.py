"""The demo on the embedded store shows what the README says it shows."""

from hindsight_core.demo import run_demo


def test_demo_story(tmp_path):
    lines = []
    seen = run_demo(tmp_path / "store", say=lines.append)
    assert seen["stored_day1"] == 5  # "Hi!", "what time is it?" and "谢谢" were not stored
    assert seen["day3_top"][0] == "I'm vegetarian, so please never suggest meat dishes."
    assert seen["day3_print"][0] == "From now on, print all my reports in A4 landscape."
    assert len(seen["knowledge"]) == 1 and "landscape" in seen["knowledge"][0]
    assert seen["print_top_layer"] == "semantic"  # the knowledge comes first
    assert seen["after_change_top"] == "Actually, print everything in portrait from now on."
    assert seen["superseded"] >= 1
    assert seen["day60_restart"] == []  # the one-off fact faded below the threshold
    assert seen["forgotten"] == ["My old address was 12 Baker Street, London."]
    assert seen["after_forget"] == []
    assert any("<memories>" in line for line in lines)
