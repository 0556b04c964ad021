"""What `hindsight ui` runs once the command line has read its flags and environment."""

from __future__ import annotations

from typing import Any, Callable

import click

from .security import check_exposure
from .server import InspectorServer


def run(open_memory: Callable[[], Any], *, host: str, port: int, token: str | None, describe: str) -> None:
    """Check the exposure first (before opening the store), then serve until Ctrl-C."""
    check_exposure(host, token)
    memory = open_memory()
    try:
        server = InspectorServer(memory, host=host, port=port, token=token,
                                 log=lambda line: click.echo(line, err=True))
        click.echo(f"hindsight inspector on {server.url} ({describe}); Ctrl-C stops it", err=True)
        click.echo(server.login_url)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    finally:
        memory.close()
