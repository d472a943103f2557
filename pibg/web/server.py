"""The live web page's server: standard library HTTP handling and server-sent events, behind
the bounded front door of :mod:`pibg.web.gate` (timeouts on every socket, a fixed worker pool).

Pages (static files from ``pibg/web/static``): ``/`` the live board, ``/calibrate``,
``/records``. Data::

    GET  /api/info                      controls on?  calibration page on?  the actions
    GET  /api/state                     the snapshot (LiveView.state_json)
    GET  /api/events                    SSE: "state" events (the snapshot), "frame" events
    GET  /frame.jpg[?raw=1]             the latest camera frame, regions drawn unless raw
    GET  /api/records                   the matches under the records directory, with dice stats
    GET  /records/NAME/match.mat|.sgf|.jsonl      downloads
    GET  /api/calibration               corners (saved, detected or none) and the frame size
    GET  /api/calibration/frame.jpg     the camera frame for placing the corners
    GET  /api/calibration/check[?corners=x,y;x,y;x,y;x,y]   read the board now (one at a time;
                                        without the token at most one per ``check_interval`` s)
    POST /api/calibration               {"corners": [[x, y] x 4]}: learn and save   (token)
    POST /api/control/ACTION            undo, confirm, ...                           (token)
    POST /api/amend                     {"game": G, "move": M, "dice": [a, b], "note": ""}:
                                        set the dice of a turn in doubt of a game that has
                                        ended (:class:`~pibg.events.Amended`)        (token)

Controls need the token (header ``X-Pibg-Token: T`` or ``Authorization: Bearer T``); with no
token configured the page is view-only and every control answers 403. A custom header cannot
be sent cross-site without a CORS preflight, which this server never grants, so another site
open in the same browser cannot press the buttons. Every bad request gets a 4xx and a JSON
``{"error": reason}``, never a traceback.

The page may be opened to a club's network, so every answer carries a Content-Security-Policy
(scripts and styles from this server only, no framing) and ``X-Frame-Options: DENY``, and a
request whose ``Host`` is a name other than ``localhost``, this machine's name (``NAME`` or
``NAME.local``) or one in ``allowed_hosts`` is refused (403): a page on another site that
rebinds its own name to this server's address (DNS rebinding) gets nothing. Addresses (IP
literals) are always accepted.
"""

from __future__ import annotations

import contextlib
import hmac
import ipaddress
import json
import logging
import select
import socket
import threading
import time
from collections.abc import Callable, Iterable
from http import HTTPStatus
from importlib import resources
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from pibg.events import Amended
from pibg.exc import PibgError
from pibg.match import amendment_text, check_amendment
from pibg.moves import Dice
from pibg.web.calibration import CalibrationBackend, as_corners
from pibg.web.gate import GatedHandler, GatedServer
from pibg.web.records import FILES, Records
from pibg.web.view import LiveView, Versions

log = logging.getLogger("pibg.web")

#: What ``control(action)`` may be called with: the referee's buttons ("confirm" also condones
#: an illegal play), "accept_board" (a long confirm: the board as it stands is the position)
#: and "new_match".
#: seconds an event stream waits between checks that its client is still there
STREAM_POLL = 0.5

ACTIONS = ("confirm", "undo", "double", "take", "drop", "beaver", "accept_board", "new_match")

PAGES = {"/": "index.html", "/index.html": "index.html", "/calibrate": "calibrate.html",
         "/records": "records.html"}
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml", ".png": "image/png",
         ".ico": "image/x-icon"}
MAX_BODY = 64 * 1024
#: the longest note a reviewer may give with an amendment (it goes into the journal)
MAX_NOTE = 200
#: sent with every answer: this server's own scripts, styles and images only, and no framing
CSP = ("default-src 'self'; img-src 'self' data: blob:; style-src 'self' 'unsafe-inline'; "
       "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
SECURITY_HEADERS = {"Content-Security-Policy": CSP, "X-Frame-Options": "DENY",
                    "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"}


class HttpError(Exception):
    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def _static_files() -> dict[str, bytes]:
    root = resources.files("pibg.web") / "static"
    out: dict[str, bytes] = {}
    for item in root.iterdir():
        if item.is_file() and not item.name.startswith("."):
            out[item.name] = item.read_bytes()
    return out


class _Httpd(GatedServer):
    web: WebServer


def _host_name(header: str) -> str:
    """The name in a ``Host`` header, without the port and brackets, lower case."""
    host = header.strip().lower()
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host[1:]
    if host.count(":") == 1:
        host = host.split(":")[0]
    return host.rstrip(".")


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class WebServer:
    """The page server. ``start()`` serves on a background thread; ``close()`` stops it.

    >>> with WebServer(LiveView(), records_dir=Path("."), port=0) as web:  # doctest: +SKIP
    ...     print(web.url)
    """

    def __init__(self, view: LiveView, *, records_dir: Path, host: str = "127.0.0.1",
                 port: int = 8080, token: str | None = None,
                 control: Callable[[str], None] | None = None,
                 amend: Callable[[Amended], None] | None = None,
                 calibration: CalibrationBackend | None = None,
                 frame_interval: float = 1.0, keepalive: float = 15.0,
                 max_streams: int = 16, allowed_hosts: Iterable[str] = (),
                 check_interval: float = 2.0, request_timeout: float = 10.0,
                 max_pending: int = 128) -> None:
        self.view = view
        self.records = Records(records_dir)
        self.token = token or None
        self.control = control
        #: where an amendment checked against the page's events goes (the main loop feeds it
        #: to the referee, which records it); None: this server records no match
        self.amend = amend
        self.calibration = calibration
        self.frame_interval = frame_interval
        self.keepalive = keepalive
        self.max_streams = max_streams
        me = socket.gethostname().lower()
        self.allowed_hosts = {"localhost", me, f"{me}.local",
                              *(h.lower().rstrip(".") for h in allowed_hosts)}
        self.check_interval = check_interval
        self.request_timeout = request_timeout
        self.max_pending = max_pending
        self._check_lock = threading.Lock()
        self._check_next = 0.0
        self._host, self._port = host, port
        self._httpd: _Httpd | None = None
        self._thread: threading.Thread | None = None
        self._closing = threading.Event()
        self._streams = 0
        self._lock = threading.Lock()
        self.static = _static_files()

    # --- lifetime ---------------------------------------------------------------------------

    def start(self) -> WebServer:
        """Bind and serve on a background thread (port 0 picks a free port).

        :raises OSError: the address cannot be bound.
        """
        if self._httpd is not None:
            return self
        httpd = _Httpd((self._host, self._port), _Handler, workers=self.max_streams + 8,
                       max_pending=self.max_pending, request_timeout=self.request_timeout,
                       io_timeout=self.request_timeout, max_body=MAX_BODY)
        httpd.web = self
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.2},
                                        name="pibg-web", daemon=True)
        self._thread.start()
        log.info("web page at %s", self.url)
        return self

    @property
    def port(self) -> int:
        if self._httpd is None:
            return self._port
        return int(self._httpd.server_address[1])

    @property
    def url(self) -> str:
        host = self._host
        if ":" in host:
            host = f"[{host}]"
        return f"http://{host}:{self.port}/"

    @property
    def closing(self) -> bool:
        return self._closing.is_set()

    def close(self) -> None:
        """Stop serving and end the event streams; safe to call twice."""
        self._closing.set()
        self.view.wake()
        httpd, self._httpd = self._httpd, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> WebServer:
        return self.start()

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    # --- helpers for the handler ------------------------------------------------------------

    def check_host(self, headers: Any) -> None:
        """Refuse a ``Host`` that names another site (DNS rebinding); see the module doc."""
        given = headers.get("Host")
        if given is None:
            return  # HTTP/1.0 clients may omit it; browsers never do
        name = _host_name(given)
        if name in self.allowed_hosts or _is_address(name):
            return
        raise HttpError(403, f"Host {name!r} is not this server's name: add it to [web] "
                             f"allowed_hosts to open the page by that name")

    def has_token(self, headers: Any) -> bool:
        try:
            self.authorise(headers)
        except HttpError:
            return False
        return True

    def authorise(self, headers: Any) -> None:
        if self.token is None:
            raise HttpError(403, "controls are off: set a token in the config ([web] token) "
                                 "to enable them")
        given = headers.get("X-Pibg-Token") or ""
        auth = headers.get("Authorization") or ""
        if not given and auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        if not given:
            raise HttpError(401, "this control needs the token (X-Pibg-Token header)")
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            raise HttpError(401, "wrong token")

    def stream_slot(self, take: bool) -> bool:
        with self._lock:
            if take:
                if self._streams >= self.max_streams:
                    return False
                self._streams += 1
            else:
                self._streams -= 1
            return True

    def info(self) -> dict[str, Any]:
        return {"controls": self.token is not None and self.control is not None,
                "amend": self.token is not None and self.amend is not None,
                "token_required": True, "actions": list(ACTIONS),
                "calibration": self.calibration is not None}


class _Handler(GatedHandler):
    server: _Httpd  # type: ignore[assignment]
    server_version = "pibg"
    sys_version = ""

    # --- plumbing ---------------------------------------------------------------------------

    @property
    def web(self) -> WebServer:
        return self.server.web

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def _send(self, status: int, body: bytes, ctype: str,
              headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for k, v in {**SECURITY_HEADERS, **(headers or {})}.items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, obj: Any, status: int = 200) -> None:
        self._send(status, json.dumps(obj).encode(), "application/json")

    def _error(self, status: int, reason: str) -> None:
        self._json({"error": reason, "status": status}, status)

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """http.server's own refusals (a malformed request line, a long header) as JSON."""
        self.close_connection = True
        if self.request_version == "HTTP/0.9":  # unparsed: answer with a status line anyway
            self.request_version = "HTTP/1.0"
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = "error"
        self._error(code, f"{phrase}: {message}" if message and message != phrase else phrase)

    def _run(self, fn: Callable[[], None]) -> None:
        try:
            self.web.check_host(self.headers)
            fn()
        except HttpError as exc:
            self._error(exc.status, exc.reason)
        except PibgError as exc:
            self._error(422, str(exc))
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as exc:  # never a traceback to the browser
            log.warning("web: %s %s failed: %r", self.command, self.path, exc, exc_info=True)
            with contextlib.suppress(OSError):
                self._error(500, f"internal error: {type(exc).__name__}")

    def do_GET(self) -> None:
        self._run(self._get)

    def do_HEAD(self) -> None:
        self._run(self._get)

    def do_POST(self) -> None:
        self._run(self._post)

    def _refuse(self) -> None:
        self._error(405, f"method {self.command} not allowed")

    do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse

    def _target(self) -> tuple[str, dict[str, list[str]]]:
        parts = urlsplit(self.path)
        return unquote(parts.path), parse_qs(parts.query)

    def _body(self) -> Any:
        text = (self.headers.get("Content-Length") or "0").strip()
        if not text.isdigit() or not text.isascii():  # "-1" would read to the end of input
            raise HttpError(400, "bad Content-Length")
        n = int(text)
        if n > MAX_BODY:
            raise HttpError(413, f"request body too large ({n} bytes; at most {MAX_BODY})")
        raw = self.rfile.read(n) if n else b""
        if not raw:
            return {}
        try:
            return json.loads(raw)
        except (ValueError, UnicodeDecodeError, RecursionError):
            raise HttpError(400, "the body is not valid JSON (or nested too deeply)") from None

    # --- GET --------------------------------------------------------------------------------

    def _get(self) -> None:
        path, query = self._target()
        web = self.web
        if path in PAGES:
            return self._static(PAGES[path])
        if path.startswith("/static/"):
            return self._static(path[len("/static/"):])
        if path == "/api/info":
            return self._json(web.info())
        if path == "/api/state":
            return self._send(200, web.view.state_json().encode(), "application/json")
        if path == "/api/events":
            return self._events()
        if path == "/frame.jpg":
            data = web.view.frame_jpeg(overlay="raw" not in query)
            if data is None:
                raise HttpError(404, "no camera frame yet")
            return self._send(200, data, "image/jpeg")
        if path == "/api/records":
            return self._json(web.records.listing())
        if path.startswith("/records/"):
            return self._download(path[len("/records/"):])
        if path.startswith("/api/calibration"):
            return self._calibration_get(path, query)
        if path == "/favicon.ico":
            return self._send(204, b"", "image/x-icon")
        raise HttpError(404, f"no such page: {path}")

    def _static(self, name: str) -> None:
        data = self.web.static.get(name)
        if data is None or "/" in name:
            raise HttpError(404, f"no such file: {name}")
        ext = name[name.rfind("."):] if "." in name else ""
        self._send(200, data, TYPES.get(ext, "application/octet-stream"))

    def _download(self, rest: str) -> None:
        parts = rest.split("/")
        if len(parts) != 2:
            raise HttpError(404, "records are /records/MATCH/match.mat|match.sgf|match.jsonl")
        match, name = parts
        if name not in FILES:
            raise HttpError(404, f"{name!r} is not a record file: one of {', '.join(FILES)}")
        path = self.web.records.file(match, name)
        if path is None:
            raise HttpError(404, f"no record {match}/{name}")
        data = path.read_bytes()
        filename = self.web.records.download_name(match, name)
        self._send(200, data, FILES[name][1],
                   {"Content-Disposition": f'attachment; filename="{filename}"'})

    def _events(self) -> None:
        web = self.web
        view = web.view
        if self.command == "HEAD":
            return self._send(200, b"", "text/event-stream")
        if not web.stream_slot(True):
            raise HttpError(503, f"too many live pages open (at most {web.max_streams})")
        try:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Accel-Buffering", "no")
            for name, value in SECURITY_HEADERS.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(b"retry: 1000\n\n")
            sent_state, sent_frame = -1, -1
            last_frame_t = 0.0
            last_write = time.monotonic()
            while not web.closing and not self._client_gone():
                v = view.versions
                now = time.monotonic()
                if v.state != sent_state:
                    data = view.state_json()
                    self.wfile.write(f"event: state\ndata: {data}\n\n".encode())
                    sent_state, last_write = v.state, now
                if v.frame != sent_frame and now - last_frame_t >= web.frame_interval:
                    msg = json.dumps({"frame": v.frame})
                    self.wfile.write(f"event: frame\ndata: {msg}\n\n".encode())
                    sent_frame, last_frame_t, last_write = v.frame, now, now
                self.wfile.flush()
                pending = v.frame != sent_frame
                timeout = (max(0.01, web.frame_interval - (now - last_frame_t)) if pending
                           else max(0.05, web.keepalive - (now - last_write)))
                timeout = min(timeout, STREAM_POLL)  # a client that left frees its slot soon
                view.wait(Versions(sent_state, v.frame if pending else sent_frame), timeout)
                if time.monotonic() - last_write >= web.keepalive:
                    self.wfile.write(b": keepalive\n\n")
                    self.wfile.flush()
                    last_write = time.monotonic()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError):
            pass
        finally:
            web.stream_slot(False)
            self.close_connection = True

    def _client_gone(self) -> bool:
        """Whether the client of an event stream closed its end (it sends nothing more)."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            return not self.connection.recv(1, socket.MSG_PEEK)
        except (OSError, ValueError):
            return True

    def _calibration_get(self, path: str, query: dict[str, list[str]]) -> None:
        cal = self.web.calibration
        if cal is None:
            raise HttpError(404, "calibration is not available on this server")
        if path == "/api/calibration":
            corners, source = cal.corners()
            img = cal.frame()
            size = None if img is None else [int(img.shape[1]), int(img.shape[0])]
            return self._json({"corners": corners, "source": source, "image_size": size})
        if path == "/api/calibration/frame.jpg":
            import cv2

            img = cal.frame()
            if img is None:
                raise HttpError(404, "no camera frame yet")
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 85])
            if not ok:
                raise HttpError(500, "could not encode the frame")
            return self._send(200, buf.tobytes(), "image/jpeg")
        if path == "/api/calibration/check":
            corners = as_corners(query["corners"][0]) if "corners" in query else None
            return self._json(_read_json(self._check(cal, corners)))
        raise HttpError(404, f"no such page: {path}")

    def _check(self, cal: CalibrationBackend, corners: Any) -> Any:
        """A board reading costs about a second of CPU the referee needs: one at a time, and
        without the token at most one per ``check_interval`` seconds (429 otherwise)."""
        web = self.web
        trusted = web.has_token(self.headers)
        wait = web._check_next - time.monotonic()
        if not trusted and wait > 0:
            raise HttpError(429, f"a board check ran just now: try again in {wait:.1f} s "
                                 f"(or give the token)")
        if not web._check_lock.acquire(blocking=False):
            raise HttpError(429, "a board check is running: try again in a moment")
        try:
            return cal.check(corners)
        finally:
            web._check_next = time.monotonic() + web.check_interval
            web._check_lock.release()

    # --- POST -------------------------------------------------------------------------------

    def _post(self) -> None:
        path, _ = self._target()
        web = self.web
        if path.startswith("/api/control/"):
            action = path[len("/api/control/"):]
            if action not in ACTIONS:
                raise HttpError(404, f"unknown control {action!r}: one of {', '.join(ACTIONS)}")
            web.authorise(self.headers)
            self._body()
            if web.control is None:
                raise HttpError(503, "this server does not control a game")
            try:
                web.control(action)
            except (PibgError, ValueError) as exc:
                raise HttpError(409, f"{action}: {exc}") from None
            return self._json({"ok": True, "action": action}, 202)
        if path == "/api/amend":
            web.authorise(self.headers)
            amended = _amendment(self._body())
            if web.amend is None:
                raise HttpError(503, "this server does not record a match")
            try:
                turn = check_amendment(web.view.events(), amended)
            except PibgError as exc:
                raise HttpError(409, f"amend: {exc}") from None
            web.amend(amended)
            d = amended.dice
            return self._json({"ok": True, "game": amended.game, "move": amended.move,
                               "dice": [d.high, d.low],
                               "text": amendment_text(turn, amended)}, 202)
        if path == "/api/calibration":
            cal = web.calibration
            if cal is None:
                raise HttpError(404, "calibration is not available on this server")
            web.authorise(self.headers)
            body = self._body()
            if not isinstance(body, dict) or "corners" not in body:
                raise HttpError(400, 'send {"corners": [[x, y], [x, y], [x, y], [x, y]]}')
            message = cal.save(as_corners(body["corners"]))
            return self._json({"ok": True, "message": message})
        if path in PAGES or path.startswith(("/api/", "/static/", "/records/")):
            raise HttpError(405, f"POST is not allowed on {path}")
        raise HttpError(404, f"no such page: {path}")


def _amendment(body: Any) -> Amended:
    """The amendment a POST body asks for.

    :raises HttpError: 400, naming the field that is missing or wrong.
    """
    shape = 'send {"game": G, "move": M, "dice": [a, b]} (numbered as the move list is)'
    if not isinstance(body, dict):
        raise HttpError(400, shape)
    unknown = sorted(set(body) - {"game", "move", "dice", "note"})
    if unknown:
        raise HttpError(400, f"unknown field {unknown[0]!r}: {shape}")
    numbers = []
    for key in ("game", "move"):
        n = body.get(key)
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 10_000:
            raise HttpError(400, f"{key!r} must be a whole number from 1: {shape}")
        numbers.append(n)
    dice = body.get("dice")
    if (not isinstance(dice, list) or len(dice) != 2
            or not all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6
                       for d in dice)):
        raise HttpError(400, f"'dice' must be two numbers 1-6, like [5, 3]: {shape}")
    note = body.get("note", "")
    if not isinstance(note, str) or len(note) > MAX_NOTE:
        raise HttpError(400, f"'note' must be text of at most {MAX_NOTE} characters")
    return Amended(numbers[0], numbers[1], Dice(dice[0], dice[1]), " ".join(note.split()))


def _read_json(obs: Any) -> dict[str, Any]:
    """A reading for the check view: its JSON and the board it shows, drawn."""
    from pibg.web.svg import board_svg

    data: dict[str, Any] = obs.to_json()
    dice = [d["value"] for d in data["dice"]]
    snap = {
        "board": {"points": data["points"],
                  "bar": data["bar"], "off": data["off"], "position_id": ""},
        "dice": dice if len(dice) == 2 else None,
        "cube": None if data["cube"] is None else {
            "value": data["cube"]["value"],
            "owner": None if data["cube"]["owner"] == "center" else data["cube"]["owner"]},
        "turn": None,
    }
    data["svg"] = board_svg(snap) if obs.readable else ""
    return data
