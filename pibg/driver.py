"""One loop for every source: frames and presses -> vision -> referee -> what shows it.

``pibg run`` (the camera), ``pibg replay`` and ``pibg demo`` (a recorded or synthetic
source), ``pibg web-replay`` (the same, paced, behind the live page) and
:func:`pibg.script.drive` (the referee's tests) all feed the referee through
:class:`Driver`, so a board is judged the same way whichever command reads it.

A source is an iterable of items, each fed at a time of its own:

* :class:`Held`: a settled view (an image of a folder, a synthetic render), shown for the
  stability window: its reading at ``t``, each further frame of the same still scene
  ``MORE_GAP`` (0.1 s) after the one before, then a :class:`~pibg.referee.Tick` just past the
  window; the next item comes ``HOLD_GAP`` (0.5 s) after the window;
* a :class:`~pibg.script.Scene`: a settled view that ``observe`` reads itself (no image),
  held the same way;
* :class:`Timed`: a frame at its own time (a video, the live camera); one with no image is
  time passing with no frame (a Tick);
* a :class:`~pibg.script.ButtonPress`: a press ``PRESS_GAP`` (0.5 s) after the item before.

The driver ends cleanly at the end of the source, or before the next item once ``stop``
says so or ``max_frames`` readings have been fed. ``between`` runs before the first item,
after each one and after the last: it feeds what came meanwhile (the buttons, the page's
controls) and does the chores of a live loop (records, LEDs).

No clock and no I/O of its own: times come from the items, and a paced replay waits through
``pace``; the journal, the LEDs and display are the fed referee's (:class:`pibg.app.Session`),
the page is a sink (:func:`view_sink`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pibg import referee
from pibg.observation import BoardObservation
from pibg.referee import Frame, Input, Press, RefereeState, Step, Tick
from pibg.script import ButtonPress, Scene

__all__ = ["HOLD_GAP", "MORE_GAP", "PRESS_GAP", "TICK_PAST", "Driven", "Driver", "Fed",
           "Held", "Item", "PureReferee", "Timed", "lazy_observer", "view_sink"]

#: a camera frame (a numpy array), or whatever ``observe`` reads (a scene, in tests)
Image = Any

#: seconds between the further frames of one still scene
MORE_GAP = 0.1
#: seconds past the stability window at which a held view's Tick comes
TICK_PAST = 0.01
#: seconds between the end of a held view's window and the next item
HOLD_GAP = 0.5
#: seconds between a press and the item before it
PRESS_GAP = 0.5


@dataclass(frozen=True)
class Held:
    """A settled image, shown for the whole stability window; ``more`` are further frames of
    the same still scene (a camera sees a settled board many times over)."""

    image: Image
    name: str
    more: tuple[Image, ...] = ()
    truth: Any = None  # what the frame shows, when known (a sim scene)


@dataclass(frozen=True)
class Timed:
    """A frame at its own time (a video's, the camera's); ``image`` None: no frame came by
    ``t`` (time passing lets a held reading become stable)."""

    image: Image | None
    t: float


Item = Held | Timed | Scene | ButtonPress


class Fed(Protocol):
    """What the driver feeds: a referee, with or without a journal behind it. ``feed``
    returns None when the input could not be taken (the journal refused it)."""

    @property
    def state(self) -> RefereeState: ...

    def feed(self, inp: Input) -> Step | None: ...


class PureReferee:
    """The referee alone, nothing recorded: the pure state machine stepped input by input."""

    def __init__(self, first: Step) -> None:
        self.step = first

    @property
    def state(self) -> RefereeState:
        return self.step.state

    def feed(self, inp: Input) -> Step:
        self.step = referee.step(self.step.state, inp)
        return self.step


#: what shows each step: the input, its step and the image read for it (None: no image)
Sink = Callable[[Input, Step, Image | None], None]
#: the people at the table: given the referee's state after a held view and what it showed
#: (``Held.truth``), the buttons they press
Respond = Callable[[RefereeState, Any], Iterable[ButtonPress]]
Observe = Callable[[Any], BoardObservation]


@dataclass(frozen=True)
class Driven:
    """How a drive ended: readings fed, of them not readable, and whether a stop request
    (or ``max_frames``) ended it before the source did."""

    frames: int
    unread: int
    stopped: bool
    t: float


_END = object()


class Driver:
    """Feeds a source's items to ``referee`` (see the module's docstring for the timing).

    ``observe`` reads an image (see :func:`lazy_observer` for vision calibrated from the first
    frame); ``sinks`` see every step taken; ``respond`` answers after each held view that
    knows its truth; ``pace(seconds)`` is called with half of ``delay`` after a held view's
    readings and again after its Tick, when ``delay`` is not 0 (a watchable replay).
    """

    def __init__(self, referee: Fed, observe: Observe, *, stable_seconds: float = 1.0,
                 sinks: Sequence[Sink] = (), between: Callable[[Driver], None] | None = None,
                 respond: Respond | None = None, delay: float = 0.0,
                 pace: Callable[[float], None] | None = None,
                 stop: Callable[[], bool] | None = None, max_frames: int | None = None,
                 start_t: float = 0.0) -> None:
        self.referee = referee
        self.observe = observe
        self.stable_seconds = stable_seconds
        self.sinks = tuple(sinks)
        self.between = between
        self.respond = respond
        self.delay = delay
        self.pace = pace
        self.stop = stop
        self.max_frames = max_frames
        #: the time of the last input (seconds, the source's origin)
        self.t = start_t
        self.frames = 0
        self.unread = 0
        #: the steps taken since ``between`` last ran (it sees them, then they are cleared)
        self.fresh: list[Step] = []

    # --- the loop ---------------------------------------------------------------------------

    def run(self, source: Iterable[Item]) -> Driven:
        """Feed every item of ``source``, or until a stop request; see :class:`Driven`."""
        items = iter(source)
        self._between()
        stopped = True
        while not self._stopping():
            item = next(items, _END)
            if item is _END:
                stopped = False
                break
            self.show(item)  # type: ignore[arg-type]
            self._between()
        return Driven(self.frames, self.unread, stopped, self.t)

    def _stopping(self) -> bool:
        if self.stop is not None and self.stop():
            return True
        return self.max_frames is not None and self.frames >= self.max_frames

    def _between(self) -> None:
        if self.between is not None:
            self.between(self)
        self.fresh.clear()

    # --- one item ---------------------------------------------------------------------------

    def show(self, item: Item) -> None:
        """Feed one item at its time (see the module's docstring)."""
        if isinstance(item, ButtonPress):
            self.press(item.button, item.long)
        elif isinstance(item, Timed):
            self.t = item.t
            if item.image is None:
                self.feed(Tick(self.t))
            else:
                self.feed(Frame(self.t, self.read(item.image)), item.image)
        elif isinstance(item, Scene):
            self.hold(item, None, (), None)
        else:
            self.hold(item.image, item.image, item.more, item.truth)

    def hold(self, first: Any, image: Image | None, more: Sequence[Image], truth: Any) -> None:
        """A settled view, held for the stability window: ``first`` read (``image`` is what
        the sinks are shown of it), then the ``more`` frames, then a Tick past the window;
        then the players answer (``respond``) if ``truth`` is known."""
        self.feed(Frame(self.t, self.read(first)), image)
        for img in more:
            self.t += MORE_GAP
            self.feed(Frame(self.t, self.read(img)), img)
        self._wait()
        self.feed(Tick(self.t + self.stable_seconds + TICK_PAST))
        self.t += self.stable_seconds + HOLD_GAP
        self._wait()
        if self.respond is not None and truth is not None:
            for p in self.respond(self.referee.state, truth):
                self.press(p.button, p.long)

    def press(self, button: str, long: bool = False) -> Step | None:
        """A press ``PRESS_GAP`` after the last input."""
        self.t += PRESS_GAP
        return self.feed(Press(self.t, button, long))

    def read(self, image: Any) -> BoardObservation:
        """One reading by ``observe``, counted (and counted as not read when it is not)."""
        obs = self.observe(image)
        self.frames += 1
        self.unread += not obs.readable
        return obs

    def feed(self, inp: Input, image: Image | None = None) -> Step | None:
        """One input to the referee, its step shown to the sinks (``image``: the frame read
        for it). None when the referee could not take it."""
        res = self.referee.feed(inp)
        if res is None:
            return None
        self.fresh.append(res)
        for sink in self.sinks:
            sink(inp, res, image)
        return res

    def _wait(self) -> None:
        if self.delay and self.pace is not None:
            self.pace(self.delay / 2)


def view_sink(view: Any) -> Sink:
    """A sink that shows each step on the live page (:class:`pibg.web.LiveView`), with the
    frame and its reading when the step read one."""

    def show(inp: Input, res: Step, image: Image | None) -> None:
        view.update(res, image, inp.obs if isinstance(inp, Frame) else None)

    return show


def lazy_observer(make: Callable[[Image], Observe]) -> Observe:
    """An ``observe`` whose vision is built from the first frame it is given (a replay
    calibrated from its first frame, which shows the starting position)."""
    built: list[Observe] = []

    def observe(image: Image) -> BoardObservation:
        if not built:
            built.append(make(image))
        return built[0](image)

    return observe
