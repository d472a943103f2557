"""A turn committed in doubt, its dice set by a reviewer after the game: the ``amend`` event,
how it is checked, how the match and its records read it, and ``pibg amend``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from pibg import referee
from pibg.__main__ import main
from pibg.events import (
    Amended,
    Event,
    GameStarted,
    MatchSettings,
    MatchStarted,
    Moved,
    OpeningRoll,
    Reread,
    Undone,
)
from pibg.exc import MatchError
from pibg.gnubg_oracle import check_with_gnubg, gnubg_import
from pibg.journal import Journal
from pibg.match import (
    PlayedTurn,
    check_amendment,
    effective_events,
    played_turns,
    replay,
    throws_to,
    turns_in_doubt,
)
from pibg.matfile import dumps_mat, read_mat
from pibg.moves import Dice, Play
from pibg.position import Color, Position
from pibg.record import REVIEWED, match_record
from pibg.rules import resolve
from pibg.selfplay import random_match
from pibg.sgf import dumps_sgf, parse_sgf
from pibg.web.snapshot import move_list

FLAG = "dice not seen; the board fits another throw too"


def flagged_match(seed: int = 0) -> tuple[list[Event], PlayedTurn, tuple[Dice, ...]]:
    """A seeded 3-point match whose first turn (after the opening) that other throws could
    have made is recorded as the referee records a turn it did not see the dice of."""
    events = random_match(seed, MatchSettings(length=3, white="ann", black="bob"))
    for turn in played_turns(effective_events(events)):
        throws = throws_to(turn.before, turn.moved.result, opening=turn.opening)
        if turn.ended and not turn.opening and len(throws) > 1:
            break
    else:
        raise AssertionError("no turn two throws explain")
    i = next(k for k, ev in enumerate(events) if ev is turn.moved)
    events[i] = replace(turn.moved, dice_seen=False, flag=FLAG)
    turn = next(t for t in played_turns(effective_events(events))
                if (t.game, t.move) == (turn.game, turn.move))
    return events, turn, throws


def other_throw(turn: PlayedTurn, throws: tuple[Dice, ...]) -> Dice:
    d = turn.moved.dice
    return next(t for t in throws if (t.high, t.low) != (d.high, d.low))


@pytest.fixture(scope="module")
def flagged() -> tuple[list[Event], PlayedTurn, tuple[Dice, ...]]:
    return flagged_match()


# --- the turns, numbered as the move list numbers them ------------------------------------------


def test_plays_are_numbered_game_by_game_as_the_move_list_numbers_them(flagged) -> None:
    events, _, _ = flagged
    turns = played_turns(effective_events(events))
    listed = [m for m in move_list(events) if m["kind"] == "play"]
    assert [(t.game, t.move) for t in turns] == [(m["game"], m["move"]) for m in listed]
    for game in {t.game for t in turns}:
        assert [t.move for t in turns if t.game == game] == list(
            range(1, 1 + sum(t.game == game for t in turns)))
    # the board before each play is the one the match had then
    assert turns[0].before == Position.start(turns[0].moved.player) and turns[0].opening
    assert all(not t.opening for t in turns[1:] if t.move > 1)


def test_the_throws_that_make_a_board() -> None:
    start = Position.start()
    after = resolve(start, (3, 1), "8/5 6/5").result
    assert throws_to(start, after) == (Dice(1, 1), Dice(3, 1))
    assert throws_to(start, after, opening=True) == (Dice(3, 1),)  # never a double


def test_the_turns_in_doubt_of_ended_games_are_listed_with_their_throws(flagged) -> None:
    events, turn, throws = flagged
    [(listed, got)] = turns_in_doubt(events)
    assert (listed.game, listed.move) == (turn.game, turn.move) and got == throws
    # a game not over yet lists nothing
    cut = events[:next(i for i, ev in enumerate(events) if ev is turn.moved) + 1]
    assert turns_in_doubt(cut) == []


# --- checking an amendment ----------------------------------------------------------------------


def test_a_good_amendment_is_allowed(flagged) -> None:
    events, turn, throws = flagged
    for dice in throws:
        assert check_amendment(events, Amended(turn.game, turn.move, dice)) == turn
    # the dice in either order, and the throw recorded itself (the reviewer confirms it)
    d = other_throw(turn, throws)
    assert check_amendment(events, Amended(turn.game, turn.move, Dice(d.low, d.high))) == turn


def _refusal(events: list[Event], amend: Amended) -> str:
    with pytest.raises(MatchError) as err:
        check_amendment(events, amend)
    text = str(err.value)
    assert "\n" not in text
    return text


def test_a_bad_amendment_is_refused_naming_what_was_wrong(flagged) -> None:
    events, turn, throws = flagged
    g, m = turn.game, turn.move
    games = sum(isinstance(ev, GameStarted) for ev in events)
    assert "there is no game 99" in _refusal(events, Amended(99, 1, Dice(3, 1)))
    assert f"has {games} game(s)" in _refusal(events, Amended(99, 1, Dice(3, 1)))
    plays = sum(t.game == g for t in played_turns(effective_events(events)))
    text = _refusal(events, Amended(g, plays + 1, Dice(3, 1)))
    assert f"game {g} has {plays} plays, not {plays + 1}" in text and "number them" in text
    text = _refusal(events, Amended(g, 1, Dice(3, 1)))
    assert "seen plainly" in text and "only a turn in doubt" in text
    wrong = next(d for d in (Dice(6, 6), Dice(1, 1), Dice(2, 1)) if d not in throws)
    text = _refusal(events, Amended(g, m, wrong))
    assert f"no legal play of {wrong.high}-{wrong.low} makes the board" in text
    assert "set one of " + ", ".join(f"{d.high}-{d.low}" for d in throws) in text
    # a game still in progress
    i = next(k for k, ev in enumerate(events) if ev is turn.moved)
    assert "has not ended" in _refusal(events[:i + 1], Amended(g, m, throws[0]))


def test_a_condoned_illegal_play_no_throw_makes_cannot_be_set(flagged) -> None:
    events = list(flagged[0])
    turn = played_turns(effective_events(events))[1]
    i = next(k for k, ev in enumerate(events) if ev is turn.moved)
    # the play stood without a checker moved, where every throw has a legal play
    events[i] = replace(turn.moved, play=Play((), (), turn.before), illegal=True,
                        flag="condoned")
    assert throws_to(turn.before, turn.before) == ()  # every throw here has a legal play
    text = _refusal(events, Amended(turn.game, turn.move, Dice(3, 1)))
    assert "no throw's legal play makes the board" in text and "stands as recorded" in text


def test_the_opening_roll_is_never_set_to_a_double(flagged) -> None:
    events = list(flagged[0])
    opening = played_turns(effective_events(events))[0]
    assert opening.opening and opening.move == 1
    i = next(k for k, ev in enumerate(events) if ev is opening.moved)
    events[i] = replace(opening.moved, dice_seen=False)
    text = _refusal(events, Amended(1, 1, Dice(2, 2)))
    assert "is the opening roll, never a double: set one of " in text
    d = opening.moved.dice
    assert f"{d.high}-{d.low}" in text.rsplit("set one of ", 1)[1]


# --- the match with the amendment ---------------------------------------------------------------


def test_the_amended_turn_is_played_with_the_new_dice_and_no_longer_in_doubt(flagged) -> None:
    events, turn, throws = flagged
    new = other_throw(turn, throws)
    amended = [*events, Amended(turn.game, turn.move, new, "the players agree")]
    evs = effective_events(amended)
    assert not any(isinstance(ev, Amended) for ev in evs)
    got = next(t for t in played_turns(evs) if (t.game, t.move) == (turn.game, turn.move))
    m = got.moved
    assert (m.dice, m.flag, m.dice_seen, m.result) == (new, "", True, turn.moved.result)
    assert m.reviewed.startswith(f"recorded at the table as {turn.moved.dice.high}-"
                                 f"{turn.moved.dice.low}: ")
    assert "dice not seen" in m.reviewed and FLAG in m.reviewed
    assert m.reviewed.endswith("; note: the players agree")
    assert isinstance(evs[got.index - 1], Reread) and evs[got.index - 1].dice == new
    # the score and everything else stand; the record has the new dice
    assert replay(amended).score == replay(events).score
    assert replay(amended).games == replay(events).games
    rec = match_record(amended)
    moves = [a for a in rec.games[turn.game - 1].actions if a.kind == "move"]
    act = moves[turn.move - 1]
    assert act.dice == (new.high, new.low) and act.seen
    assert act.comment.startswith(f"{REVIEWED}{new.high}-{new.low}; recorded at the table as")
    assert rec.games[turn.game - 1].result == match_record(events).games[turn.game - 1].result
    # the move list shows it with its new dice, no longer flagged, and the throws to pick from
    [entry] = [e for e in move_list(amended)
               if e["kind"] == "play" and (e["game"], e["move"]) == (turn.game, turn.move)]
    assert entry["dice"] == [new.a, new.b] and entry["flag"] == "" and entry["dice_seen"]
    assert entry["reviewed"] == m.reviewed
    assert entry["throws"] == [[d.high, d.low] for d in throws]


def test_a_later_amendment_replaces_an_earlier_one(flagged) -> None:
    events, turn, throws = flagged
    new = other_throw(turn, throws)
    old = turn.moved.dice
    twice = [*events, Amended(turn.game, turn.move, new, "first"),
             Amended(turn.game, turn.move, old, "second")]
    assert check_amendment(twice[:-1], twice[-1]) is not None  # a set turn may be set again
    m = next(t for t in played_turns(effective_events(twice))
             if (t.game, t.move) == (turn.game, turn.move)).moved
    assert (m.dice.high, m.dice.low) == (old.high, old.low)
    assert m.reviewed.endswith("; note: second") and "first" not in m.reviewed
    assert f"as {old.high}-{old.low}:" in m.reviewed


def test_an_undo_never_takes_an_amendment_back(flagged) -> None:
    events, turn, throws = flagged
    new = other_throw(turn, throws)
    # the amendment made during the next game, then a turn of that game undone
    later = next(i for i, ev in enumerate(events)
                 if isinstance(ev, Moved) and i > events.index(turn.moved)
                 and sum(isinstance(e, GameStarted) for e in events[:i]) > turn.game)
    amend = Amended(turn.game, turn.move, new)
    with_undo = [*events[:later + 1], amend, Undone()]
    m = next(t for t in played_turns(effective_events(with_undo))
             if (t.game, t.move) == (turn.game, turn.move)).moved
    assert m.dice == new and m.reviewed
    assert events[later] not in effective_events(with_undo)  # the undo took its turn back


def test_an_amendment_whose_turn_was_taken_back_is_left_out() -> None:
    start = Position.start()
    play = resolve(start, (3, 1), "8/5 6/5")
    events: list[Event] = [MatchStarted(MatchSettings(length=1)), GameStarted(),
                           OpeningRoll(3, 1),
                           Moved(Color.WHITE, Dice(3, 1), play, dice_seen=False),
                           Undone(), Amended(1, 1, Dice(3, 1))]
    assert effective_events(events) == events[:3]


# --- the records --------------------------------------------------------------------------------


def _amended(flagged) -> tuple[list[Event], PlayedTurn, Dice]:
    events, turn, throws = flagged
    new = other_throw(turn, throws)
    return [*events, Amended(turn.game, turn.move, new, "seen on the video")], turn, new


def test_the_mat_and_sgf_carry_the_new_dice_and_read_back(flagged) -> None:
    amended, turn, new = _amended(flagged)
    mat = dumps_mat(amended)
    assert mat != dumps_mat(flagged[0])
    back = [t.moved for t in played_turns(effective_events(
        read_mat_text(mat)))]
    mine = [t.moved for t in played_turns(effective_events(amended))]
    assert [(m.dice.high, m.dice.low, m.result) for m in back] == [
        (m.dice.high, m.dice.low, m.result) for m in mine]
    sgf = dumps_sgf(amended)
    assert f"C[{REVIEWED}{new.high}-{new.low}; recorded at the table as" in sgf
    read = parse_sgf(sgf)
    m = next(t for t in played_turns(effective_events(read))
             if (t.game, t.move) == (turn.game, turn.move)).moved
    assert (m.dice.high, m.dice.low) == (new.high, new.low) and m.dice_seen and not m.flag
    assert m.reviewed.endswith("; note: seen on the video")
    # read back, written again: the same file
    assert dumps_sgf(read) == sgf


def read_mat_text(text: str) -> list[Event]:
    from pibg.matfile import parse_mat

    return parse_mat(text)


@pytest.mark.slow
def test_gnubg_imports_the_amended_records_with_the_new_dice(flagged, gnubg_exe: str,
                                                             tmp_path: Path) -> None:
    amended, turn, new = _amended(flagged)
    rt = check_with_gnubg([("amended", match_record(amended))], tmp_path, exe=gnubg_exe)
    assert rt.mismatches == [] and rt.files == 2
    [res] = gnubg_import([(tmp_path / "amended.mat", "mat")], exe=gnubg_exe)
    game = res["match"]["games"][turn.game - 1]["game"]
    moves = [a for a in game if a.get("action") == "move"]
    assert sorted(moves[turn.move - 1]["dice"]) == [new.low, new.high]


# --- the referee records it ---------------------------------------------------------------------


def test_the_referee_records_an_amendment_and_refuses_a_bad_one(flagged) -> None:
    events, turn, throws = flagged
    new = other_throw(turn, throws)
    state = referee.resume(tuple(events)).state
    res = referee.step(state, referee.Amend(5.0, Amended(turn.game, turn.move, new)))
    assert res.events == (Amended(turn.game, turn.move, new),)
    assert res.state.events[-1] == res.events[0] and res.state.mode is state.mode
    [line] = res.say
    assert line.startswith(f"game {turn.game}, move {turn.move}: ")
    assert f"is now {new.high}-{new.low}" in line
    bad = referee.step(state, referee.Amend(5.0, Amended(turn.game, 1, new)))
    assert bad.events == () and bad.state.events == state.events
    assert bad.say[0].startswith("dice not set: ") and "seen plainly" in bad.say[0]


# --- pibg amend ---------------------------------------------------------------------------------


def _journal(folder: Path, events: list[Event]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "match.jsonl"
    with Journal.open(path) as j:
        j.extend(events, ts="2026-11-22T16:00:00Z")
    return path


def test_pibg_amend_lists_the_turns_in_doubt(flagged, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    events, turn, throws = flagged
    path = _journal(tmp_path, events)
    assert main(["amend", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"game {turn.game}, move {turn.move}: " in out and FLAG in out
    assert "throws that make the same board: " + ", ".join(
        f"{d.high}{d.low}" for d in throws) in out
    assert f"pibg amend {path} --game {turn.game} --move {turn.move} --dice AB" in out
    plain = _journal(tmp_path / "plain", random_match(0, MatchSettings(length=3)))
    assert main(["amend", str(plain)]) == 0
    assert "no turn in doubt" in capsys.readouterr().out


def test_pibg_amend_appends_the_event_and_writes_the_records_again(
        flagged, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from pibg.matfile import write_mat
    from pibg.sgf import write_sgf

    events, turn, throws = flagged
    new = other_throw(turn, throws)
    path = _journal(tmp_path, events)
    write_mat(events, tmp_path / "match.mat")
    write_sgf(events, tmp_path / "match.sgf")
    before = path.read_bytes()
    assert main(["amend", str(path), "--game", str(turn.game), "--move", str(turn.move),
                 "--dice", f"{new.high}-{new.low}", "--note", "seen  on the video"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"game {turn.game}, move {turn.move}: ")
    assert f"is now {new.high}-{new.low}" in out[0]
    assert out[1:] == [f"wrote {tmp_path / 'match.mat'}", f"wrote {tmp_path / 'match.sgf'}"]
    # appended, nothing before it rewritten
    after = path.read_bytes()
    assert after.startswith(before) and after[len(before):].count(b"\n") == 1
    with Journal.open(path, readonly=True) as j:
        assert j.events()[-1] == Amended(turn.game, turn.move, new, "seen on the video")
    assert (tmp_path / "match.mat").read_text() == dumps_mat(j.events())
    assert read_mat(tmp_path / "match.mat") != read_mat_text(dumps_mat(events))
    assert REVIEWED in (tmp_path / "match.sgf").read_text()
    # now set, the turn is listed as set by a reviewer
    assert main(["amend", str(path)]) == 0
    assert "set after the game (recorded at the table as" in capsys.readouterr().out


@pytest.mark.parametrize(("args", "says"), [
    (["--game", "1"], "give --game, --move and --dice together"),
    (["--game", "1", "--move", "1", "--dice", "71"], "a die shows 1-6"),
    (["--game", "1", "--move", "1", "--dice", "three"], "expected two dice 1-6, like 31"),
    (["--game", "0", "--move", "1", "--dice", "31"], "numbered from 1"),
    (["--game", "1", "--move", "1", "--dice", "31"], "seen plainly"),
    (["--game", "9", "--move", "1", "--dice", "31"], "there is no game 9"),
])
def test_pibg_amend_refuses_bad_input_in_one_line(flagged, tmp_path: Path, args: list[str],
                                                  says: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = _journal(tmp_path, flagged[0])
    before = path.read_bytes()
    assert main(["amend", str(path), *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("pibg amend: error: ") and says in err and "\n" not in err
    assert path.read_bytes() == before


def test_pibg_amend_on_a_journal_being_recorded_points_to_the_live_page(
        flagged, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    events, turn, _ = flagged
    path = _journal(tmp_path, events)
    with Journal.open(path):  # pibg run holds it
        assert main(["amend", str(path), "--game", str(turn.game), "--move",
                     str(turn.move), "--dice", "31"]) == 2
    err = capsys.readouterr().err.strip()
    assert "in use by another process" in err and "live page" in err and "\n" not in err
    assert main(["amend", str(tmp_path / "nope.jsonl")]) == 2
    assert "no such journal" in capsys.readouterr().err
