"""Serving the inspector from the process that holds the store: a threaded `wsgiref` server."""

from __future__ import annotations

import socket
import threading
from socketserver import ThreadingMixIn
from typing import Any, Callable
from urllib.parse import quote
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer

from .app import InspectorApp
from .security import Guard, check_exposure


class _Handler(WSGIRequestHandler):
    #: seconds a connection may sit idle (browsers open spare ones) before it is closed
    timeout = 30

    def log_message(self, format: str, *args: Any) -> None:  # requests are not logged: URLs hold queries
        pass


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _ThreadingServer6(_ThreadingServer):
    address_family = socket.AF_INET6


class InspectorServer:
    """The inspector bound to `host:port` (port 0: any free one) for `memory`, a `Hindsight`.

    Refuses, before binding, an empty token or no token off loopback. `serve_forever()` runs it in the foreground,
    `with InspectorServer(...) as server:` in a background thread until the block ends.
    """

    def __init__(self, memory: Any, *, host: str = "127.0.0.1", port: int = 0, token: str | None = None,
                 log: Callable[[str], None] | None = None) -> None:
        check_exposure(host, token)
        server_class = _ThreadingServer6 if ":" in host else _ThreadingServer
        self.httpd = server_class((host.strip("[]"), port), _Handler)
        self.httpd.set_app(InspectorApp(memory, Guard(port=self.httpd.server_port, token=token), log=log))
        self.host = host
        self.token = token
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self.httpd.server_port

    @property
    def url(self) -> str:
        host = f"[{self.host.strip('[]')}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

    @property
    def login_url(self) -> str:
        """The URL to open: with the token, which the page then keeps in a cookie."""
        return self.url + (f"?token={quote(self.token, safe='')}" if self.token else "")

    def serve_forever(self) -> None:
        try:
            self.httpd.serve_forever(poll_interval=0.2)
        finally:
            self.httpd.server_close()

    def __enter__(self) -> "InspectorServer":
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="hindsight-ui", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
