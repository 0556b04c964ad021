"""Token counting with tiktoken's cl100k_base, loaded offline.

tiktoken downloads its encodings on first use, which fails without network.
llama-index-core ships the cl100k_base and o200k_base files in
`llama_index/core/_static/tiktoken_cache/`; we point `TIKTOKEN_CACHE_DIR` there
(found with `importlib.util.find_spec`, without importing llama_index) unless
the caller has set it already.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from functools import lru_cache
from pathlib import Path
from typing import Protocol

from ..errors import HindsightError

_lock = threading.Lock()


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...


def bundled_tiktoken_cache() -> Path | None:
    """The tiktoken cache folder that llama-index-core ships, if it is installed."""
    spec = importlib.util.find_spec("llama_index")
    for root in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(root) / "core" / "_static" / "tiktoken_cache"
        if folder.is_dir():
            return folder
    return None


@lru_cache(maxsize=4)
def _encoding(name: str):
    import tiktoken

    with _lock:
        previous = os.environ.get("TIKTOKEN_CACHE_DIR")
        folder = bundled_tiktoken_cache()
        if previous is None and folder is not None:
            os.environ["TIKTOKEN_CACHE_DIR"] = str(folder)
        try:
            return tiktoken.get_encoding(name)
        except Exception as exc:
            raise HindsightError(
                f"cannot load tiktoken encoding {name!r} offline ({exc}). Install llama-index-core, which "
                "ships it, or set TIKTOKEN_CACHE_DIR to a folder holding the encoding file."
            ) from exc
        finally:
            if previous is None and folder is not None:
                os.environ.pop("TIKTOKEN_CACHE_DIR", None)


class TiktokenTokenizer:
    """Exact token counts for an OpenAI encoding (cl100k_base by default)."""

    def __init__(self, encoding: str = "cl100k_base") -> None:
        self.name = encoding
        self._enc = _encoding(encoding)

    def count(self, text: str) -> int:
        return len(self._enc.encode(text, disallowed_special=()))

    def truncate(self, text: str, max_tokens: int) -> str:
        ids = self._enc.encode(text, disallowed_special=())
        return text if len(ids) <= max_tokens else self._enc.decode(ids[:max_tokens])


@lru_cache(maxsize=1)
def default_tokenizer() -> TiktokenTokenizer:
    return TiktokenTokenizer("cl100k_base")


def count_tokens(text: str) -> int:
    """Tokens in `text` under cl100k_base."""
    return default_tokenizer().count(text)
