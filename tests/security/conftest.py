"""Loads the poisoning corpus module from tests/data/poisoning (a data folder, not a package)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

CORPUS_PATH = Path(__file__).resolve().parents[1] / "data" / "poisoning" / "corpus.py"


def load_corpus_module():
    name = "hindsight_poisoning_corpus"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, CORPUS_PATH)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the class is built
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def corpus():
    return load_corpus_module()
