"""The inspector as a WSGI application over one `Hindsight`: routing, checks, and calls to the public API."""

from __future__ import annotations

import sys
import traceback
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable, Iterable
from urllib.parse import parse_qs, urlencode

from ..errors import HindsightError, InvalidInputError, MemoryNotFoundError
from ..types import MemoryRecord, Status
from . import pages
from .markup import Safe, el
from .plot import curve, sample
from .security import Guard

STATIC = Path(__file__).parent / "static"
#: a form is a few fields; anything larger is not one of ours
MAX_FORM_BYTES = 64 * 1024
#: memories shown per layer before a "show all" link (a page of 1,000 is about 0.9 MB)
PAGE_LIMIT = 200
#: how far past now the retention plot looks
HORIZON_DAYS = 90

SECURITY_HEADERS = [
    # no script runs at all, even if some text escaped escaping; styles only from our own file
    ("Content-Security-Policy", ("default-src 'none'; style-src 'self'; img-src 'self' data:; "
                                 "form-action 'self'; frame-ancestors 'none'; base-uri 'none'")),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    # the token's URL is redirected away at once; "no-referrer" would make browsers post `Origin: null`
    ("Referrer-Policy", "same-origin"),
    ("Cache-Control", "no-store"),
]


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str]
    headers: dict[str, str | None]

    @classmethod
    def from_environ(cls, environ: dict[str, Any]) -> "Request":
        def first(raw: str) -> dict[str, str]:
            return {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}

        method = environ.get("REQUEST_METHOD", "GET").upper()
        form: dict[str, str] = {}
        if method == "POST":
            try:
                length = int(environ.get("CONTENT_LENGTH") or 0)
            except ValueError:
                raise InvalidInputError("the request's Content-Length is not a number") from None
            if length < 0:
                raise InvalidInputError("the request's Content-Length is negative")
            if length > MAX_FORM_BYTES:
                raise InvalidInputError(f"a form of {length:,} bytes; the inspector takes {MAX_FORM_BYTES:,} at most")
            form = first(environ["wsgi.input"].read(length).decode("utf-8", "replace")) if length else {}
        headers = {name: environ.get(key) for name, key in (
            ("host", "HTTP_HOST"), ("cookie", "HTTP_COOKIE"), ("authorization", "HTTP_AUTHORIZATION"),
            ("origin", "HTTP_ORIGIN"), ("sec-fetch-site", "HTTP_SEC_FETCH_SITE"))}
        return cls(method, environ.get("PATH_INFO") or "/", first(environ.get("QUERY_STRING", "")), form, headers)

    def value(self, name: str) -> str | None:
        """A field from the form (POST) or the query (GET), stripped; None when missing or blank."""
        raw = (self.form if self.method == "POST" else self.query).get(name)
        return raw.strip() or None if raw is not None else None


@dataclass
class Response:
    status: str
    body: bytes
    headers: list[tuple[str, str]] = field(default_factory=list)
    content_type: str = "text/html; charset=utf-8"

    @classmethod
    def redirect(cls, location: str, *extra: tuple[str, str]) -> "Response":
        return cls("303 See Other", b"", [("Location", location), *extra])


class InspectorApp:
    """Serves the inspector's pages for one `Hindsight`; `guard` decides who may use them."""

    def __init__(self, memory: Any, guard: Guard, *, log: Callable[[str], None] | None = None,
                 recall_log: Any = None) -> None:
        self.memory = memory
        self.guard = guard
        #: what the agent saw (the RecallLog of remote/recall_log.py), when `hindsight serve` keeps one
        self.recall_log = recall_log
        self.log = log or (lambda line: print(line, file=sys.stderr))
        self.routes: dict[tuple[str, str], Callable[[Request], Response]] = {
            ("GET", "/"): self.home, ("GET", "/memories"): self.memories, ("GET", "/memory"): self.one_memory,
            ("GET", "/search"): self.search, ("GET", "/recalls"): self.recalls,
            ("GET", "/quarantine"): self.quarantine,
            ("GET", "/forget"): self.forget_form, ("POST", "/forget"): self.forget, ("POST", "/release"): self.release,
        }

    # -- WSGI -------------------------------------------------------------------------------
    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        try:
            response = self.handle(Request.from_environ(environ))
        except MemoryNotFoundError as exc:
            response = self.error("404 Not Found", str(exc))
        except HindsightError as exc:
            response = self.error("400 Bad Request", str(exc))
        except Exception:  # a bug: say so on the page, keep the details in the server's log
            self.log(traceback.format_exc())
            response = self.error("500 Internal Server Error", "The inspector failed; the details are in its log.")
        start_response(response.status, [("Content-Type", response.content_type),
                                         ("Content-Length", str(len(response.body))),
                                         *SECURITY_HEADERS, *response.headers])
        return [response.body]

    def handle(self, request: Request) -> Response:
        guard = self.guard
        if not guard.host_allowed(request.headers["host"]):
            return self.error("403 Forbidden", f"This inspector answers only at 127.0.0.1:{guard.port}.")
        if request.method == "GET" and request.path == "/static/style.css":
            return Response("200 OK", (STATIC / "style.css").read_bytes(), content_type="text/css; charset=utf-8")
        offered = request.query.get("token")
        if guard.token is not None and request.method == "GET" and offered is not None:
            if not guard.token_matches(offered):
                return self.error("401 Unauthorized", "Wrong token.")
            rest = urlencode({k: v for k, v in request.query.items() if k != "token"})
            return Response.redirect(request.path + (f"?{rest}" if rest else ""), ("Set-Cookie", guard.cookie()))
        if not guard.authenticated(request.headers["cookie"], request.headers["authorization"]):
            return self.error("401 Unauthorized", "This inspector needs its token: open the link that "
                                                  "`hindsight ui` printed (it ends in ?token=...).")
        if request.method == "POST" and not (
                guard.same_origin(request.headers["origin"], request.headers["sec-fetch-site"],
                                  request.headers["host"]) and guard.form_token_ok(request.form.get("form_token"))):
            return self.error("403 Forbidden", "This change did not come from the inspector's own page; "
                                               "reload the page and try again.")
        route = self.routes.get((request.method, request.path))
        if route is None:
            return self.error("404 Not Found", f"No page {request.method} {request.path}.")
        return route(request)

    # -- helpers ----------------------------------------------------------------------------
    def page(self, title: str, body: Safe, *, user: str | None = None, tab: str | None = None,
             status: str = "200 OK", records: list[MemoryRecord] | None = None) -> Response:
        quarantined = None
        if user is not None:
            records = records if records is not None else self.memory.memories(user_id=user)
            quarantined = sum(r.status is Status.QUARANTINED for r in records)
        html = pages.layout(title, body, users=self.memory.users(), user=user, tab=tab, quarantined=quarantined)
        return Response(status, html.encode())

    def error(self, status: str, message: str) -> Response:
        # no user list here: an error may come before the request was found to be allowed
        return Response(status, pages.layout(status.split(" ", 1)[1], pages.message_page(message),
                                             users=()).encode())

    def user(self, request: Request) -> str:
        user = request.value("user")
        if user is None:
            raise InvalidInputError("choose a user first")
        if user not in self.memory.users():
            raise MemoryNotFoundError(f"no memories for user {user!r}")
        return user

    # -- pages ------------------------------------------------------------------------------
    def home(self, request: Request) -> Response:
        return self.page("Choose a user", pages.home_page(self.memory.users()))

    def memories(self, request: Request) -> Response:
        user = self.user(request)
        records = self.memory.memories(user_id=user)
        now = self.memory.now()
        shown = [(r, self.memory.retention_of(r, at=now)) for r in records if r.status is not Status.QUARANTINED]
        quarantined = len(records) - len(shown)
        limit = None if request.value("all") else PAGE_LIMIT
        return self.page(f"Memories of {user}", pages.memories_page(shown, quarantined, user=user, limit=limit),
                         user=user, tab="memories", records=records)

    def one_memory(self, request: Request) -> Response:
        user = self.user(request)
        record = self.memory.get(request.value("id") or "", user_id=user)
        now = self.memory.now()
        origin = record.last_accessed or record.timestamp
        points = sample(lambda at: self.memory.retention_of(record, at=at), origin,
                        max(now, origin) + timedelta(days=HORIZON_DAYS))
        plot = curve(points, now=now, threshold=self.memory.config.decay.retention_threshold)
        caption = el("p", f"From its last reinforcement on {origin:%Y-%m-%d}, if it is not recalled again; "
                          "each spaced recall would slow the fall.", class_="note")
        records = self.memory.memories(user_id=user)
        body = pages.memory_page(record, self.memory.retention_of(record, at=now), Safe(plot + caption),
                                 {r.id: r for r in records}, self.guard.form_token)
        return self.page(record.summary, body, user=user, tab="memories", records=records)

    def search(self, request: Request) -> Response:
        user = self.user(request)
        query = request.value("q") or ""
        try:
            k = max(1, min(50, int(request.value("k") or 10)))
        except ValueError:
            raise InvalidInputError("the number of results must be a whole number") from None
        # looking is not recalling: the inspector never strengthens the memories it shows
        results = self.memory.recall(query, user_id=user, k=k, reinforce=False) if query else None
        records = self.memory.memories(user_id=user)
        body = pages.search_page(user, query, k, results, {r.id: r for r in records})
        return self.page(f"Search {user}'s memories", body, user=user, tab="search", records=records)

    def recalls(self, request: Request) -> Response:
        user = self.user(request)
        session = request.value("session")
        log = self.recall_log
        entries = log.entries(user, session=session) if log is not None and log.enabled else None
        sessions = log.sessions(user) if entries is not None else []
        body = pages.recalls_page(user, entries, sessions, session)
        return self.page(f"What the agent saw of {user}'s memories", body, user=user, tab="recalls")

    def quarantine(self, request: Request) -> Response:
        user = self.user(request)
        records = self.memory.memories(user_id=user)
        held = [r for r in records if r.status is Status.QUARANTINED]
        notice = None
        released = request.value("released")
        if released:
            record = next((r for r in records if r.id == released), None)
            notice = el("p", "Released: ", el("a", record.summary if record else released,
                                              href=pages.url("/memory", user=user, id=released)),
                        " is recalled again.", class_="notice")
        return self.page(f"Quarantine of {user}", pages.quarantine_page(held, self.guard.form_token, notice),
                         user=user, tab="quarantine", records=records)

    def forget_form(self, request: Request) -> Response:
        user = self.user(request)
        return self.page(f"Forget {user}'s memories", pages.forget_form(user, self.guard.form_token), user=user,
                         tab="forget")

    def forget(self, request: Request) -> Response:
        """A dry run first; with `confirm`, the forget itself, only if the dry run still holds."""
        user = self.user(request)
        memory_id, about = request.value("memory_id"), request.value("about")
        preview = self.memory.forget(user_id=user, memory_id=memory_id, about=about, dry_run=True)
        title = f"Forget {user}'s memories"
        if request.value("confirm"):
            if ",".join(sorted(preview.ids)) == (request.value("expect") or ""):
                receipt = self.memory.forget(user_id=user, memory_id=memory_id, about=about)  # compacts itself
                return self.page(title, pages.receipt_page(receipt), user=user, tab="forget")
            body = pages.dry_run_page(preview, self.guard.form_token, memory_id=memory_id, about=about,
                                      notice="The memories changed since the dry run: here is the new one.")
            return self.page(title, body, user=user, tab="forget", status="409 Conflict")
        body = pages.dry_run_page(preview, self.guard.form_token, memory_id=memory_id, about=about)
        return self.page(title, body, user=user, tab="forget")

    def release(self, request: Request) -> Response:
        user = self.user(request)
        record = self.memory.release(user_id=user, memory_id=request.value("memory_id") or "")
        return Response.redirect(pages.url("/quarantine", user=user, released=record.id))
