from datetime import date, datetime, timedelta, timezone

import pytest

from hindsight_core import InvalidInputError, count_tokens
from hindsight_core.language.entities import extract_entities
from hindsight_core.language.text import keyword_tokens, summarize_line
from hindsight_core.language.timerange import TimeRange, resolve_time_range

NOW = datetime(2026, 3, 15, 15, 30, tzinfo=timezone.utc)


def test_relative_ranges():
    assert resolve_time_range("last_7_days", NOW) == TimeRange(NOW - timedelta(days=7), None)
    assert resolve_time_range("last 24 hours", NOW) == TimeRange(NOW - timedelta(hours=24), None)
    assert resolve_time_range("last_week", NOW) == TimeRange(NOW - timedelta(weeks=1), None)
    midnight = datetime(2026, 3, 15, tzinfo=timezone.utc)
    assert resolve_time_range("today", NOW) == TimeRange(midnight, None)
    assert resolve_time_range("yesterday", NOW) == TimeRange(midnight - timedelta(days=1), midnight)
    assert resolve_time_range(None, NOW) is None and resolve_time_range("all", NOW) is None


def test_explicit_ranges_include_the_end_date():
    window = resolve_time_range((date(2026, 3, 1), date(2026, 3, 10)), NOW)
    assert window.contains(datetime(2026, 3, 10, 23, 59, tzinfo=timezone.utc))
    assert not window.contains(datetime(2026, 3, 11, tzinfo=timezone.utc))
    assert resolve_time_range(("2026-03-01", None), NOW).end is None


def test_a_range_of_dates_as_one_string_reads_as_the_pair():
    assert resolve_time_range("2026-03-01..2026-03-10", NOW) == resolve_time_range(
        (date(2026, 3, 1), date(2026, 3, 10)), NOW)
    assert resolve_time_range("2026-03-01..", NOW) == TimeRange(datetime(2026, 3, 1, tzinfo=timezone.utc), None)
    assert resolve_time_range("..2026-03-10", NOW).start is None
    with pytest.raises(InvalidInputError, match="before its end"):
        resolve_time_range("2026-03-10..2026-03-01", NOW)


@pytest.mark.parametrize("bad", ["last_fortnight", "next_7_days", 7, ("2026-13-01", None), "2026-13-01..", "a..b"])
def test_bad_ranges(bad):
    with pytest.raises(InvalidInputError):
        resolve_time_range(bad, NOW)


def test_token_counts_are_exact_for_cl100k():
    assert count_tokens("hello world") == 2
    assert count_tokens("以后所有报表都用A4纸横向打印") == 18


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
def test_encodings_are_built_from_the_shipped_file_without_touching_the_environment(monkeypatch, name):
    """The same tokens as tiktoken's own encoding (loaded here from the same file through TIKTOKEN_CACHE_DIR)."""
    import os

    import tiktoken

    from hindsight_core.language import tokens

    monkeypatch.delenv("TIKTOKEN_CACHE_DIR", raising=False)
    tokens._encoding.cache_clear()
    before = dict(os.environ)
    ours = tokens._encoding(name)
    assert dict(os.environ) == before
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tokens.bundled_tiktoken_cache()))
    theirs = tiktoken.get_encoding(name)
    assert (ours.n_vocab, ours._pat_str, ours._special_tokens) == (theirs.n_vocab, theirs._pat_str,
                                                                    theirs._special_tokens)
    for text in ("Hello world!  It's 2026;\n\n  def f(x): return x**2", "以后所有报表都用A4纸横向打印", "<|endoftext|> hi"):
        assert ours.encode(text, disallowed_special=()) == theirs.encode(text, disallowed_special=())


def test_a_damaged_shipped_encoding_is_refused(tmp_path, monkeypatch):
    from hindsight_core import HindsightError
    from hindsight_core.language import tokens

    (tmp_path / "9b5ad71b2ce5302211f9c61530b329a4922fc6a4").write_bytes(b"IQ== 0\n")
    monkeypatch.setattr(tokens, "bundled_tiktoken_cache", lambda: tmp_path)
    with pytest.raises(HindsightError, match="damaged"):
        tokens._shipped("cl100k_base")


def test_chinese_keyword_tokens_are_unigrams_and_bigrams():
    assert keyword_tokens("报表打印") == ["报", "表", "打", "印", "报表", "表打", "打印"]
    assert keyword_tokens("I'm printing the Reports") == ["print", "report"]


def test_entities():
    found = extract_entities("Priya Raman owes $120 to Acme Corp by 2026-04-02; invoice XJ-99210, 《三体》")
    for expected in ("Priya Raman", "$120", "Acme Corp", "2026-04-02", "XJ-99210", "三体"):
        assert expected in found


def test_summary_is_one_short_line():
    long = "First sentence is about the Orion project and its many milestones. Second sentence. " * 10
    line = summarize_line(long)
    assert line == "First sentence is about the Orion project and its many milestones."
    assert len(summarize_line("word " * 100)) <= 200
