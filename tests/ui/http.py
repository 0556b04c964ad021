"""A few lines of `http.client` for talking to the inspector as any client (or attacker) would."""

from __future__ import annotations

import http.client
import re
from dataclasses import dataclass
from urllib.parse import urlencode


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: str

    def form_token(self) -> str:
        match = re.search(r'name="form_token" value="([^"]+)"', self.body)
        assert match, "no form on this page"
        return match.group(1)


def request(port: int, method: str, path: str, *, form: dict[str, str] | None = None,
            headers: dict[str, str] | None = None, host: str = "127.0.0.1") -> Reply:
    connection = http.client.HTTPConnection(host, port, timeout=30)
    try:
        body = urlencode(form).encode() if form is not None else None
        sent = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
        connection.request(method, path, body=body, headers={**sent, **(headers or {})})
        response = connection.getresponse()
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()},
                     response.read().decode("utf-8"))
    finally:
        connection.close()
