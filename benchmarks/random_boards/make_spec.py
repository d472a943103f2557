"""Write ``spec.json``: five camera set-ups on ``random:SEED`` board styles nothing was tuned on.

    pip install gnubg          # make_sessions.py decodes gnubg position IDs with it
    python benchmarks/random_boards/make_spec.py > benchmarks/random_boards/spec.json
    python benchmarks/random_boards/make_spec.py --fresh > benchmarks/random_boards/fresh_spec.json
    python benchmarks/random_boards/make_spec.py --third > benchmarks/random_boards/third_spec.json
    python benchmarks/random_boards/make_spec.py --fourth > benchmarks/random_boards/fourth.json
    python benchmarks/random_boards/make_spec.py --fifth > benchmarks/random_boards/fifth.json
    python benchmarks/random_boards/make_spec.py --sixth > benchmarks/random_boards/sixth.json
    python benchmarks/random_boards/make_spec.py --seventh > benchmarks/random_boards/seventh.json
    python benchmarks/random_boards/make_spec.py --eighth > benchmarks/random_boards/eighth.json
    python benchmarks/random_boards/make_spec.py --ninth > benchmarks/random_boards/ninth.json
    python benchmarks/random_boards/make_spec.py --tenth > benchmarks/random_boards/tenth.json
    python benchmarks/random_boards/make_spec.py --eleventh > benchmarks/random_boards/eleventh.json
    python benchmarks/random_boards/make_spec.py --twelfth > benchmarks/random_boards/twelfth.json
    python benchmarks/random_boards/make_spec.py --thirteenth \\
        > benchmarks/random_boards/thirteenth.json
    python benchmarks/random_boards/make_spec.py --fourteenth \\
        > benchmarks/random_boards/fourteenth.json
    python benchmarks/random_boards/make_spec.py --fifteenth \\
        > benchmarks/random_boards/fifteenth.json
    python benchmarks/random_boards/make_spec.py --sixteenth \\
        > benchmarks/random_boards/sixteenth.json
    python benchmarks/random_boards/make_spec.py --seventeenth \\
        > benchmarks/random_boards/seventeenth.json
    python benchmarks/random_boards/make_spec.py --eighteenth \\
        > benchmarks/random_boards/eighteenth.json
    python benchmarks/random_boards/make_spec.py --nineteenth \\
        > benchmarks/random_boards/nineteenth.json
    python benchmarks/random_boards/make_spec.py --twentieth \\
        > benchmarks/random_boards/twentieth.json
    python benchmarks/random_boards/make_spec.py --twenty-first \\
        > benchmarks/random_boards/twenty_first.json
    python benchmarks/random_boards/make_spec.py --twenty-second \\
        > benchmarks/random_boards/twenty_second.json
    python benchmarks/random_boards/make_spec.py --twenty-third \\
        > benchmarks/random_boards/twenty_third.json
    python benchmarks/random_boards/make_spec.py --twenty-fourth \\
        > benchmarks/random_boards/twenty_fourth.json
    python benchmarks/random_boards/make_spec.py --twenty-fifth \\
        > benchmarks/random_boards/twenty_fifth.json
    python benchmarks/random_boards/make_spec.py --twenty-sixth \\
        > benchmarks/random_boards/twenty_sixth.json
    python benchmarks/random_boards/make_spec.py --twenty-seventh \\
        > benchmarks/random_boards/twenty_seventh.json
    python benchmarks/random_boards/make_spec.py --twenty-eighth \\
        > benchmarks/random_boards/twenty_eighth.json
    python benchmarks/random_boards/make_spec.py --twenty-ninth \\
        > benchmarks/random_boards/twenty_ninth.json
    python benchmarks/random_boards/make_spec.py --thirtieth \\
        > benchmarks/random_boards/thirtieth.json
    python benchmarks/random_boards/make_spec.py --thirty-first \\
        > benchmarks/random_boards/thirty_first.json
    python benchmarks/random_boards/make_spec.py --thirty-second \\
        > benchmarks/random_boards/thirty_second.json
    blender -b --python-exit-code 1 -P ../shared/tools/render/render_board.py -- \\
        --spec benchmarks/random_boards/spec.json --out ~/render/random_boards   # ~25 min, 2 cores

Each set-up is a start frame (``rndN_00_start``) and 12 positions from gnubg self-play, like
``renders/dev``. ``make_sessions.py`` takes ``STYLE:LIGHT:MODEL:HEIGHT:TILT`` and a
``random:SEED`` style holds a colon, so the set-ups are made on a named style and the style
swapped for ``random:SEED`` afterwards (the style does not enter the positions, camera or light).
The seeds were chosen before any frame was looked at; nothing in pibg is tuned on them.

``--fresh`` writes a second set the same way (set-ups ``rnf0`` to ``rnf4``, seeds 7311 to 7315,
other lights and cameras), rendered once and measured once, after every change measured on the
first set: the first set's frames have been looked at while working, the fresh ones not.
``--third`` writes a third (``rnt0`` to ``rnt4``, seeds 7321 to 7325), for when the fresh set
has been looked at in turn: rendered once, measured once on the vision as it then stands;
``--fourth`` (``rnu0`` to ``rnu4``, seeds 7331 to 7335, ``fourth.json``) likewise, after the
third, ``--fifth`` (``rnv0`` to ``rnv4``, seeds 7341 to 7345, ``fifth.json``) after the fourth,
``--sixth`` (``rnw0`` to ``rnw4``, seeds 7351 to 7355, ``sixth.json``) after the fifth,
``--seventh`` (``rnx0`` to ``rnx4``, seeds 7361 to 7365, ``seventh.json``) after the sixth,
``--eighth`` (``rny0`` to ``rny4``, seeds 7371 to 7375, ``eighth.json``) after the seventh,
``--ninth`` (``rnz0`` to ``rnz4``, seeds 7381 to 7385, ``ninth.json``) after the eighth,
``--tenth`` (``rna0`` to ``rna4``, seeds 7391 to 7395, ``tenth.json``) after the ninth,
``--eleventh`` (``rnb0`` to ``rnb4``, seeds 7411 to 7415, ``eleventh.json``) after the tenth,
``--twelfth`` (``rnc0`` to ``rnc4``, seeds 7421 to 7425, ``twelfth.json``) after the
eleventh, ``--thirteenth`` (``rne0`` to ``rne4``, seeds 7431 to 7435,
``thirteenth.json``) after the twelfth, ``--fourteenth`` (``rng0`` to ``rng4``, seeds 7441
to 7445, ``fourteenth.json``) after the thirteenth, ``--fifteenth`` (``rnh0`` to ``rnh4``,
seeds 7451 to 7455, ``fifteenth.json``) after the fourteenth, ``--sixteenth`` (``rni0``
to ``rni4``, seeds 7461 to 7465, ``sixteenth.json``) after the fifteenth,
``--seventeenth`` (``rnj0`` to ``rnj4``, seeds 7471 to 7475, ``seventeenth.json``) after the
sixteenth, ``--eighteenth`` (``rnk0`` to ``rnk4``, seeds 7481 to 7485,
``eighteenth.json``) after the seventeenth, ``--nineteenth`` (``rnl0`` to ``rnl4``, seeds
7491 to 7495, ``nineteenth.json``) after the eighteenth, ``--twentieth`` (``rnm0`` to
``rnm4``, seeds 7501 to 7505, ``twentieth.json``) after the nineteenth,
``--twenty-first`` (``rnn0`` to ``rnn4``, seeds 7511 to 7515, ``twenty_first.json``) after
the twentieth, ``--twenty-second`` (``rno0`` to ``rno4``, seeds 7521 to 7525,
``twenty_second.json``) after the twenty-first, ``--twenty-third`` (``rnp0`` to
``rnp4``, seeds 7531 to 7535, ``twenty_third.json``) after the twenty-second, and
``--twenty-fourth`` (``rnq0`` to ``rnq4``, seeds 7541 to 7545, ``twenty_fourth.json``) after
the twenty-third, ``--twenty-fifth`` (``rnr0`` to ``rnr4``, seeds 7551 to 7555,
``twenty_fifth.json``) after the twenty-fourth, ``--twenty-sixth`` (``rns0`` to ``rns4``,
seeds 7561 to 7565, ``twenty_sixth.json``) after the twenty-fifth, ``--twenty-seventh``
(``rpa0`` to ``rpa4``, seeds 7571 to 7575, ``twenty_seventh.json``) after the twenty-sixth:
every ``rn`` prefix being taken, its set-ups begin ``rpa``, and ``--twenty-eighth`` (``rpb0``
to ``rpb4``, seeds 7581 to 7585, ``twenty_eighth.json``) after the twenty-seventh, and
``--twenty-ninth`` (``rpc0`` to ``rpc4``, seeds 7591 to 7595, ``twenty_ninth.json``) after
the twenty-eighth, and ``--thirtieth`` (``rpd0`` to ``rpd4``, seeds 7601 to 7605,
``thirtieth.json``) after the twenty-ninth, and ``--thirty-first`` (``rpe0`` to ``rpe4``,
seeds 7611 to 7615, ``thirty_first.json``) after the thirtieth, and ``--thirty-second``
(``rpf0`` to ``rpf4``, seeds 7621 to 7625, ``thirty_second.json``) after the thirty-first.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SHARED = Path(__file__).resolve().parents[3] / "shared"
SETUPS = [  # (style seed, light, camera model, height cm, tilt deg)
    (7301, "warm_ceiling", "v3", 70, 4),
    (7302, "daylight_window", "v3", 65, 6),
    (7303, "desk_lamp", "v3wide", 60, 5),
    (7304, "dim_evening", "v3", 75, 3),
    (7305, "daylight_window", "v3wide", 58, 7),
]
FRESH = [
    (7311, "desk_lamp", "v3", 72, 5),
    (7312, "warm_ceiling", "v3wide", 52, 4),
    (7313, "dim_evening", "v3", 68, 6),
    (7314, "daylight_window", "v3", 78, 3),
    (7315, "warm_ceiling", "v3wide", 56, 6),
]
THIRD = [
    (7321, "dim_evening", "v3wide", 57, 5),
    (7322, "desk_lamp", "v3", 66, 4),
    (7323, "daylight_window", "v3wide", 62, 3),
    (7324, "warm_ceiling", "v3", 80, 6),
    (7325, "desk_lamp", "v3wide", 54, 7),
]
FOURTH = [
    (7331, "warm_ceiling", "v3", 74, 4),
    (7332, "dim_evening", "v3", 64, 6),
    (7333, "desk_lamp", "v3wide", 58, 3),
    (7334, "daylight_window", "v3", 70, 5),
    (7335, "dim_evening", "v3wide", 60, 4),
]
FIFTH = [
    (7341, "desk_lamp", "v3", 62, 5),
    (7342, "daylight_window", "v3wide", 55, 4),
    (7343, "warm_ceiling", "v3", 77, 3),
    (7344, "dim_evening", "v3wide", 59, 6),
    (7345, "daylight_window", "v3", 69, 7),
]
SIXTH = [
    (7351, "warm_ceiling", "v3wide", 57, 5),
    (7352, "desk_lamp", "v3", 73, 4),
    (7353, "dim_evening", "v3", 66, 3),
    (7354, "daylight_window", "v3wide", 61, 6),
    (7355, "desk_lamp", "v3", 79, 5),
]
SEVENTH = [
    (7361, "daylight_window", "v3", 67, 4),
    (7362, "dim_evening", "v3wide", 56, 5),
    (7363, "desk_lamp", "v3", 71, 6),
    (7364, "warm_ceiling", "v3wide", 63, 3),
    (7365, "dim_evening", "v3", 76, 7),
]
EIGHTH = [
    (7371, "warm_ceiling", "v3", 69, 6),
    (7372, "desk_lamp", "v3wide", 57, 4),
    (7373, "daylight_window", "v3", 74, 3),
    (7374, "dim_evening", "v3wide", 61, 5),
    (7375, "desk_lamp", "v3", 65, 7),
]
NINTH = [
    (7381, "dim_evening", "v3", 72, 5),
    (7382, "daylight_window", "v3wide", 59, 7),
    (7383, "warm_ceiling", "v3", 64, 4),
    (7384, "desk_lamp", "v3wide", 68, 3),
    (7385, "daylight_window", "v3", 58, 6),
]
TENTH = [
    (7391, "warm_ceiling", "v3wide", 66, 6),
    (7392, "dim_evening", "v3", 62, 3),
    (7393, "desk_lamp", "v3", 73, 5),
    (7394, "daylight_window", "v3wide", 55, 4),
    (7395, "warm_ceiling", "v3", 70, 7),
]
ELEVENTH = [
    (7411, "desk_lamp", "v3", 67, 4),
    (7412, "warm_ceiling", "v3wide", 61, 6),
    (7413, "daylight_window", "v3", 74, 3),
    (7414, "dim_evening", "v3wide", 57, 5),
    (7415, "desk_lamp", "v3", 63, 7),
]
TWELFTH = [
    (7421, "dim_evening", "v3", 69, 6),
    (7422, "desk_lamp", "v3wide", 60, 4),
    (7423, "warm_ceiling", "v3", 76, 5),
    (7424, "daylight_window", "v3wide", 62, 3),
    (7425, "dim_evening", "v3", 57, 7),
]
THIRTEENTH = [
    (7431, "warm_ceiling", "v3", 71, 5),
    (7432, "dim_evening", "v3wide", 59, 6),
    (7433, "desk_lamp", "v3", 66, 3),
    (7434, "daylight_window", "v3", 73, 4),
    (7435, "warm_ceiling", "v3wide", 56, 7),
]
FOURTEENTH = [
    (7441, "desk_lamp", "v3wide", 64, 5),
    (7442, "daylight_window", "v3", 68, 7),
    (7443, "dim_evening", "v3", 72, 4),
    (7444, "warm_ceiling", "v3wide", 58, 3),
    (7445, "desk_lamp", "v3", 75, 6),
]
FIFTEENTH = [
    (7451, "daylight_window", "v3wide", 63, 4),
    (7452, "warm_ceiling", "v3", 66, 6),
    (7453, "desk_lamp", "v3wide", 59, 3),
    (7454, "dim_evening", "v3", 70, 5),
    (7455, "daylight_window", "v3", 74, 7),
]
SIXTEENTH = [
    (7461, "warm_ceiling", "v3wide", 61, 5),
    (7462, "desk_lamp", "v3", 69, 4),
    (7463, "daylight_window", "v3", 65, 6),
    (7464, "dim_evening", "v3wide", 57, 3),
    (7465, "warm_ceiling", "v3", 73, 7),
]
SEVENTEENTH = [
    (7471, "desk_lamp", "v3", 67, 5),
    (7472, "dim_evening", "v3wide", 62, 7),
    (7473, "warm_ceiling", "v3wide", 70, 3),
    (7474, "daylight_window", "v3", 58, 6),
    (7475, "desk_lamp", "v3wide", 74, 4),
]
EIGHTEENTH = [
    (7481, "dim_evening", "v3", 64, 6),
    (7482, "daylight_window", "v3wide", 60, 4),
    (7483, "desk_lamp", "v3", 71, 7),
    (7484, "warm_ceiling", "v3wide", 56, 5),
    (7485, "daylight_window", "v3", 76, 3),
]
NINETEENTH = [
    (7491, "warm_ceiling", "v3", 68, 4),
    (7492, "desk_lamp", "v3wide", 58, 6),
    (7493, "dim_evening", "v3", 75, 5),
    (7494, "daylight_window", "v3wide", 63, 7),
    (7495, "desk_lamp", "v3", 61, 3),
]
TWENTIETH = [
    (7501, "dim_evening", "v3wide", 66, 5),
    (7502, "warm_ceiling", "v3", 59, 7),
    (7503, "daylight_window", "v3", 72, 3),
    (7504, "desk_lamp", "v3wide", 64, 6),
    (7505, "dim_evening", "v3", 70, 4),
]
TWENTY_FIRST = [
    (7511, "desk_lamp", "v3", 63, 6),
    (7512, "daylight_window", "v3wide", 69, 4),
    (7513, "warm_ceiling", "v3", 57, 5),
    (7514, "dim_evening", "v3wide", 74, 3),
    (7515, "daylight_window", "v3", 66, 7),
]
TWENTY_SECOND = [
    (7521, "warm_ceiling", "v3wide", 67, 4),
    (7522, "desk_lamp", "v3", 72, 6),
    (7523, "dim_evening", "v3", 61, 3),
    (7524, "daylight_window", "v3wide", 58, 5),
    (7525, "warm_ceiling", "v3", 75, 7),
]
TWENTY_THIRD = [
    (7531, "daylight_window", "v3", 62, 5),
    (7532, "dim_evening", "v3wide", 70, 3),
    (7533, "desk_lamp", "v3", 57, 7),
    (7534, "warm_ceiling", "v3wide", 73, 6),
    (7535, "desk_lamp", "v3", 66, 4),
]
TWENTY_FOURTH = [
    (7541, "warm_ceiling", "v3", 68, 4),
    (7542, "daylight_window", "v3wide", 61, 6),
    (7543, "dim_evening", "v3", 74, 5),
    (7544, "desk_lamp", "v3wide", 65, 3),
    (7545, "daylight_window", "v3", 59, 7),
]
TWENTY_FIFTH = [
    (7551, "desk_lamp", "v3", 71, 5),
    (7552, "warm_ceiling", "v3wide", 60, 4),
    (7553, "daylight_window", "v3", 64, 6),
    (7554, "dim_evening", "v3wide", 67, 3),
    (7555, "warm_ceiling", "v3", 77, 5),
]
TWENTY_SIXTH = [
    (7561, "daylight_window", "v3wide", 69, 5),
    (7562, "desk_lamp", "v3", 63, 4),
    (7563, "warm_ceiling", "v3wide", 72, 6),
    (7564, "dim_evening", "v3", 58, 7),
    (7565, "daylight_window", "v3", 66, 3),
]
TWENTY_SEVENTH = [
    (7571, "warm_ceiling", "v3", 62, 6),
    (7572, "dim_evening", "v3wide", 68, 4),
    (7573, "daylight_window", "v3", 71, 3),
    (7574, "desk_lamp", "v3wide", 60, 7),
    (7575, "dim_evening", "v3", 65, 5),
]
TWENTY_EIGHTH = [
    (7581, "daylight_window", "v3wide", 63, 5),
    (7582, "desk_lamp", "v3", 74, 4),
    (7583, "warm_ceiling", "v3", 57, 6),
    (7584, "dim_evening", "v3wide", 70, 3),
    (7585, "desk_lamp", "v3", 66, 7),
]
TWENTY_NINTH = [
    (7591, "warm_ceiling", "v3wide", 61, 4),
    (7592, "dim_evening", "v3", 68, 5),
    (7593, "daylight_window", "v3", 72, 6),
    (7594, "desk_lamp", "v3wide", 64, 3),
    (7595, "warm_ceiling", "v3", 59, 7),
]
THIRTIETH = [
    (7601, "daylight_window", "v3wide", 63, 5),
    (7602, "desk_lamp", "v3", 70, 4),
    (7603, "dim_evening", "v3wide", 58, 6),
    (7604, "warm_ceiling", "v3", 74, 3),
    (7605, "daylight_window", "v3", 62, 8),
]
THIRTY_FIRST = [
    (7611, "dim_evening", "v3", 66, 5),
    (7612, "warm_ceiling", "v3wide", 60, 4),
    (7613, "desk_lamp", "v3", 72, 6),
    (7614, "daylight_window", "v3wide", 67, 3),
    (7615, "dim_evening", "v3", 61, 7),
]
THIRTY_SECOND = [
    (7621, "desk_lamp", "v3wide", 62, 5),
    (7622, "daylight_window", "v3", 69, 4),
    (7623, "warm_ceiling", "v3", 57, 7),
    (7624, "dim_evening", "v3wide", 65, 3),
    (7625, "desk_lamp", "v3", 73, 6),
]


#: Each set's set-ups, make_sessions.py's seed and the set-ups' name prefix, by option.
SETS = {"": (SETUPS, "38", "rnd"), "--fresh": (FRESH, "39", "rnf"),
        "--third": (THIRD, "40", "rnt"), "--fourth": (FOURTH, "41", "rnu"),
        "--fifth": (FIFTH, "42", "rnv"), "--sixth": (SIXTH, "43", "rnw"),
        "--seventh": (SEVENTH, "44", "rnx"), "--eighth": (EIGHTH, "45", "rny"),
        "--ninth": (NINTH, "46", "rnz"), "--tenth": (TENTH, "47", "rna"),
        "--eleventh": (ELEVENTH, "48", "rnb"), "--twelfth": (TWELFTH, "49", "rnc"),
        "--thirteenth": (THIRTEENTH, "50", "rne"), "--fourteenth": (FOURTEENTH, "51", "rng"),
        "--fifteenth": (FIFTEENTH, "52", "rnh"), "--sixteenth": (SIXTEENTH, "53", "rni"),
        "--seventeenth": (SEVENTEENTH, "54", "rnj"), "--eighteenth": (EIGHTEENTH, "55", "rnk"),
        "--nineteenth": (NINETEENTH, "56", "rnl"), "--twentieth": (TWENTIETH, "57", "rnm"),
        "--twenty-first": (TWENTY_FIRST, "58", "rnn"),
        "--twenty-second": (TWENTY_SECOND, "59", "rno"),
        "--twenty-third": (TWENTY_THIRD, "60", "rnp"),
        "--twenty-fourth": (TWENTY_FOURTH, "61", "rnq"),
        "--twenty-fifth": (TWENTY_FIFTH, "62", "rnr"),
        "--twenty-sixth": (TWENTY_SIXTH, "63", "rns"),
        "--twenty-seventh": (TWENTY_SEVENTH, "64", "rpa"),
        "--twenty-eighth": (TWENTY_EIGHTH, "65", "rpb"),
        "--twenty-ninth": (TWENTY_NINTH, "66", "rpc"),
        "--thirtieth": (THIRTIETH, "67", "rpd"),
        "--thirty-first": (THIRTY_FIRST, "68", "rpe"),
        "--thirty-second": (THIRTY_SECOND, "69", "rpf")}


def main() -> int:
    setups, seed, prefix = SETS[next((a for a in sys.argv[1:] if a in SETS), "")]
    args = [sys.executable, str(SHARED / "tools/render/make_sessions.py"),
            str(SHARED / "golden/movegen.jsonl"), seed, prefix, "12"]
    args += [f"walnut:{light}:{model}:{h}:{t}" for _, light, model, h, t in setups]
    specs = json.loads(subprocess.run(args, check=True, capture_output=True, text=True).stdout)
    for spec in specs:
        session = int(spec["id"][3:].split("_")[0])
        spec["style"] = f"random:{setups[session][0]}"
    json.dump(specs, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
