"""The records directory as the page lists it: one folder per match, with dice statistics.

Each match is a folder under the records directory holding ``match.jsonl`` (the journal) and
the ``match.mat`` / ``match.sgf`` written from it. Journals are opened read-only (the live
match may be being written beside); a summary is cached until the journal changes.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Any

FILES: dict[str, tuple[str, str]] = {
    # name: (kind shown on the page, Content-Type)
    # an attachment, never shown as text in the browser: gnubg and XG open the saved file
    "match.mat": ("mat", "application/octet-stream"),
    "match.sgf": ("sgf", "application/x-go-sgf; charset=utf-8"),
    "match.jsonl": ("journal", "application/x-ndjson; charset=utf-8"),
}

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def valid_name(name: str) -> bool:
    """A match folder's name as it may appear in a URL (no path separators, no dot-dot)."""
    return bool(_NAME.match(name)) and ".." not in name


class Records:
    """Lists and summarises the matches under ``root``."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}

    def folders(self) -> list[Path]:
        if not self.root.is_dir():
            return []
        out = [p for p in self.root.iterdir()
               if p.is_dir() and valid_name(p.name) and any((p / f).is_file() for f in FILES)]
        return sorted(out, key=lambda p: (-_mtime(p), p.name))

    def file(self, match: str, name: str) -> Path | None:
        """The path of one record file, or None when the name or file is not one of ours."""
        if not valid_name(match) or name not in FILES:
            return None
        path = self.root / match / name
        try:
            if path.resolve().parent.parent != self.root.resolve():
                return None
        except OSError:
            return None
        return path if path.is_file() else None

    def download_name(self, match: str, name: str) -> str:
        """The file name a download is saved as: the players and the match's folder (its
        start time), with the record's own extension: ``alice-bob-2026-11-22T1200Z.mat``."""
        ext = name[name.rfind("."):]
        players = self.summary(self.root / match).get("players")
        who = [players["white"], players["black"]] if players else []
        stem = "-".join(_SAFE.sub("_", part).strip("_") or "player" for part in who)
        return f"{stem}-{match}{ext}" if stem else f"{match}{ext}"

    def listing(self) -> list[dict[str, Any]]:
        return [self.summary(p) for p in self.folders()]

    def summary(self, folder: Path) -> dict[str, Any]:
        journal = folder / "match.jsonl"
        entry: dict[str, Any] = {
            "name": folder.name,
            "files": {FILES[f][0]: f"/records/{folder.name}/{f}"
                      for f in FILES if (folder / f).is_file()},
        }
        if not journal.is_file():
            return entry
        st = journal.stat()
        key = (st.st_mtime_ns, st.st_size)
        with self._lock:
            hit = self._cache.get(folder.name)
        if hit is not None and hit[0] == key:
            return {**entry, **hit[1]}
        info = _journal_summary(journal)
        with self._lock:
            self._cache[folder.name] = (key, info)
        return {**entry, **info}


#: What a downloaded file's name keeps of a player's name.
_SAFE = re.compile(r"[^A-Za-z0-9_.-]+")


def _mtime(p: Path) -> float:
    try:
        return max((p / f).stat().st_mtime for f in FILES if (p / f).exists())
    except (OSError, ValueError):
        return 0.0


def _journal_summary(path: Path) -> dict[str, Any]:
    from pibg.exc import PibgError
    from pibg.journal import read_events
    from pibg.match import replay
    from pibg.stats import dice_stats

    try:
        events = read_events(path)
        state = replay(events)
    except (PibgError, OSError, ValueError) as exc:
        return {"error": f"cannot read the journal: {exc}"}
    s = state.settings
    stats = dice_stats(events)
    return {
        "players": {"white": s.white, "black": s.black},
        "length": s.length,
        "score": {"white": state.score[0], "black": state.score[1]},
        "games": len(state.games),
        "over": state.over,
        "winner": None if state.winner is None else state.winner.label,
        "stats": {
            "rolls": stats.rolls,
            "dice": stats.dice,
            "faces": list(stats.faces),
            "doubles": stats.doubles,
            "doubles_rate": round(stats.doubles_rate, 4),
            "chi2": round(stats.chi2, 3),
            "p_value": round(stats.p_value, 4),
            "by_player": {k.label: list(v) for k, v in stats.by_player.items()},
            "report": stats.report(),
        },
    }
