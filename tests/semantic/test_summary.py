"""The extractive summary: hand-written groups, hand-checked sentences (no model: the fake embedder orders ties)."""

from datetime import datetime, timedelta, timezone

import pytest

from hindsight_core.consolidate.summary import extractive_summary, occurrences
from hindsight_core.testing import FakeEmbedder
from hindsight_core.types import MemoryRecord
from hindsight_core.write.gate import RuleBasedGate

START = datetime(2026, 3, 18, 9, 0, tzinfo=timezone.utc)
gate = RuleBasedGate()


def group(texts, every_days=1.0, confirmations=None):
    records = [MemoryRecord(id=str(i), user_id="u", summary=t, raw_content=t,
                            timestamp=START + timedelta(days=i * every_days), event_type=gate(t).event_type,
                            confirmations=(confirmations or [1] * len(texts))[i])
               for i, t in enumerate(texts)]
    return records, FakeEmbedder().embed(texts)


@pytest.mark.parametrize("texts, expected", [
    (["Print the sales report in landscape, please.", "Landscape orientation again for this invoice printout.",
      "Please print the quarterly summary in landscape.", "Print the sales report in landscape, please.",
      "Landscape orientation again for this invoice printout."],
     "Prefers printing in landscape (sales report, quarterly summary; said 5 times, 2026-03-18 to 03-22)"),
    (["Print this report on A4 in landscape.", "Please print the sales report in landscape on A4.",
      "Print the budget report on A4, landscape please.", "Print the team report in A4 landscape.",
      "A4 landscape for this printout too, please."],
     "Prefers printing reports on A4 in landscape (said 5 times, 2026-03-18 to 03-22)"),
    (["Send the minutes to Maria.", "Please send the draft to Maria.", "Send it to Maria again.",
      "Could you send the slides to Maria?", "Send the invoice to Maria, thanks."],
     "Prefers sending to Maria (minutes, draft, slides; said 5 times, 2026-03-18 to 03-22)"),
    (["I prefer window seats on long flights.", "I really prefer a window seat when I fly long-haul.",
      "I prefer the window seat on long flights.", "Window seat again, I prefer it on long flights.",
      "I prefer window seats on long flights, as always."],
     "Prefers window seats on long flights (said 5 times, 2026-03-18 to 03-22)"),
    (["请用A4纸横向打印这份报告", "报告还是横向打印，A4纸", "麻烦把报告用A4横向打印一下", "用A4纸横向打印报告，谢谢",
      "这份报告也用A4横向打印吧"],
     "偏好：报告用A4横向打印（说过5次，2026-03-18 至 03-22）"),
    (["用Python写", "请用Python写这个脚本", "还是用Python写吧", "用Python写解析器", "这个也用Python写"],
     "偏好：用Python写（说过5次，2026-03-18 至 03-22）"),
    (["We went hiking at Mount Tam on Saturday.", "Hiking at Mount Tam again this weekend.",
      "Another Mount Tam hike today.", "Mount Tam hike with the kids.", "We hiked Mount Tam again."],
     "We hiked Mount Tam (said 5 times, 2026-03-18 to 03-22)"),  # not a wish: what was said, counted
])
def test_summaries(texts, expected):
    records, vectors = group(texts)
    assert extractive_summary(records, vectors) == expected


def test_occurrences_count_confirmations_and_shorten_the_span():
    records, _ = group(["a", "b", "c"], every_days=2, confirmations=[1, 3, 1])
    assert occurrences(records) == "said 5 times, 2026-03-18 to 03-22"
    same_day, _ = group(["a", "b"], every_days=0.1)
    assert occurrences(same_day) == "said 2 times, 2026-03-18"
    across_years = [r.evolve(timestamp=r.timestamp + timedelta(days=400 * i)) for i, r in enumerate(same_day)]
    assert occurrences(across_years) == "said 2 times, 2026-03-18 to 2027-04-22"


def test_the_summary_keeps_the_groups_entities_for_validation():
    from hindsight_core.consolidate.summary import shared_entities, validate_summary

    texts = ["Print this report on A4 in landscape.", "Please print the sales report in landscape on A4.",
             "Print the budget report on A4, landscape please.", "Print the team report in A4 landscape.",
             "A4 landscape for this printout too, please."]
    records, vectors = group(texts)
    records = [r.evolve(entities=["A4"]) for r in records]
    summary = extractive_summary(records, vectors)
    assert validate_summary('{"summary": "%s"}' % summary, shared_entities(records)) == summary


# -- a group must share a topic word, not only an embedding neighbourhood -----------------------------

@pytest.mark.parametrize("texts, topic", [
    (["Print the sales report in landscape, please.", "Landscape orientation again for this invoice printout.",
      "Please print the quarterly summary in landscape."], "landscape"),
    (["请把销售报告横向打印", "这张发票还是横向打印", "季度总结也横向打印，谢谢"], "横向"),
    # unrelated Chinese sentences (which an English model puts at cosine > 0.95) share only function characters
    (["邻居家的狗昨天又跑到我们院子里来了。", "今天午饭吃了麻辣烫，有点太辣了。", "我对花生过敏，吃一点就会起疹子。"], None),
    (["We went hiking at Mount Tam today.", "The coffee machine broke again today.", "I read a book about Rome."], None),
])
def test_shared_topic(texts, topic):
    from hindsight_core.consolidate.groups import shared_topic

    records, _ = group(texts)
    assert shared_topic(records) == topic


def test_an_incoherent_neighbourhood_keeps_only_its_coherent_part():
    import numpy as np

    from hindsight_core.config import SemanticConfig
    from hindsight_core.consolidate.groups import find_groups

    texts = ["Print the report in landscape.", "Landscape again for the invoice.", "Print it in landscape, please.",
             "Landscape for the summary too.", "Landscape orientation for the slides.",
             "The coffee machine broke.", "My sister lives in Lisbon."]
    records, _ = group(texts)
    vectors = np.ones((len(texts), 4), dtype=np.float32) / 2.0  # an embedder that finds everything alike
    groups = find_groups(records, vectors, SemanticConfig())
    assert [sorted(g.members) for g in groups] == [[0, 1, 2, 3, 4]] and groups[0].topic == "landscape"
