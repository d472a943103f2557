"""Issue 39 (the web page opened to a club's network): idle sockets, bad body lengths, foreign
Host names, framing, expensive checks and abandoned event streams never take the page down.
Every socket here goes to 127.0.0.1, bounded in count; the timeouts are only safety bounds."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from pibg.web.server import WebServer

from .conftest import TOKEN, Serve, get_json, request
from .sse import SseClient
from .test_calibration import FakeCalibration


def _raw(web: WebServer, data: bytes, *, close: bool = False) -> bytes:
    """Send ``data`` and read the whole answer (the server closes after one request)."""
    with socket.create_connection(("127.0.0.1", web.port), timeout=10) as sock:
        sock.sendall(data)
        if close:
            sock.shutdown(socket.SHUT_WR)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    return out


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:  # closed with our unread request in its buffer
        return True


def _status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def test_idle_sockets_hold_no_thread_and_are_closed(serve: Serve) -> None:
    web = serve(request_timeout=0.5, max_pending=16)
    assert request(web, "/api/state")[0] == 200  # the workers are up
    threads = threading.active_count()
    idle = []
    try:
        for _ in range(40):
            sock = socket.create_connection(("127.0.0.1", web.port), timeout=10)
            sock.sendall(b"GET / HTTP/1.1\r\n")  # and then nothing more
            idle.append(sock)
        status, _, _ = request(web, "/api/state")  # accepted after all of them
        assert status == 200
        assert threading.active_count() <= threads + 1  # no thread per idle client
        for sock in (idle[0], idle[-1]):  # the oldest (evicted) and the newest (timed out)
            assert _closed_by_server(sock)
    finally:
        for sock in idle:
            sock.close()


@pytest.mark.parametrize("length,status", [
    (b"-1", 400), (b"+5", 400), (b"1e3", 400), (b" 0x10", 400), (b"99999999999", 413),
])
def test_a_bad_content_length_is_refused_at_once(serve: Serve, length: bytes,
                                                 status: int) -> None:
    web = serve(token=TOKEN, control=lambda action: None)
    answer = _raw(web, b"POST /api/control/confirm HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"X-Pibg-Token: " + TOKEN.encode() + b"\r\nContent-Length: " + length +
                  b"\r\n\r\n" + b"x" * 1000)  # and the connection stays open
    assert _status(answer) == status
    assert json.loads(answer.partition(b"\r\n\r\n")[2])["error"]


def test_chunked_and_conflicting_lengths_are_refused(serve: Serve) -> None:
    web = serve(token=TOKEN, control=lambda action: None)
    head = b"POST /api/control/confirm HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    assert _status(_raw(web, head + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello")) == 411
    assert _status(_raw(web, head + b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}")) == 400


def test_deep_json_is_a_400_not_a_500(serve: Serve) -> None:
    web = serve(token=TOKEN, control=lambda action: None)
    status, data = get_json(web, "/api/control/confirm", method="POST", body=b"[" * 60000,
                            headers={"X-Pibg-Token": TOKEN})
    assert status == 400 and "JSON" in data["error"]


def test_every_answer_forbids_framing_and_foreign_scripts(serve: Serve) -> None:
    web = serve()
    for path in ("/", "/api/state", "/no-such-page"):
        _, headers, _ = request(web, path)
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"]
        assert "script-src" not in headers["Content-Security-Policy"]  # default-src 'self'
        assert headers["X-Frame-Options"] == "DENY"


def test_a_foreign_host_name_is_refused(serve: Serve) -> None:
    web = serve(allowed_hosts=["pibg.club.example"])
    for host, status in ((b"evil.example", 403), (b"evil.example:8080", 403),
                         (b"localhost:8080", 200), (b"127.0.0.1", 200), (b"[::1]:80", 200),
                         (b"PIBG.club.example", 200)):
        answer = _raw(web, b"GET /api/state HTTP/1.1\r\nHost: " + host + b"\r\n\r\n")
        assert _status(answer) == status, host


def test_board_checks_without_the_token_are_rate_limited(serve: Serve) -> None:
    fake = FakeCalibration()
    web = serve(calibration=fake, token=TOKEN, check_interval=600.0)
    assert get_json(web, "/api/calibration/check")[0] == 200
    status, data = get_json(web, "/api/calibration/check")
    assert status == 429 and "try again" in data["error"]
    assert get_json(web, "/api/calibration/check", headers={"X-Pibg-Token": TOKEN})[0] == 200
    assert len(fake.checked) == 2


def test_an_event_stream_slot_is_freed_when_its_client_leaves(serve: Serve) -> None:
    web = serve(max_streams=1, keepalive=600.0)
    first = SseClient(web.url)
    first.next_of("state")
    first.close()
    deadline = time.monotonic() + 10  # safety bound; the slot is freed within STREAM_POLL
    while True:
        second = SseClient(web.url)
        try:
            if second.status == 200:
                break
        finally:
            second.close()
        assert time.monotonic() < deadline, "the slot of a client that left stayed taken"
        time.sleep(0.1)
