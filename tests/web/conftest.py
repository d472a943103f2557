"""Fixtures for the web page: a LiveView fed by a replayed match, and servers on 127.0.0.1:0."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pibg.app import Session
from pibg.events import Event, MatchSettings
from pibg.referee import Step
from pibg.script import drive, table_script
from pibg.selfplay import random_match
from pibg.web import LiveView, WebServer

TOKEN = "s3cret-token"


def match_events(seed: int = 3) -> list[Event]:
    return random_match(seed, MatchSettings(length=3, white="alice", black="bob"))


def replay_steps(events: list[Event]) -> list[Step]:
    """Every referee step of a match played at the table (perfect readings)."""
    steps: list[Step] = []
    drive(table_script(events), events[0].settings,  # type: ignore[attr-defined]
          on_step=steps.append)
    return steps


@pytest.fixture(scope="session")
def steps() -> list[Step]:
    return replay_steps(match_events())


@pytest.fixture
def records(tmp_path: Path) -> Path:
    """A records directory with one recorded match (journal, .mat and .sgf)."""
    root = tmp_path / "records"
    events = match_events(5)
    with Session(root / "2026-11-22-alice-bob", events[0].settings) as session:  # type: ignore[attr-defined]
        for ev in events[1:]:
            session.journal.append(ev)
        session.export()
    return root


Serve = Callable[..., WebServer]


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Serve]:
    """``serve(view=None, **kwargs)``: a started WebServer on 127.0.0.1, port 0."""
    servers: list[WebServer] = []

    def make(view: LiveView | None = None, **kw: Any) -> WebServer:
        kw.setdefault("records_dir", tmp_path / "no-records")
        web = WebServer(view or LiveView(), host="127.0.0.1", port=0, **kw)
        servers.append(web.start())
        return web

    yield make
    for web in servers:
        web.close()


def request(web: WebServer, path: str, *, method: str = "GET", body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of one request; 4xx/5xx are returned, not raised."""
    req = urllib.request.Request(web.url.rstrip("/") + path, data=body, method=method,
                                 headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as res:
            return res.status, dict(res.headers), res.read()
    except urllib.error.HTTPError as err:
        return err.code, dict(err.headers), err.read()


def get_json(web: WebServer, path: str, **kw: Any) -> tuple[int, Any]:
    status, _, data = request(web, path, **kw)
    return status, json.loads(data)
