"""The page server's front door: a bounded HTTP/1.0 server core on the standard library.

``http.server.ThreadingHTTPServer`` starts a thread for every connection and reads the request
on it with no time limit, so a client that connects and says nothing holds a thread and a file
descriptor for ever: about a thousand such sockets exhaust the default 1024 open files, and the
accept loop then spins. This core keeps every connection bounded instead:

* one selector thread accepts and reads each request (its head and, when it has one, its
  body) without blocking; a request that is not complete within ``request_timeout`` seconds
  is dropped, and beyond ``max_pending`` waiting connections the oldest is dropped first, so
  idle or slow clients never hold more than ``max_pending`` descriptors, nor any thread;
* a body must come with a valid ``Content-Length`` within ``max_body`` (no chunked bodies):
  anything else is answered 400/411/413 at once, before a byte of it is kept;
* complete requests go to a fixed pool of ``workers`` threads (503 when its queue is full),
  where the handler runs with ``io_timeout`` on the socket, so a client that stops reading a
  reply frees its worker too.

The handler class is an ordinary :class:`http.server.BaseHTTPRequestHandler` whose
``request`` is ``(socket, bytes already read)`` (see :class:`GatedHandler`).

Why not a server library: waitress (pure Python, bounded) would mean rewriting the page's
handler as WSGI, and its fixed thread pool is held by each open event stream; the standard
library plus this ~250-line core keeps the install as it is on a Pi and bounds both.
"""

from __future__ import annotations

import contextlib
import errno
import io
import logging
import queue
import re
import selectors
import socket
import threading
import time
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler
from socketserver import _SocketWriter  # type: ignore[attr-defined]
from typing import Any

log = logging.getLogger("pibg.web")

_LENGTH = re.compile(rb"^\s*content-length\s*:\s*(.*?)\s*$", re.I | re.M)
_CHUNKED = re.compile(rb"^\s*transfer-encoding\s*:", re.I | re.M)
_DIGITS = re.compile(rb"^[0-9]{1,12}$")


class _Prefixed(io.RawIOBase):
    """A socket's input with the bytes the selector already read in front."""

    def __init__(self, prefix: bytes, sock: socket.socket) -> None:
        self._prefix = memoryview(prefix)
        self._sock = sock

    def readable(self) -> bool:
        return True

    def readinto(self, buf: Any) -> int:
        if self._prefix:
            n = min(len(buf), len(self._prefix))
            buf[:n] = self._prefix[:n]
            self._prefix = self._prefix[n:]
            return n
        return self._sock.recv_into(buf)


class GatedHandler(BaseHTTPRequestHandler):
    """A request handler for :class:`GatedServer`: reads the pre-read bytes first."""

    timeout = 10.0  # replaced by the server's io_timeout

    def setup(self) -> None:
        sock, prefix = self.request
        self.connection = sock
        sock.settimeout(getattr(self.server, "io_timeout", self.timeout))
        self.rfile = io.BufferedReader(_Prefixed(prefix, sock))
        self.wfile = _SocketWriter(sock)


class _Pending:
    __slots__ = ("addr", "buf", "deadline", "need")

    def __init__(self, addr: Any, deadline: float) -> None:
        self.addr = addr
        self.buf = bytearray()
        self.deadline = deadline
        self.need: int | None = None  # total bytes of head + body, once the head is in


class GatedServer:
    """Accepts on ``address`` and serves ``handler`` (a :class:`GatedHandler`) with bounds.

    ``serve_forever()`` runs the selector loop (on a thread of the caller's); ``shutdown()``
    stops it and the workers; ``server_close()`` closes the listening socket. The attributes
    ``server_address`` and anything set on the instance (``web``) are what handlers see as
    ``self.server``.
    """

    def __init__(self, address: tuple[str, int], handler: type[GatedHandler], *,
                 workers: int = 24, max_pending: int = 128, request_timeout: float = 10.0,
                 io_timeout: float = 10.0, max_head: int = 16 * 1024,
                 max_body: int = 64 * 1024) -> None:
        self.handler = handler
        self.workers = workers
        self.max_pending = max_pending
        self.request_timeout = request_timeout
        self.io_timeout = io_timeout
        self.max_head = max_head
        self.max_body = max_body
        family = socket.AF_INET6 if ":" in address[0] else socket.AF_INET
        self.socket = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.socket.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.socket.bind(address)
            self.socket.listen(128)
            self.socket.setblocking(False)
        except OSError:
            self.socket.close()
            raise
        self.server_address = self.socket.getsockname()[:2]
        self._pending: OrderedDict[socket.socket, _Pending] = OrderedDict()
        self._queue: queue.Queue[tuple[socket.socket, Any, bytes] | None] = queue.Queue(
            maxsize=workers * 2)
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._threads: list[threading.Thread] = []

    # --- the selector loop ------------------------------------------------------------------

    def serve_forever(self, poll_interval: float = 0.2) -> None:
        self._threads = [threading.Thread(target=self._work, name=f"pibg-web-{i}", daemon=True)
                         for i in range(self.workers)]
        for t in self._threads:
            t.start()
        sel = selectors.DefaultSelector()
        sel.register(self.socket, selectors.EVENT_READ)
        try:
            while not self._stop.is_set():
                for key, _ in sel.select(poll_interval):
                    if key.fileobj is self.socket:
                        self._accept(sel)
                    else:
                        self._read(sel, key.fileobj)  # type: ignore[arg-type]
                now = time.monotonic()
                while self._pending:
                    sock, p = next(iter(self._pending.items()))
                    if p.deadline > now:
                        break
                    self._drop(sel, sock)  # too slow: its whole request is overdue
        finally:
            for sock in list(self._pending):
                self._drop(sel, sock)
            sel.close()
            for _ in self._threads:
                self._queue.put(None)
            self._stopped.set()

    def _accept(self, sel: selectors.BaseSelector) -> None:
        for _ in range(64):
            try:
                sock, addr = self.socket.accept()
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE) and self._pending:
                    self._drop(sel, next(iter(self._pending)))  # make room: oldest first
                    continue
                log.warning("web: accept failed: %s", exc)
                time.sleep(0.05)  # never spin on a persistent failure
                return
            if len(self._pending) >= self.max_pending:
                self._drop(sel, next(iter(self._pending)))
            sock.setblocking(False)
            self._pending[sock] = _Pending(addr, time.monotonic() + self.request_timeout)
            sel.register(sock, selectors.EVENT_READ)

    def _read(self, sel: selectors.BaseSelector, sock: socket.socket) -> None:
        p = self._pending.get(sock)
        if p is None:
            return
        try:
            chunk = sock.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self._drop(sel, sock)
            return
        p.buf += chunk
        if p.need is None:
            end, sep = p.buf.find(b"\r\n\r\n"), 4
            if end < 0:  # bare newlines: http.server accepts those too
                end, sep = p.buf.find(b"\n\n"), 2
            if end < 0 or end > self.max_head:
                if len(p.buf) > self.max_head:
                    self._answer(sel, sock, 431, "request head too large")
                return
            head = bytes(p.buf[:end])
            if _CHUNKED.search(head):
                self._answer(sel, sock, 411, "send the body with a Content-Length")
                return
            lengths = {m.group(1) for m in _LENGTH.finditer(head)}
            n = 0
            if lengths:
                value = lengths.pop()
                if lengths or not _DIGITS.match(value):
                    self._answer(sel, sock, 400, "bad Content-Length")
                    return
                n = int(value)
                if n > self.max_body:
                    self._answer(sel, sock, 413, f"request body too large ({n} bytes; at "
                                                 f"most {self.max_body})")
                    return
            p.need = end + sep + n
        if len(p.buf) >= p.need:
            del self._pending[sock]
            sel.unregister(sock)
            try:
                self._queue.put_nowait((sock, p.addr, bytes(p.buf)))
            except queue.Full:
                self._reply(sock, 503, "the page server is busy: try again")

    def _drop(self, sel: selectors.BaseSelector, sock: socket.socket) -> None:
        self._pending.pop(sock, None)
        with contextlib.suppress(KeyError, ValueError):
            sel.unregister(sock)
        sock.close()

    def _answer(self, sel: selectors.BaseSelector, sock: socket.socket, status: int,
                reason: str) -> None:
        self._pending.pop(sock, None)
        with contextlib.suppress(KeyError, ValueError):
            sel.unregister(sock)
        self._reply(sock, status, reason)

    @staticmethod
    def _reply(sock: socket.socket, status: int, reason: str) -> None:
        """A short JSON refusal, written without blocking (it fits the socket's buffer)."""
        import json
        from http import HTTPStatus

        body = json.dumps({"error": reason, "status": status}).encode()
        head = (f"HTTP/1.0 {status} {HTTPStatus(status).phrase}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
                f"Connection: close\r\n\r\n").encode()
        with contextlib.suppress(OSError):
            sock.send(head + body)
        sock.close()

    # --- the workers ------------------------------------------------------------------------

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            sock, addr, data = item
            try:
                sock.setblocking(True)
                self.handler((sock, data), addr, self)  # type: ignore[arg-type]
            except Exception:  # a broken client never ends a worker
                log.debug("web: request from %s failed", addr, exc_info=True)
            finally:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_WR)
                sock.close()

    # --- lifetime ---------------------------------------------------------------------------

    def shutdown(self) -> None:
        """Stop the loop and the workers (a worker busy with a request ends after it)."""
        self._stop.set()
        if self._threads:
            self._stopped.wait(5)
        for t in self._threads:
            t.join(timeout=2)

    def server_close(self) -> None:
        self.socket.close()
