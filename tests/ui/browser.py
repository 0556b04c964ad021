"""Debian's Chromium, driven by Playwright, with a fresh profile and no network of its own."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]


class ChromiumMissing(RuntimeError):
    """Debian's Chromium (or Playwright, which drives it) is not installed."""


@contextlib.contextmanager
def chromium_context(**options: object) -> Iterator[object]:
    """A headless Chromium browser context in a new user-data-dir, closed (and the dir removed) at the end."""
    if not CHROMIUM.exists():
        raise ChromiumMissing(f"{CHROMIUM} is missing (Debian's chromium package)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise ChromiumMissing("playwright is not installed (the dev extra)") from None

    profile = tempfile.mkdtemp(prefix="hindsight-ui-chromium-")
    try:
        with sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=str(CHROMIUM), headless=True, args=FLAGS, **options)
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)
