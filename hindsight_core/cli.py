"""The `hindsight` command line. Environment variables are read here, never in the core."""

from __future__ import annotations

from pathlib import Path

import click


@click.group(help="hindsight: long-term memory for LLM agents.")
def main() -> None:
    pass


@main.command(help="Run a scripted multi-day conversation on an embedded store and print what it injects.")
@click.option("--path", type=click.Path(path_type=Path), default=None,
              help="Folder for the demo's embedded store (default: a new temporary folder).")
def demo(path: Path | None) -> None:
    from .demo import run_demo

    run_demo(path)


if __name__ == "__main__":
    main()
