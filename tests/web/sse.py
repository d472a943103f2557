"""A minimal server-sent-events client for the tests and the latency benchmark."""

from __future__ import annotations

import http.client
import json
from typing import Any
from urllib.parse import urlsplit


class SseClient:
    """Reads ``event:``/``data:`` blocks from ``/api/events``."""

    def __init__(self, url: str, timeout: float = 10.0) -> None:
        parts = urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port,
                                               timeout=timeout)
        self.conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
        self.response = self.conn.getresponse()
        self.status = self.response.status
        self.headers = dict(self.response.headers)

    def next_event(self) -> tuple[str, Any]:
        """The next event's (name, parsed data); comments and retry lines are skipped.

        :raises EOFError: the server ended the stream.
        """
        name, data = "message", list[str]()
        while True:
            raw = self.response.fp.readline()
            if not raw:
                raise EOFError("the event stream ended")
            line = raw.decode().rstrip("\r\n")
            if not line:
                if data:
                    return name, json.loads("\n".join(data))
                name = "message"
                continue
            if line.startswith(":"):
                continue
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if field == "event":
                name = value
            elif field == "data":
                data.append(value)

    def next_of(self, kind: str) -> Any:
        while True:
            name, data = self.next_event()
            if name == kind:
                return data

    def close(self) -> None:
        self.response.close()  # the response holds the socket open until it closes too
        self.conn.close()
