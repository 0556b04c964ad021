"""hindsight's benchmarks: one script per question, a shared harness (`harness.py`), one entry point.

    python -m benchmarks list | NAME [ARGS...] | all [--dry-run]

Each script also runs on its own (`python benchmarks/NAME.py`); the scripts import each other by
their bare names, as they do when run that way. `benchmarks/README.md` names every file.
"""
