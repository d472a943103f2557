"""Telling a checker from an empty place, and an arm from both, with a small network.

The network (``pibg/data/place_net.onnx``, about 36,000 weights) takes a square crop of the
top-down view round one checker place, ``READ_SPAN`` checker widths a side, and gives three
scores: an empty place, a checker, something over the place (an arm, a hand, a sleeve). It sees
each crop with its level and spread taken out, and was trained with the colours of whole boards
turned round the grey axis, their saturation and tone changed, some turned grey, so it answers
from the rim, the bevel's shading and the shadow a checker casts more than from the colours of
the boards it was trained on: a checker the colour of its point shows by its rim and shadow.
Which colour a checker is stays the start frame's business (:mod:`pibg.vision.board`).

The arms it learnt are drawn ones (bands of any colour, shaded like a cylinder, with folds and
a shadow, some of them bare skin grained pixel by pixel, some ending in the crop as a fist
does) laid over crops of the renders: on a board it never saw it may take a plain point for
a sleeve, so the places that look like an arm on the empty board at calibration are set aside
(:func:`arm_like`, ``Calibration.arm_like``).

Trained by ``scripts/board_net/train.py`` on crops cut by ``scripts/board_net/extract.py``
from the labelled renders; it runs through OpenCV's ``dnn`` module, as the die-face network
does.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from pibg.vision.geometry import Array
from pibg.vision.onnx import forward, load_onnx, standardised

#: Side in pixels of the crops kept for training, and the checker widths they cover.
SIDE, SPAN = 48, 1.9
#: The network's input side, and the checker widths it reads.
INPUT, READ_SPAN = 24, 1.4

MODEL = Path(str(resources.files("pibg") / "data" / "place_net.onnx"))


def model_path(setting: str | None) -> Path | None:
    """The network ``VisionConfig.place_model`` names: ``""`` the one pibg ships, a path
    another, None none (colour and rim alone)."""
    return None if setting is None else Path(setting) if setting else MODEL


def crops(canon: Array, places: Array, checker_px: float, side: int = SIDE,
          span: float = SPAN) -> Array:
    """Square crops (N, side, side, 3) of ``canon`` round each place (N, 2), ``span`` checker
    widths a side; outside the image reads as black."""
    scale = side / (span * checker_px)
    out = np.empty((len(places), side, side, 3), np.uint8)
    for i, (x, y) in enumerate(np.asarray(places, np.float64)):
        m = np.array([[scale, 0.0, side / 2 - scale * x], [0.0, scale, side / 2 - scale * y]])
        out[i] = cv2.warpAffine(canon, m, (side, side), flags=cv2.INTER_AREA,
                                borderMode=cv2.BORDER_CONSTANT)
    return out


def centre(batch: Array) -> Array:
    """The middle ``READ_SPAN`` of crops cut ``SPAN`` wide (what the network reads)."""
    keep = round(SIDE * READ_SPAN / SPAN)
    a = (SIDE - keep) // 2
    return np.asarray(batch[:, a:a + keep, a:a + keep])


def prepare(batch: Array) -> Array:
    """Crops (N, s, s, 3) uint8 -> the network's input (N, 3, INPUT, INPUT) float32: each
    crop's channels centred on the crop's mean and scaled by its spread."""
    return standardised(batch, INPUT)


def _net(path: str) -> cv2.dnn.Net:
    return load_onnx(path, "checker model", "scripts/board_net/train.py")


@dataclass(frozen=True, slots=True)
class PlaceReading:
    """What the network sees at each place."""

    checker: Array  #: log-odds of a checker against an empty place
    arm: Array  #: probability that something lies over the place (an arm, a hand, a sleeve)
    #: probability that a checker there has another on top (a second layer), given a checker;
    #: zeros from a network without that output
    stacked: Array


def tiles(canon: Array, places: Array, checker_px: float) -> Array:
    """What the network reads at each place (N, 2) of the top-down view ``canon``: the view
    shrunk once to the network's scale and an ``INPUT``-pixel square cut round each place (one
    resize, then slices: no warp per place); (N, INPUT, INPUT, 3)."""
    s = INPUT / (READ_SPAN * checker_px)
    small = cv2.resize(canon, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    pad = cv2.copyMakeBorder(small, INPUT, INPUT, INPUT, INPUT, cv2.BORDER_CONSTANT)
    xy = np.rint(np.asarray(places, np.float64) * s - INPUT / 2).astype(np.int64) + INPUT
    xy[:, 0] = np.clip(xy[:, 0], 0, pad.shape[1] - INPUT)
    xy[:, 1] = np.clip(xy[:, 1], 0, pad.shape[0] - INPUT)
    return np.stack([pad[y:y + INPUT, x:x + INPUT] for x, y in xy])


def read(canon: Array, places: Array, checker_px: float, model: Path = MODEL) -> PlaceReading:
    """The network's reading of each place (..., 2) of the top-down view ``canon``, from
    the crops :func:`tiles` cuts."""
    shape = np.shape(places)[:-1]
    flat = np.asarray(places, np.float64).reshape(-1, 2)
    if not len(flat):
        return PlaceReading(np.zeros(shape, np.float32), np.zeros(shape, np.float32),
                            np.zeros(shape, np.float32))
    batch = tiles(canon, flat, checker_px)
    scores = forward(_net(str(model)), prepare(batch), (3, 4), "checker model", str(model))
    scores -= scores.max(1, keepdims=True)
    logp = scores - np.log(np.exp(scores).sum(1, keepdims=True))
    # a fourth class, where the network has one: a checker under another
    on = logp[:, 1] if scores.shape[1] == 3 else np.logaddexp(logp[:, 1], logp[:, 3])
    checker = on - logp[:, 0]
    arm = np.exp(logp[:, 2])
    stacked = np.zeros(len(flat)) if scores.shape[1] == 3 else np.exp(logp[:, 3] - on)
    return PlaceReading(np.asarray(checker, np.float32).reshape(shape),
                        np.asarray(arm, np.float32).reshape(shape),
                        np.asarray(stacked, np.float32).reshape(shape))


#: An empty place the network sees something over with at least this probability at
#: calibration looks like an arm on this board (a plain point of a colour an arm can have):
#: it is no evidence of an arm later (see :func:`arm_like`).
ARM_LIKE = 0.2


def arm_like(canon: Array, slots: Array, checker_px: float, occupied: Array,
             model: Path = MODEL) -> tuple[int, ...]:
    """The point places (flat indices into ``slots`` (24, K, 2)) that look like an arm on the
    empty board of this start frame ``canon``: the network trained on boards of other colours
    may take a plain point of this one for a sleeve. A place under a checker at the start
    (``occupied``, per point) is judged by the places of the points of its colour on its side
    that are empty at the start (the same paint, the same distance from the base)."""
    arm = read(canon, slots, checker_px, model).arm
    n_pts = arm.shape[0]
    ref = np.zeros_like(arm)
    for p in range(n_pts):
        same = [q for q in range(n_pts) if (q < n_pts // 2) == (p < n_pts // 2)
                and q % 2 == p % 2 and not occupied[q]]
        ref[p] = arm[same].max(0) if same else 0.0
        if not occupied[p]:
            ref[p] = np.maximum(ref[p], arm[p])
    return tuple(int(i) for i in np.flatnonzero(ref.reshape(-1) >= ARM_LIKE))


def band_arm_like(canon: Array, band: Array, checker_px: float, model: Path = MODEL) -> bool:
    """Whether the middle of the board (``band``, ``Layout.band_places``: empty at the start)
    looks like an arm anywhere on this start frame ``canon``: a plain field, which the
    network may take for a sleeve, and from frame to frame more or less so all along it. On
    such a board the band gives no evidence of an arm."""
    return bool(np.any(read(canon, band, checker_px, model).arm >= ARM_LIKE))
