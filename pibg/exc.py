"""The one exception tree of pibg.

Every class pairs a domain base with the matching builtin (as gpiozero's ``exc.py`` does), so
callers may catch ``PibgError`` for anything pibg raises, or the builtin they already expect.
Messages are one line: what was wrong, and how to fix it where that is known.
"""

from __future__ import annotations


class PibgError(Exception):
    """Base of every error pibg raises on purpose."""


# --- rules core ---------------------------------------------------------------------------


class PositionError(PibgError, ValueError):
    """A position that cannot exist (wrong checker count, a point held by both colours, ...)."""


class InvalidPositionIdError(PositionError):
    """A Position ID, XGID or signed-count form that does not decode."""


class InvalidDiceError(PibgError, ValueError):
    """Dice outside 1-6, or not two of them."""


class InvalidMoveError(PibgError, ValueError):
    """Play notation that does not parse (``24/18 13/11`` is the expected form)."""


class IllegalPlayError(PibgError, ValueError):
    """A well-formed play that the rules do not allow in this position with these dice."""

    def __init__(self, message: str, reasons: tuple[str, ...] = (), points: tuple[int, ...] = ()):
        super().__init__(message)
        #: Short reasons in words ("point 5 is blocked", "must enter from the bar first").
        self.reasons = reasons
        #: Points involved, numbered from the mover's side (25 = bar, 0 = off).
        self.points = points


class CubeError(PibgError, ValueError):
    """A cube action the rules forbid now (the message names the rule)."""


class MatchError(PibgError, ValueError):
    """An action that does not fit the match state (game over, match over, wrong player ...)."""


class InvalidMatchIdError(MatchError):
    """A gnubg Match ID that does not decode."""


# --- records --------------------------------------------------------------------------------


class RecordError(PibgError, ValueError):
    """A record file (journal, .mat, .sgf) that is malformed; the message names file and line."""


class JournalError(RecordError):
    """A journal that cannot be opened, written or replayed."""


# --- vision ---------------------------------------------------------------------------------


class VisionError(PibgError, RuntimeError):
    """Base of the camera-reading errors."""


class CalibrationError(VisionError, ValueError):
    """A calibration that is missing, malformed, or could not be made from the frame."""


class BoardNotFoundError(CalibrationError):
    """The playing surface's corners were not found in the frame."""


class AmbiguousObservationError(VisionError, ValueError):
    """Two or more legal plays explain what the camera sees equally well."""


# --- hardware and service -------------------------------------------------------------------


class HardwareError(PibgError, RuntimeError):
    """Base of the camera, GPIO and serial device errors."""


class CameraUnavailableError(HardwareError):
    """No camera could be opened, or it stopped delivering frames."""


class LinkDownError(HardwareError, ConnectionError):
    """The serial link to the LED/display controller is gone (unplugged, no answer)."""


class ConfigError(PibgError, ValueError):
    """A configuration file with an unknown key, a bad value, or a syntax error."""


class RecordWriteError(PibgError, OSError):
    """A record (.mat, .sgf, journal) that could not be written: a missing folder, a read-only
    or full file system. Nothing is left behind."""
