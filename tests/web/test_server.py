"""The HTTP side: pages, 4xx with reasons, the token, downloads, the event stream."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from pibg.exc import PibgError
from pibg.journal import read_events
from pibg.observation import BoardObservation
from pibg.referee import Step
from pibg.stats import dice_stats
from pibg.web import ACTIONS, LiveView, WebServer

from .conftest import TOKEN, Serve, get_json, request
from .sse import SseClient


def test_pages_and_static_files(serve: Serve) -> None:
    web = serve()
    for path, ctype in [("/", "text/html"), ("/calibrate", "text/html"),
                        ("/records", "text/html"), ("/static/app.js", "text/javascript"),
                        ("/static/style.css", "text/css")]:
        status, headers, body = request(web, path)
        assert status == 200, path
        assert headers["Content-Type"].startswith(ctype)
        assert body
    assert web.url.startswith("http://127.0.0.1:") and web.port != 0


@pytest.mark.parametrize("path,status,says", [
    ("/nope", 404, "no such page"),
    ("/static/missing.js", 404, "no such file"),
    ("/static/../server.py", 404, "no such"),
    ("/records/x", 404, "records are"),
    ("/records/../etc/match.mat", 404, "records are"),
    ("/records/%2e%2e/match.mat", 404, "no record"),
    ("/records/a/passwd", 404, "not a record file"),
    ("/frame.jpg", 404, "no camera frame"),
    ("/api/calibration", 404, "calibration is not available"),
])
def test_bad_gets_answer_4xx_with_a_reason(serve: Serve, path: str, status: int,
                                            says: str) -> None:
    web = serve()
    got, headers, body = request(web, path)
    assert got == status
    assert headers["Content-Type"] == "application/json"
    data = json.loads(body)
    assert says in data["error"]
    assert "Traceback" not in body.decode()


def test_wrong_methods(serve: Serve) -> None:
    web = serve()
    assert request(web, "/api/state", method="PUT")[0] == 405
    assert request(web, "/api/state", method="POST", body=b"{}")[0] == 405
    assert request(web, "/nothing", method="POST", body=b"{}")[0] == 404


def test_controls_are_off_without_a_token(serve: Serve) -> None:
    called: list[str] = []
    web = serve(control=called.append)
    status, data = get_json(web, "/api/control/undo", method="POST", body=b"{}",
                            headers={"X-Pibg-Token": "anything"})
    assert status == 403 and "token" in data["error"]
    assert called == []
    assert get_json(web, "/api/info")[1]["controls"] is False


def test_controls_need_the_right_token(serve: Serve) -> None:
    called: list[str] = []
    web = serve(control=called.append, token=TOKEN)
    assert get_json(web, "/api/info")[1]["controls"] is True
    post = {"method": "POST", "body": b"{}"}
    status, data = get_json(web, "/api/control/undo", **post)
    assert status == 401 and "token" in data["error"]
    status, data = get_json(web, "/api/control/undo", **post, headers={"X-Pibg-Token": "no"})
    assert status == 401 and "wrong token" in data["error"]
    status, data = get_json(web, "/api/control/launch", **post, headers={"X-Pibg-Token": TOKEN})
    assert status == 404 and "unknown control" in data["error"] and "undo" in data["error"]
    status, data = get_json(web, "/api/control/undo", **post, headers={"X-Pibg-Token": TOKEN})
    assert status == 202 and data == {"ok": True, "action": "undo"}
    status, _ = get_json(web, "/api/control/confirm", **post,
                         headers={"Authorization": f"Bearer {TOKEN}"})
    assert status == 202
    assert called == ["undo", "confirm"]
    status, data = get_json(web, "/api/control/undo", method="POST", body=b"{not json",
                            headers={"X-Pibg-Token": TOKEN})
    assert status == 400 and "JSON" in data["error"]
    status, data = get_json(web, "/api/control/undo", method="POST", body=b"x" * 70_000,
                            headers={"X-Pibg-Token": TOKEN})
    assert status == 413
    assert called == ["undo", "confirm"]
    assert set(ACTIONS) >= {"undo", "confirm", "new_match"}


def test_a_refused_control_is_a_409_with_the_reason(serve: Serve) -> None:
    def control(action: str) -> None:
        raise PibgError("undo: nothing to take back")

    web = serve(control=control, token=TOKEN)
    status, data = get_json(web, "/api/control/undo", method="POST", body=b"{}",
                            headers={"X-Pibg-Token": TOKEN})
    assert status == 409 and "nothing to take back" in data["error"]
    web2 = serve(token=TOKEN)
    status, data = get_json(web2, "/api/control/undo", method="POST", body=b"{}",
                            headers={"X-Pibg-Token": TOKEN})
    assert status == 503


def test_an_internal_failure_is_a_500_without_a_traceback(serve: Serve) -> None:
    class Broken(LiveView):
        def state_json(self) -> str:
            raise RuntimeError("boom at /secret/path")

    web = serve(Broken())
    status, _, body = request(web, "/api/state")
    assert status == 500
    assert json.loads(body)["error"] == "internal error: RuntimeError"
    assert b"secret" not in body and b"Traceback" not in body


def test_records_list_with_dice_stats_and_downloads(serve: Serve, records: Path) -> None:
    web = serve(records_dir=records)
    status, listing = get_json(web, "/api/records")
    assert status == 200 and len(listing) == 1
    rec = listing[0]
    folder = records / rec["name"]
    events = read_events(folder / "match.jsonl")
    stats = dice_stats(events)
    assert rec["stats"]["faces"] == list(stats.faces)
    assert rec["stats"]["rolls"] == stats.rolls
    assert rec["stats"]["p_value"] == round(stats.p_value, 4)
    assert rec["players"] == {"white": "alice", "black": "bob"}
    assert set(rec["files"]) == {"mat", "sgf", "journal"}
    for kind, name in [("mat", "match.mat"), ("sgf", "match.sgf"), ("journal", "match.jsonl")]:
        status, headers, body = request(web, rec["files"][kind])
        assert status == 200
        assert body == (folder / name).read_bytes()
        ext = name[name.rfind("."):]
        assert headers["Content-Disposition"] == (
            f'attachment; filename="alice-bob-{rec["name"]}{ext}"')
        assert not headers["Content-Type"].startswith("text/plain")


def test_records_of_a_missing_or_broken_folder(serve: Serve, tmp_path: Path) -> None:
    root = tmp_path / "recs"
    (root / "broken").mkdir(parents=True)
    (root / "broken" / "match.jsonl").write_text('{"event": "nonsense"}\n')
    (root / "empty").mkdir()
    web = serve(records_dir=root)
    status, listing = get_json(web, "/api/records")
    assert status == 200
    assert [r["name"] for r in listing] == ["broken"]
    assert "cannot read" in listing[0]["error"]
    assert get_json(serve(records_dir=tmp_path / "absent"), "/api/records") == (200, [])


def test_state_and_frame(serve: Serve, steps: list[Step]) -> None:
    view = LiveView()
    web = serve(view)
    assert get_json(web, "/api/state")[1]["mode"] == "waiting"
    view.update(steps[-1], np.full((120, 160, 3), 90, np.uint8),
                BoardObservation.exact([0] * 24))
    status, snap = get_json(web, "/api/state")
    assert status == 200 and snap["mode"] == steps[-1].state.mode.value
    assert snap["svg"].startswith("<svg")
    status, headers, body = request(web, "/frame.jpg")
    assert status == 200 and headers["Content-Type"] == "image/jpeg" and body[:2] == b"\xff\xd8"
    assert request(web, "/frame.jpg?raw=1")[0] == 200


def test_events_stream_pushes_each_change(serve: Serve, steps: list[Step]) -> None:
    view = LiveView()
    web = serve(view, frame_interval=0.0)
    client = SseClient(web.url)
    try:
        assert client.status == 200
        assert client.headers["Content-Type"] == "text/event-stream"
        assert client.next_of("state")["mode"] == "waiting"
        latencies = []
        for step in steps[:30]:
            t0 = time.perf_counter()
            view.update(step)
            snap = client.next_of("state")
            latencies.append(time.perf_counter() - t0)
            assert snap["mode"] == step.state.mode.value
            assert snap["version"] == view.versions.state
        view.update(steps[30], np.zeros((40, 40, 3), np.uint8))
        assert client.next_of("frame") == {"frame": view.versions.frame}
        # measured, not asserted (see benchmarks/web_latency.py)
        print(f"SSE latency: median {sorted(latencies)[len(latencies) // 2] * 1000:.2f} ms")
    finally:
        client.close()


def test_close_ends_streams_and_is_safe_twice(steps: list[Step], tmp_path: Path) -> None:
    view = LiveView()
    with WebServer(view, records_dir=tmp_path, host="127.0.0.1", port=0) as web:
        client = SseClient(web.url)
        client.next_of("state")
        done = threading.Event()

        def read() -> None:
            try:
                while True:
                    client.next_event()
            except (EOFError, OSError):
                done.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
    assert done.wait(10), "the event stream did not end when the server closed"
    web.close()
    web.close()
    client.close()


def test_too_many_streams_is_a_503(serve: Serve) -> None:
    web = serve(max_streams=1)
    first = SseClient(web.url)
    try:
        first.next_of("state")
        status, data = get_json(web, "/api/events")
        assert status == 503 and "too many" in data["error"]
    finally:
        first.close()


@pytest.mark.parametrize("raw,status", [
    (b"GARBAGE\r\n\r\n", 400),
    (b"GET / HTTP/9.9\r\n\r\n", 505),
    (b"OPTIONS /api/control/undo HTTP/1.1\r\nHost: x\r\n\r\n", 405),
    (b"BREW / HTTP/1.1\r\nHost: x\r\n\r\n", 501),
])
def test_malformed_requests_get_a_json_reason(serve: Serve, raw: bytes, status: int) -> None:
    import socket

    web = serve()
    with socket.create_connection(("127.0.0.1", web.port), timeout=10) as sock:
        sock.sendall(raw)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == str(status).encode()
    assert json.loads(body)["error"]
    assert b"Traceback" not in data
