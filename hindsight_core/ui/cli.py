"""What `hindsight ui` runs once the command line has read its flags and environment."""

from __future__ import annotations

import signal
from typing import Any, Callable

import click

from .security import UnsafeExposureError, check_exposure
from .server import InspectorServer


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def run(open_memory: Callable[[], Any], *, host: str, port: int, token: str | None, describe: str) -> None:
    """Check the exposure first (before opening the store), then serve until Ctrl-C or SIGTERM."""
    try:
        check_exposure(host, token)
    except UnsafeExposureError as exc:  # a usage error, exit 2, as `hindsight serve` and `hindsight mcp` refuse it
        raise click.UsageError(str(exc)) from None
    memory = open_memory()
    try:
        try:
            server = InspectorServer(memory, host=host, port=port, token=token,
                                     log=lambda line: click.echo(line, err=True))
        except OSError as exc:
            raise click.ClickException(f"cannot listen on {host}:{port} ({exc.strerror or exc}); choose another "
                                       "--port (0 picks a free one)") from None
        click.echo(f"hindsight inspector on {server.url} ({describe}); Ctrl-C stops it", err=True)
        click.echo(server.login_url)
        signal.signal(signal.SIGTERM, _stop)  # a service manager's stop closes the store as Ctrl-C does
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
    finally:
        memory.close()
