"""Reading a die's face with a small convolutional network, trained on drawn dice only.

The network (``pibg/data/dice_net.onnx``, about 225,000 weights) takes a square crop round one
die, the die filling roughly 0.4 to 0.9 of it, and gives the likelihood of each of the six
values and of "no flat die face here" (a checker, the cube, the bare board, a die leaning).
It was trained by ``scripts/dice_net/train.py`` on crops drawn by ``scripts/dice_net/synth.py``
alone: random body and pip colours, marbled and swirled bodies, translucent dice (dim, soft,
the far faces' pips showing through), twos and threes with big pips set near the centre (as
on many dice), tilts showing the sides' pips, shadows, neighbouring
dice, glare and specular streaks, blur, noise and JPEG, and dice leaning 26 to 57
degrees as no flat die. No photograph or render was trained on; those are what it is
measured on (``benchmarks/dice_accuracy.py``). It runs through OpenCV's own ``dnn`` module,
so it needs no package beyond OpenCV.

>>> from pibg.vision.dice_read import draw_die
>>> read_face(draw_die(5, size=32, angle=25.0))[0]
5
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import cv2
import numpy as np

from pibg.vision.dice_config import FloatArray, Image
from pibg.vision.onnx import forward, load_onnx, probabilities

#: The crop's side the network reads, in pixels.
INPUT = 40

MODEL = Path(str(resources.files("pibg") / "data" / "dice_net.onnx"))


def _net(path: str) -> cv2.dnn.Net:
    return load_onnx(path, "dice model", "scripts/dice_net/train.py")


def prepare(patch: Image) -> FloatArray:
    """``patch`` (BGR or grey) as the network's input: ``INPUT`` square, lightness centred and
    scaled by its own spread (so the light's level and contrast drop out), channels first."""
    if patch.ndim == 2:
        patch = cv2.cvtColor(patch, cv2.COLOR_GRAY2BGR)
    shrink = min(patch.shape[:2]) > INPUT
    x = cv2.resize(patch, (INPUT, INPUT),
                   interpolation=cv2.INTER_AREA if shrink else cv2.INTER_LINEAR)
    x = x.astype(np.float32) / 255.0
    x = (x - x.mean()) / (x.std() + 0.02)
    return np.ascontiguousarray(x.transpose(2, 0, 1), dtype=np.float32)


#: Column of :func:`face_probabilities` for "no flat die face at the crop's centre".
NO_DIE = 6


def face_probabilities(patches: list[Image], model: Path = MODEL, turns: int = 1) -> FloatArray:
    """For each crop, the likelihood of each value and of no die: ``(len(patches), 7)``;
    column 0 is a one, column 5 a six, column :data:`NO_DIE` no die face. With ``turns``
    (1 to 4), each crop is read that many times, turned by a quarter turn each time (a
    die's face is the same face turned), and the likelihoods averaged."""
    if not patches:
        return np.zeros((0, 7), np.float64)
    if not 1 <= turns <= 4:
        raise ValueError(f"turns must be 1 to 4, got {turns}")
    for p in patches:
        if p.size == 0 or min(p.shape[:2]) < 4:
            raise ValueError(f"a die's crop must be 4 pixels or more a side, got {p.shape}")
    net = _net(str(model))
    x = np.stack([prepare(p) for p in patches])
    total = np.zeros((len(patches), 7), np.float64)
    for k in range(turns):
        total += probabilities(forward(net, np.rot90(x, k, (2, 3)), 7, "dice model",
                                       str(model)))
    return total / turns


def read_face(patch: Image, model: Path = MODEL, turns: int = 4) -> tuple[int, float]:
    """The likeliest value (1-6) of the die known to lie in ``patch``, and its likelihood
    among the six (read at ``turns`` quarter turns)."""
    p = face_probabilities([patch], model, turns)[0, :NO_DIE]
    i = int(np.argmax(p))
    return i + 1, float(p[i] / p.sum())
