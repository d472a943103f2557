"""Buttons on gpiozero's MockFactory, with our own time-injected debouncing."""

from __future__ import annotations

import queue

import pytest
from gpiozero.pins.mock import MockFactory

from pibg.config import ButtonsConfig
from pibg.exc import HardwareError
from pibg.hw.buttons import (
    ACTIONS,
    Action,
    ButtonEvent,
    ButtonName,
    ButtonPanel,
    Debouncer,
    Press,
)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def drain(panel: ButtonPanel) -> list[tuple[str, str, str]]:
    out = []
    while (ev := panel.get(0)) is not None:
        out.append((ev.button.value, ev.press.value, ev.action.value))
    return out


@pytest.fixture
def panel(mock_factory: MockFactory) -> ButtonPanel:
    clock = Clock()
    p = ButtonPanel.from_config(ButtonsConfig(), pin_factory=mock_factory, clock=clock)
    p.clock_ = clock  # type: ignore[attr-defined]
    return p


def press(factory: MockFactory, clock: Clock, pin: int, at: float, until: float) -> None:
    clock.now = at
    factory.pin(pin).drive_low()
    clock.now = until
    factory.pin(pin).drive_high()


def test_short_and_long_presses_map_to_actions(
    panel: ButtonPanel, mock_factory: MockFactory
) -> None:
    clock = panel.clock_  # type: ignore[attr-defined]
    press(mock_factory, clock, 17, 100.0, 100.2)  # confirm, short
    press(mock_factory, clock, 17, 101.0, 102.5)  # confirm, long (released after hold_time)
    press(mock_factory, clock, 27, 103.0, 103.1)  # undo
    press(mock_factory, clock, 22, 104.0, 104.1)  # double
    press(mock_factory, clock, 23, 105.0, 106.2)  # take, long = beaver
    press(mock_factory, clock, 24, 107.0, 107.1)  # drop
    assert drain(panel) == [
        ("confirm", "short", "confirm"),
        ("confirm", "long", "resync"),
        ("undo", "short", "undo"),
        ("double", "short", "double"),
        ("take", "long", "beaver"),
        ("drop", "short", "drop"),
    ]
    panel.close()
    panel.close()


def test_contact_bounce_gives_one_press(panel: ButtonPanel, mock_factory: MockFactory) -> None:
    clock = panel.clock_  # type: ignore[attr-defined]
    pin = mock_factory.pin(17)
    for t, low in [
        (0.000, True),
        (0.004, False),
        (0.009, True),
        (0.013, False),
        (0.020, True),
        (0.300, False),
        (0.303, True),
        (0.310, False),
    ]:
        clock.now = 200 + t
        pin.drive_low() if low else pin.drive_high()
    assert drain(panel) == [("confirm", "short", "confirm")]


def test_release_inside_bounce_window_is_settled_by_poll(
    panel: ButtonPanel, mock_factory: MockFactory
) -> None:
    clock = panel.clock_  # type: ignore[attr-defined]
    press(mock_factory, clock, 27, 300.0, 300.02)  # released within bounce_time
    assert drain(panel) == []
    clock.now = 300.2
    panel.poll()
    assert drain(panel) == [("undo", "short", "undo")]


def test_long_press_reported_while_held_and_not_again_on_release(
    panel: ButtonPanel, mock_factory: MockFactory
) -> None:
    clock = panel.clock_  # type: ignore[attr-defined]
    clock.now = 400.0
    mock_factory.pin(17).drive_low()
    clock.now = 400.5
    panel.poll()
    assert drain(panel) == []
    clock.now = 401.1
    panel.poll()
    assert drain(panel) == [("confirm", "long", "resync")]
    clock.now = 403.0
    mock_factory.pin(17).drive_high()
    panel.poll()
    assert drain(panel) == []


def test_gpiozero_when_held_thread_reports_long_press(mock_factory: MockFactory) -> None:
    events: queue.Queue[ButtonEvent] = queue.Queue()
    with ButtonPanel(
        {"double": 5}, hold_time=0.2, pin_factory=mock_factory, events=events
    ) as panel:
        mock_factory.pin(5).drive_low()
        ev = events.get(timeout=3)  # from gpiozero's hold thread, real time
        assert (ev.button, ev.press, ev.action) == (ButtonName.DOUBLE, Press.LONG, Action.NONE)
        mock_factory.pin(5).drive_high()
        panel.poll()
        assert panel.get(0) is None


def test_pin_problems_become_hardware_errors(mock_factory: MockFactory) -> None:
    first = ButtonPanel({"confirm": 17}, pin_factory=mock_factory)
    with pytest.raises(HardwareError, match="GPIO pin 17 for the confirm button"):
        ButtonPanel({"undo": 27, "confirm": 17}, pin_factory=mock_factory)
    first.close()
    ButtonPanel({"undo": 27}, pin_factory=mock_factory).close()  # 27 was released again


def test_optional_buttons_left_out(mock_factory: MockFactory) -> None:
    cfg = ButtonsConfig(take=None, drop=None)
    with ButtonPanel.from_config(cfg, pin_factory=mock_factory) as panel:
        assert set(panel.buttons) == {ButtonName.CONFIRM, ButtonName.UNDO, ButtonName.DOUBLE}


def test_every_combination_is_mapped() -> None:
    assert {(b, p) for b in ButtonName for p in Press} == set(ACTIONS)


def test_debouncer_edges() -> None:
    d = Debouncer(bounce_time=0.05, hold_time=1.0)
    assert d.edge(False, 0.0) is None  # a release without a press
    assert d.edge(True, 1.0) is None
    assert d.held(1.5) is None
    assert d.settle(True, 2.0) is Press.LONG
    assert d.edge(False, 2.5) is None
    assert d.settle(False, 3.0) is None


def test_pico_buttons_from_device_events() -> None:
    from pibg.hw.buttons import PicoButtons

    clock = Clock()
    pb = PicoButtons(("confirm", "undo"), clock=clock)
    for t, text in [
        (0.0, "BTN 1 DOWN"),
        (0.01, "BTN 1 UP"),
        (0.02, "BTN 1 DOWN"),
        (0.3, "BTN 1 UP"),
        (1.0, "BTN 0 DOWN"),
        (1.5, "BOOT 1.0"),
        (1.6, "BTN 7 DOWN"),
        (1.7, "BTN x UP"),
    ]:
        clock.now = 100 + t
        pb.handle(text)
    clock.now = 102.2
    pb.poll()
    got = []
    while not pb.events.empty():
        ev = pb.events.get_nowait()
        got.append((ev.button.value, ev.press.value, ev.action.value))
    assert got == [("undo", "short", "undo"), ("confirm", "long", "resync")]


def test_events_translate_to_referee_presses() -> None:
    from pibg import referee

    take_long = ButtonEvent(ButtonName.TAKE, Press.LONG, Action.BEAVER, 1.0)
    confirm_long = ButtonEvent(ButtonName.CONFIRM, Press.LONG, Action.RESYNC, 2.0)
    assert (take_long.referee_button, take_long.long) == ("beaver", True)
    assert referee.Press(confirm_long.at, confirm_long.referee_button, confirm_long.long) == (
        referee.Press(2.0, "confirm", True)
    )
    for name in ButtonName:
        assert name.value in referee.BUTTONS
