"""Consolidation: repeated episodes become one piece of knowledge, with an extractive (or model-written) summary."""
