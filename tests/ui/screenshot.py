"""Render the README's screenshots of the inspector: `python -m tests.ui.screenshot [FOLDER]` (default docs/).

The store is the tests' seeded one (fake embedder, frozen clock), so every run shows the same memories.
"""

from __future__ import annotations

import sys
from pathlib import Path

from hindsight_core.ui import InspectorServer

from .browser import chromium_context
from .seed import seeded_memory

#: the README's pictures: the memories by layer, and one memory with its retention over time
SHOTS = {"ui.png": "memories?user=alice", "ui-memory.png": "memory?user=alice&id={restart}"}


def shoot(folder: Path) -> list[Path]:
    memory, _, ids = seeded_memory()
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        with InspectorServer(memory, port=0) as server, \
                chromium_context(viewport={"width": 1000, "height": 720}, device_scale_factor=1) as context:
            page = context.new_page()
            for name, path in SHOTS.items():
                page.goto(server.url + path.format(**ids))
                page.screenshot(path=str(folder / name))
                written.append(folder / name)
    finally:
        memory.close()
    return written


if __name__ == "__main__":
    for path in shoot(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("docs")):
        print(path)
