"""The inspector over plain HTTP: escaping, who may read it, and who may change memories (CSRF)."""

from __future__ import annotations

import pytest

from hindsight_core import Hindsight, Status
from hindsight_core.contract.checks import ONE_TARGET
from hindsight_core.testing import FakeEmbedder
from hindsight_core.ui import InspectorServer, UnsafeExposureError

from .http import request

pytestmark = pytest.mark.timeout(60)

RAW = "<script>alert('pwned')</script>"
ESCAPED = "&lt;script&gt;alert(&#x27;pwned&#x27;)&lt;/script&gt; I prefer &lt;b&gt;bold&lt;/b&gt; headings &amp; short"


@pytest.mark.parametrize("path", ["/memories?user=alice", "/memory?user=alice&id={hostile}",
                                  "/search?user=alice&q=bold+headings+short+answers"])
def test_a_script_in_a_memory_is_escaped(server, ids, path):
    reply = request(server.port, "GET", path.format(**ids))
    assert reply.status == 200
    assert RAW not in reply.body and "<b>bold" not in reply.body
    assert ESCAPED in reply.body
    # and were anything to slip through, no script may run on these pages
    assert "default-src 'none'" in reply.headers["content-security-policy"]
    assert "script-src" not in reply.headers["content-security-policy"]


def test_hostile_user_ids_and_queries_are_escaped(server, memory):
    memory.write("I prefer short answers.", user_id="<img src=x onerror=alert(1)>")
    home = request(server.port, "GET", "/")
    assert "<img src=x" not in home.body and "&lt;img src=x onerror=alert(1)&gt;" in home.body
    search = request(server.port, "GET", '/search?user=alice&q="><script>x()</script>')
    assert "<script>x()" not in search.body and 'value="&quot;&gt;&lt;script&gt;x()' in search.body


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::"])
def test_a_token_is_required_off_loopback(memory, host):
    with pytest.raises(UnsafeExposureError, match="without a token"):
        InspectorServer(memory, host=host, port=0)


def test_an_empty_token_is_refused(memory):
    with pytest.raises(UnsafeExposureError, match="empty"):
        InspectorServer(memory, port=0, token="  ")


def _with_token(stack: str, memory, token: str):
    if stack == "ui":
        return InspectorServer(memory, port=0, token=token)
    from hindsight_core.remote.runner import BackgroundServer, ServeOptions

    return BackgroundServer(memory, ServeOptions(port=0, token=token))


@pytest.mark.parametrize("stack", ["ui", "serve"])
def test_with_a_token_every_request_needs_it(memory, stack):
    token = 'se;cr"et token'
    with _with_token(stack, memory, token) as server:
        denied = request(server.port, "GET", "/memories?user=alice")
        assert denied.status == 401 and "alice" not in denied.body and "?token=" in denied.body
        assert request(server.port, "GET", "/?token=wrong").status == 401
        assert request(server.port, "GET", "/static/style.css").status == 200  # nothing secret in it

        login = request(server.port, "GET", server.login_url.split(str(server.port), 1)[1])
        assert login.status == 303 and login.headers["location"] == "/"
        cookie = login.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "secret" not in cookie
        with_cookie = request(server.port, "GET", "/", headers={"Cookie": cookie.split(";", 1)[0]})
        assert with_cookie.status == 200 and "alice" in with_cookie.body

        bearer = request(server.port, "GET", "/memories?user=bob", headers={"Authorization": f"Bearer {token}"})
        assert bearer.status == 200 and "I prefer tea to coffee." in bearer.body
        forged = request(server.port, "GET", "/", headers={"Cookie": f"hindsight_ui_{server.port}=x"})
        assert forged.status == 401


def test_a_foreign_host_name_is_refused_without_a_token(server):
    # a page at evil.example whose DNS name was pointed at 127.0.0.1 (DNS rebinding) reads nothing
    reply = request(server.port, "GET", "/memories?user=alice", headers={"Host": f"evil.example:{server.port}"})
    assert reply.status == 403 and "Baker Street" not in reply.body
    assert request(server.port, "GET", "/", headers={"Host": f"localhost:{server.port}"}).status == 200


def _release_form(server, ids, **changes):
    page = request(server.port, "GET", "/quarantine?user=alice")
    return {"form_token": page.form_token(), "user": "alice", "memory_id": ids["planted"], **changes}


@pytest.mark.parametrize("attack", [
    {"form": {"form_token": None}},
    {"form": {"form_token": "guessed"}},
    {"headers": {"Origin": "http://evil.example"}},
    {"headers": {"Origin": "null"}},
    {"headers": {"Sec-Fetch-Site": "cross-site"}},
])
def test_csrf_is_refused(server, memory, ids, attack):
    form = {k: v for k, v in {**_release_form(server, ids), **attack.get("form", {})}.items() if v is not None}
    reply = request(server.port, "POST", "/release", form=form, headers=attack.get("headers"))
    assert reply.status == 403
    assert memory.get(ids["planted"], user_id="alice").status is Status.QUARANTINED


def test_a_same_origin_release_goes_through(server, memory, ids):
    reply = request(server.port, "POST", "/release", form=_release_form(server, ids),
                    headers={"Origin": f"http://127.0.0.1:{server.port}", "Sec-Fetch-Site": "same-origin"})
    assert reply.status == 303 and reply.headers["location"] == f"/quarantine?user=alice&released={ids['planted']}"
    assert memory.get(ids["planted"], user_id="alice").status is Status.ACTIVE


def test_a_confirm_after_the_memories_changed_shows_a_new_dry_run(server, memory, ids):
    token = request(server.port, "GET", "/forget?user=alice").form_token()
    form = {"form_token": token, "user": "alice", "about": "Baker Street address", "confirm": "1",
            "expect": "an-id-the-dry-run-never-showed"}
    reply = request(server.port, "POST", "/forget", form=form)
    assert reply.status == 409 and "changed since the dry run" in reply.body
    assert memory.get(ids["address"], user_id="alice")


@pytest.mark.parametrize("named", [{}, {"memory_id": "some-id", "about": "Baker Street address"}],
                         ids=["nothing", "both"])
def test_a_forget_naming_nothing_or_two_things_gets_the_cores_message(server, memory, ids, named):
    token = request(server.port, "GET", "/forget?user=alice").form_token()
    reply = request(server.port, "POST", "/forget", form={"form_token": token, "user": "alice", **named})
    assert reply.status == 400 and ONE_TARGET in reply.body
    assert memory.get(ids["address"], user_id="alice")


@pytest.mark.parametrize("path, status", [("/memories?user=nobody", 404), ("/memory?user=alice&id=nope", 404),
                                          ("/memories", 400), ("/nowhere", 404)])
def test_bad_requests_get_a_page_that_says_why(server, path, status):
    reply = request(server.port, "GET", path)
    assert reply.status == status and 'class="error"' in reply.body


def test_an_oversized_form_is_refused(server):
    token = request(server.port, "GET", "/forget?user=alice").form_token()
    reply = request(server.port, "POST", "/forget", form={"form_token": token, "user": "alice",
                                                          "about": "x" * 70_000})
    assert reply.status == 400 and "65,536" in reply.body


def test_releasing_an_active_memory_says_it_is_not_quarantined(server, ids):
    reply = request(server.port, "POST", "/release", form=_release_form(server, ids, memory_id=ids["vegetarian"]))
    assert reply.status == 400 and "not quarantined" in reply.body


def test_a_long_layer_shows_the_newest_and_links_to_the_rest(server, memory, monkeypatch):
    monkeypatch.setattr("hindsight_core.ui.app.PAGE_LIMIT", 2)
    episodes = sorted((r for r in memory.memories(user_id="alice")
                       if r.layer.value == "episodic" and r.status is Status.ACTIVE),
                      key=lambda r: r.timestamp, reverse=True)
    page = request(server.port, "GET", "/memories?user=alice").body
    episodic = page.split('id="layer-episodic"', 1)[1]
    assert episodic.count('<article class="memory"') == 2
    assert f"Showing the newest 2 of {len(episodes)}." in episodic
    assert 'href="/memories?user=alice&amp;all=1"' in episodic
    assert episodic.index(f'id="m-{episodes[0].id}"') < episodic.index(f'id="m-{episodes[1].id}"')
    everything = request(server.port, "GET", "/memories?user=alice&all=1").body.split('id="layer-episodic"', 1)[1]
    assert everything.count('<article class="memory"') == len(episodes) and "Showing the newest" not in everything


def test_an_empty_store_says_how_to_fill_it():
    with Hindsight(location=":memory:", embedder=FakeEmbedder()) as empty, InspectorServer(empty, port=0) as server:
        reply = request(server.port, "GET", "/")
    assert reply.status == 200 and "<code>hindsight remember -u USER TEXT</code>" in reply.body
    assert "<select" not in reply.body  # no users to choose from


def test_a_card_lists_the_first_episodes_of_its_knowledge_and_its_page_lists_all(server, memory, monkeypatch):
    monkeypatch.setattr("hindsight_core.ui.pages.CARD_SOURCES", 2)
    knowledge = next(r for r in memory.memories(user_id="alice") if r.layer.value == "semantic")
    card = request(server.port, "GET", "/memories?user=alice").body.split('id="layer-semantic"', 1)[1]
    card = card.split("</article>", 1)[0]
    # two of its four episodes, "and 2 more", itself, and the portrait correction that superseded it
    assert "derived from 4: " in card and card.count('href="/memory?user=alice&amp;id=') == 2 + 1 + 1 + 1
    assert f'<a href="/memory?user=alice&amp;id={knowledge.id}">and 2 more</a>' in card
    page = request(server.port, "GET", f"/memory?user=alice&id={knowledge.id}").body
    assert all(f"id={episode}" in page for episode in knowledge.derived_from)


def test_a_bug_is_a_500_page_and_a_traceback_in_the_log(memory, monkeypatch):
    logged = []
    with InspectorServer(memory, port=0, log=logged.append) as server:
        monkeypatch.setattr(memory, "memories", lambda **_: 1 / 0)
        reply = request(server.port, "GET", "/memories?user=alice")
    assert reply.status == 500 and "the details are in its log" in reply.body and "ZeroDivision" not in reply.body
    assert len(logged) == 1 and "ZeroDivisionError" in logged[0]


@pytest.mark.parametrize("length", ["-1", "abc"])
def test_a_bad_content_length_is_a_clean_400(server, length):
    """On both stacks: the standard library's server (the inspector's own check) and uvicorn's."""
    import socket

    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as sock:
        sock.sendall(f"POST /forget HTTP/1.1\r\nHost: 127.0.0.1:{server.port}\r\nContent-Length: {length}\r\n"
                     "Connection: close\r\n\r\nuser=alice".encode())
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert int(answer.split(b" ", 2)[1]) == 400
    assert request(server.port, "GET", "/").status == 200  # and it still serves
