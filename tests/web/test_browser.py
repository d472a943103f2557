"""A real headless browser on the page: Debian's chromium driven by Playwright.

Needs ``apt-get install chromium`` and ``pip install playwright`` (no ``playwright install``:
the system chromium is used). Skips with the reason when either is absent. Set
``PIBG_CHROMIUM`` to use another chromium binary and ``PIBG_UPDATE_SCREENSHOT=1`` to rewrite
``docs/web.png``.
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pibg.app import DEMO_MISHAPS, demo_events
from pibg.events import Moved
from pibg.position import Color, Position
from pibg.referee import Mode, Step
from pibg.script import Scene, drive, observe_exact, table_script
from pibg.web import LiveView

from .conftest import TOKEN, Serve
from .test_calibration import CORNERS, FakeCalibration

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
SCREENSHOT_LIMIT = 300_000


def _chromium() -> str | None:
    env = os.environ.get("PIBG_CHROMIUM")
    if env:
        return env
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="needs the playwright package (pip install playwright)")
    exe = _chromium()
    if exe is None:
        pytest.skip("needs Debian's chromium (apt-get install chromium)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=exe, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 860})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    context.close()
    assert errors == [], f"JavaScript errors on the page: {errors}"


_READ_BOARD = """() => {
  const svg = document.querySelector('#board svg');
  if (!svg) return null;
  const points = [];
  for (const g of svg.querySelectorAll('g.point')) {
    const n = Number(g.dataset.count);
    const w = g.querySelectorAll('circle.checker.white').length;
    const b = g.querySelectorAll('circle.checker.black').length;
    points[Number(g.dataset.point) - 1] = [n, w - b];
  }
  const bar = svg.querySelector('g.bar'), off = svg.querySelector('g.off');
  return {points, bar: [Number(bar.dataset.white), Number(bar.dataset.black)],
          off: [Number(off.dataset.white), Number(off.dataset.black)],
          id: svg.dataset.positionId, dice: svg.querySelector('g.dice').dataset.dice,
          version: Number(document.body.dataset.version)};
}"""


def _wait_version(page: Any, version: int) -> None:
    page.wait_for_function(f"() => Number(document.body.dataset.version) >= {version}",
                           timeout=10_000)


def _check_board(page: Any, pos: Position) -> None:
    drawn = page.evaluate(_READ_BOARD)
    assert drawn is not None
    assert [a for a, _ in drawn["points"]] == list(pos.signed())
    assert [b for _, b in drawn["points"]] == list(pos.signed()), "circles differ from counts"
    assert drawn["bar"] == [pos.bar(Color.WHITE), pos.bar(Color.BLACK)]
    assert drawn["off"] == [pos.off(Color.WHITE), pos.off(Color.BLACK)]
    assert drawn["id"] == pos.position_id()


def _camera_frame(scene: Scene) -> tuple[Any, Any]:
    """A rendered frame of the scene and the overlay for it (a calibration learnt from the
    start), or (None, None) when the vision stack cannot learn the board."""
    from pibg.exc import PibgError
    from pibg.sim import SimScene, render, sim_corners
    from pibg.vision.calibrate import learn
    from pibg.vision.geometry import START_POINTS, VisionConfig
    from pibg.web.overlay import region_overlay

    try:
        cal = learn(VisionConfig(), render(SimScene(START_POINTS)), sim_corners())
    except PibgError:
        return None, None
    frame = render(SimScene(scene.points, scene.bar, scene.off, scene.dice, False,
                            scene.cube_value, scene.cube_owner))  # type: ignore[arg-type]
    return frame, region_overlay(cal)


def _screenshot(page: Any, view: LiveView, step: Step, scene: Scene, shot: dict[str, Any],
                tmp_path: Path) -> None:
    """The page with the dice down and a camera frame: docs/web.png (PIBG_UPDATE_SCREENSHOT)."""
    frame, overlay = _camera_frame(scene)
    if frame is not None:
        view.set_overlay(overlay)
        view.update(step, frame, observe_exact(scene))
        page.wait_for_function("() => document.querySelector('#frame').complete && "
                               "document.querySelector('#frame').naturalWidth > 0",
                               timeout=10_000)
    _wait_version(page, view.versions.state)
    path = (ROOT / "docs" / "web.png" if os.environ.get("PIBG_UPDATE_SCREENSHOT")
            else tmp_path / "web.png")
    path.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(path))
    shot["path"] = path


def test_page_follows_a_replayed_match(page: Any, serve: Serve, tmp_path: Path) -> None:
    events = demo_events()
    actions = table_script(events, DEMO_MISHAPS)
    view = LiveView()
    web = serve(view, frame_interval=0.0)
    page.goto(web.url)
    _wait_version(page, 0)  # connected: the first (empty) snapshot has arrived
    checked = {"moves": 0, "illegal": 0}
    latencies: list[float] = []
    shot: dict[str, Any] = {}
    current: dict[str, Scene] = {}

    def observe(scene: Scene) -> Any:
        current["scene"] = scene
        return observe_exact(scene)

    def on_step(step: Step) -> None:
        t0 = time.perf_counter()
        view.update(step)
        st = step.state
        moved = any(isinstance(e, Moved) for e in step.events)
        if checked["moves"] >= 21 and not shot and st.mode is Mode.MOVING and st.dice:
            _screenshot(page, view, step, current["scene"], shot, tmp_path)
        if not moved and st.mode is not Mode.ILLEGAL:
            return
        _wait_version(page, view.versions.state)
        latencies.append(time.perf_counter() - t0)
        g = st.match.game
        assert g is not None
        _check_board(page, g.position)
        if moved:
            checked["moves"] += 1
        if st.mode is Mode.ILLEGAL and st.verdict is not None:
            flag = page.locator("#flag")
            assert flag.is_visible()
            assert st.verdict.reasons[0] in flag.inner_text()
            checked["illegal"] += 1
    drive(actions, events[0].settings, observe=observe,  # type: ignore[attr-defined]
          on_step=on_step)
    assert checked["moves"] > 50
    assert checked["illegal"] >= 1, "the demo's planted illegal play was not shown"
    # the move list shows every play of the match, in gnubg notation
    _wait_version(page, view.versions.state)
    final = view.snapshot()
    texts = page.locator("#moves div:not(.game)").all_inner_texts()
    assert len(texts) == len(final["moves"])
    assert page.locator("#score").inner_text().startswith(final["players"]["white"])
    png = shot["path"].read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(png) < SCREENSHOT_LIMIT, f"screenshot is {len(png)} bytes"
    print(f"browser-visible update: median {statistics.median(latencies) * 1000:.1f} ms, "
          f"max {max(latencies) * 1000:.1f} ms over {len(latencies)} updates")


def test_controls_in_the_browser(page: Any, serve: Serve, steps: list[Step]) -> None:
    pressed: list[str] = []
    view = LiveView()
    view.update(steps[5])
    web = serve(view, control=pressed.append, token=TOKEN)
    page.goto(web.url)
    page.wait_for_selector("#controls:not(.hidden)", timeout=10_000)
    page.click("button[data-action=undo]")
    page.wait_for_selector("#ctlmsg.err", timeout=10_000)  # no token typed yet: refused
    assert "token" in page.inner_text("#ctlmsg")
    page.fill("#token", TOKEN)
    page.click("button[data-action=undo]")
    page.wait_for_selector("#ctlmsg.ok", timeout=10_000)
    assert pressed == ["undo"]


def test_view_only_page_has_no_controls(page: Any, serve: Serve, steps: list[Step]) -> None:
    view = LiveView()
    view.update(steps[5])
    web = serve(view, control=lambda action: None)
    page.goto(web.url)
    page.wait_for_selector("#board svg", state="attached", timeout=10_000)
    page.wait_for_timeout(200)
    assert not page.locator("#controls").is_visible()


def test_calibration_drag_check_and_save(page: Any, serve: Serve) -> None:
    fake = FakeCalibration()
    web = serve(calibration=fake, token=TOKEN)
    page.goto(web.url + "calibrate")
    handle = page.locator("circle.handle[data-corner=TL]")
    handle.wait_for(timeout=10_000)
    page.wait_for_function("() => document.querySelector('#calimg').naturalWidth > 0")
    box = handle.bounding_box()
    img = page.locator("#calimg").bounding_box()
    scale = img["width"] / 160
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 10 * scale, y + 5 * scale, steps=5)
    page.mouse.up()
    page.click("#check")
    page.wait_for_selector("#read svg", timeout=10_000)
    assert fake.checked and fake.checked[0] is not None
    tl = fake.checked[0][0]
    assert abs(tl[0] - (CORNERS[0][0] + 10)) < 1.5 and abs(tl[1] - (CORNERS[0][1] + 5)) < 1.5
    page.fill("#token", TOKEN)
    page.click("#save")
    page.wait_for_function("() => document.querySelector('#calmsg').textContent === 'saved'",
                           timeout=10_000)
    assert len(fake.saved) == 1 and fake.saved[0][1:] == CORNERS[1:]


def test_records_page_lists_downloads_and_stats(page: Any, serve: Serve, records: Path) -> None:
    web = serve(records_dir=records)
    page.goto(web.url + "records")
    row = page.locator("tr[data-match]")
    row.wait_for(timeout=10_000)
    kinds = page.locator("tr[data-match] a[data-kind]").evaluate_all(
        "els => els.map(a => [a.dataset.kind, a.getAttribute('href')])")
    assert {k for k, _ in kinds} == {"mat", "sgf", "journal"}
    assert "rolls, faces 1-6" in row.inner_text()
    with page.expect_download() as dl:
        page.click("tr[data-match] a[data-kind=mat]")
    name = next(iter(records.iterdir())).name
    assert dl.value.suggested_filename == f"alice-bob-{name}.mat"  # the players, the match


def test_moves_and_the_log_write_a_roll_alike_and_run_oldest_first(
        page: Any, serve: Serve, steps: list[Step]) -> None:
    view = LiveView()
    for step in steps[:40]:
        view.update(step)
    web = serve(view)
    page.goto(web.url)
    page.wait_for_selector("#moves div:not(.game)", timeout=10_000)
    _wait_version(page, view.versions.state)
    said = [line["text"] for line in view.snapshot()["say"]]
    assert page.locator("#say div").all_inner_texts() == said  # oldest first, as Moves
    moves = page.locator("#moves div:not(.game)").all_inner_texts()
    first = view.snapshot()["moves"][0]
    d1, d2 = first["dice"]
    assert f" {d1}-{d2}: " in moves[0] and f" {d1}{d2}: " not in moves[0]
    assert any(re.search(r"\b[1-6]-[1-6]\b", line) for line in said)  # the log's way
    assert not any(re.search(r"\b[1-6][1-6]: ", line) for line in moves)


def test_at_1280_by_900_the_moves_show_above_the_fold_and_no_broken_camera_image(
        browser: Any, serve: Serve, steps: list[Step]) -> None:
    """A laptop's window: the Moves panel starts on the first screen and shows at least 15
    lines; with no camera (the overlay set, no frame ever) the camera panel says so and
    shows no broken image."""
    from pibg.web.overlay import region_overlay

    view = LiveView()
    for step in steps[:60]:
        view.update(step)
    view.set_overlay(region_overlay(corners=((10, 10), (100, 10), (100, 100), (10, 100))))
    web = serve(view)
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    try:
        pg.goto(web.url)
        pg.wait_for_selector("#moves div:not(.game)", timeout=10_000)
        _wait_version(pg, view.versions.state)
        box = pg.locator("#moves").bounding_box()
        line = pg.locator("#moves div:not(.game)").first.bounding_box()
        assert box is not None and line is not None
        assert box["y"] + 15 * line["height"] <= 900, (box, line)
        assert box["height"] >= 15 * line["height"] - 1
        assert pg.locator("#frame").is_hidden() and pg.locator("#noframe").is_visible()
    finally:
        context.close()


def test_the_throws_of_a_turn_in_doubt_are_buttons_that_set_its_dice(page: Any,
                                                                      serve: Serve) -> None:
    from pibg import referee
    from pibg.events import Amended
    from pibg.moves import Dice

    from .test_amend import flagged_match

    events, turn, throws = flagged_match()
    view = LiveView()
    view.update(referee.resume(tuple(events)))
    got: list[Amended] = []
    web = serve(view, control=lambda _action: None, amend=got.append, token=TOKEN)
    page.goto(web.url)
    page.wait_for_selector("#moves button.throw", timeout=10_000)
    buttons = page.locator("#moves button.throw")
    assert buttons.all_inner_texts() == [f"{d.high}-{d.low}" for d in throws]
    line = page.locator("#moves div.flagged").filter(has=page.locator("button.throw"))
    who = "ann" if turn.moved.player is Color.WHITE else "bob"
    assert line.inner_text().startswith(f"{turn.move}. {who} ")
    recorded = turn.moved.dice
    other = next(d for d in throws if (d.high, d.low) != (recorded.high, recorded.low))
    assert page.locator("#moves button.throw.current").inner_text() == (
        f"{recorded.high}-{recorded.low}")
    page.fill("#token", TOKEN)
    page.click(f"#moves button.throw[data-dice='{other.high}{other.low}']")
    page.wait_for_selector("#ctlmsg.ok", timeout=10_000)
    assert f"is now {other.high}-{other.low}" in page.inner_text("#ctlmsg")
    assert got == [Amended(turn.game, turn.move, Dice(other.high, other.low))]
    # a page whose token is not set has no such buttons
    plain = serve(view)
    page.goto(plain.url)
    page.wait_for_selector("#moves div.flagged", timeout=10_000)
    page.wait_for_timeout(200)
    assert page.locator("#moves button.throw").count() == 0
