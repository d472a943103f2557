"""Train the checker-place network and write it as ONNX (``pibg/data/place_net.onnx``).

Needs PyTorch and onnx, which pibg itself does not (it runs the network with OpenCV). The
recipe that made the shipped network (about 2 minutes of training on 2 idle cores):

    pip install torch onnx
    python scripts/board_net/extract.py renders.npz ../shared/renders/dev \
        ../shared/renders/game/frames
    python scripts/board_net/extract_sim.py sim.npz --frames 50 --seed 5
    python scripts/board_net/train.py renders.npz sim.npz --epochs 6 --seed 2 \
        --out pibg/data/place_net.onnx

(``--skin``, ``--ends`` and ``--grained`` at their defaults; with ``--skin 0 --ends 0
--grained 0 --seed 1`` it trains as the network shipped up to 3d1f571 was trained, on drawn
sleeves alone. Seed 1 of this recipe reads the render sets as well, but its least sure
checker of pibg.sim's drawn boards falls under ``VisionConfig.place_plain`` and a die by a
checker over it: two of the tests' drawn frames read wrong; seed 2 reads them right.)

``--leave-out`` trains without the named boards' crops, for the leave-one-board-out rows of
``docs/benchmarks.md`` (``benchmarks/vision_accuracy.py --only dev2 --place-model
no_oak.onnx`` then measures the left-out board with a network that never saw it):

    python scripts/board_net/train.py renders.npz --epochs 10 --leave-out dev2 --out no_oak.onnx

Each batch's crops are cut ``READ_SPAN`` wide at a random offset (up to a fifth of a checker)
and scale (within 10 %), flipped at random, a fifth of them with a drawn arm laid over
(:func:`arms`: ``--skin`` 0.3 of those arms bare, grained skin, ``--ends`` 0.4 ending in the
crop), ``--grained`` 0.3 of all crops grained as bare skin is (so the grain alone is no arm:
without it, the network trained on grained arms took a glossy field's tips or a lamp's hot
spot for an arm in 3 to 13 clean frames of the random sets, by the seed, against 4 and 4
with it), and recoloured as a whole new board would be: the colours turned round the grey
axis by any angle, their saturation scaled 0.2-1.6 (a fifth made grey), each channel's gain
and the tone curve's gamma changed; then blurred, with noise. The network sees each crop's
channels centred and scaled by their own spread (see :func:`pibg.vision.place_net.prepare`),
so the light's level drops out. The same command gives the same weights up to the
floating-point order of the machine's math library.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pibg.vision.place_net import INPUT, READ_SPAN, SPAN

#: Classes: an empty place, a checker, something over the place (an arm, a hand, a sleeve),
#: and (with ``--stacked``) a checker with another on top of it (a second layer).
EMPTY, CHECKER, ARM, STACKED = 0, 1, 2, 3
ARM_SHARE = 0.2
#: How strongly bare skin is grained (see :func:`arms`): a share of the light, least to most.
GRAIN = (0.03, 0.12)


def model(classes: int = 3) -> nn.Module:
    def block(a: int, b: int) -> list[nn.Module]:
        return [nn.Conv2d(a, b, 3, padding=1, bias=False), nn.BatchNorm2d(b), nn.ReLU()]

    return nn.Sequential(*block(3, 12), *block(12, 12), nn.MaxPool2d(2),
                         *block(12, 20), *block(20, 20), nn.MaxPool2d(2),
                         *block(20, 32), *block(32, 32), nn.MaxPool2d(2),
                         *block(32, 48), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Linear(48, classes))


def _rand(n: int, g: torch.Generator, lo: float, hi: float, *shape: int) -> torch.Tensor:
    return lo + (hi - lo) * torch.rand(n, *shape, generator=g)


def arms(img: torch.Tensor, g: torch.Generator, skin: float = 0.0, ends: float = 0.0
         ) -> torch.Tensor:
    """Lay a drawn arm or sleeve over each crop (N, 3, S, S) in place: a band of any colour,
    any angle and width (one to three checkers), shaded like a cylinder, with a cloth's soft
    folds, soft edges and a shadow on one side. A share ``skin`` of them is bare skin: its
    surface grained pixel by pixel (a speckle of ``GRAIN`` of the light, sharp or softened
    over a pixel or two, as the renders' arms and a small sensor's noise show skin); a share
    ``ends`` ends in the crop, rounded, as a fist or a forearm's end does. Returns which
    crops it covers at the centre."""
    n, _, side, _ = img.shape
    c = (torch.arange(side, dtype=torch.float32) + 0.5 - side / 2)
    yy, xx = torch.meshgrid(c, c, indexing="ij")
    px = side / SPAN  # a checker's width in pixels
    a = _rand(n, g, 0.0, math.pi)[:, None, None]
    half = _rand(n, g, 0.5, 1.5)[:, None, None] * px
    off = _rand(n, g, -1.0, 1.0)[:, None, None] * (half + side / 2)
    d = xx[None] * torch.cos(a) + yy[None] * torch.sin(a) - off
    inside = ((half - d.abs()) / 1.5).clamp(0.0, 1.0)  # soft edge
    if ends > 0.0:
        # the band ends at ``stop`` along its length, rounded: beyond it, a half disc
        along = -xx[None] * torch.sin(a) + yy[None] * torch.cos(a)
        stop = _rand(n, g, -0.5, 0.5)[:, None, None] * side
        cap = ((half - torch.hypot(d, along - stop)) / 1.5).clamp(0.0, 1.0)
        end = (torch.rand(n, generator=g) < ends)[:, None, None]
        inside = torch.where(end & (along > stop), cap, inside)
    shade = 1.0 - _rand(n, g, 0.2, 0.6)[:, None, None] * (d / half).clamp(-1, 1) ** 2
    folds = F.interpolate(torch.rand(n, 1, 4, 4, generator=g), size=(side, side),
                          mode="bicubic", align_corners=False)[:, 0]
    shade = shade * (1.0 + _rand(n, g, 0.0, 0.5)[:, None, None] * (folds - 0.5))
    colour = torch.rand(n, 3, 1, 1, generator=g) ** _rand(n, g, 0.5, 2.0, 1, 1, 1)
    side_sign = torch.where(torch.rand(n, generator=g) < 0.5, -1.0, 1.0)[:, None, None]
    beside = (side_sign * d - half).clamp(min=0.0)
    shadow = 1.0 - _rand(n, g, 0.1, 0.5)[:, None, None] * torch.exp(-beside / (0.3 * px)) * (
        beside > 0)
    if skin > 0.0:
        grain = torch.randn(n, 1, side, side, generator=g)
        soft = torch.rand(n, generator=g) < 0.5
        if soft.any():
            kern = torch.tensor([0.25, 0.5, 0.25])
            grain[soft] = F.conv2d(grain[soft], (kern[:, None] * kern[None, :])[None, None],
                                   padding=1) * 2.0
        bare = (torch.rand(n, generator=g) < skin)[:, None, None]
        amp = _rand(n, g, *GRAIN)[:, None, None] * bare
        shade = shade * (1.0 + amp * grain[:, 0])
    arm = colour * shade[:, None].clamp(0.0, 1.5)
    img.mul_(shadow[:, None]).mul_(1.0 - inside[:, None]).add_(arm * inside[:, None])
    img.clamp_(0.0, 1.0)
    return inside[:, side // 2, side // 2] > 0.5


def augment(x: torch.Tensor, g: torch.Generator, y: torch.Tensor | None = None,
            skin: float = 0.0, ends: float = 0.0, grained: float = 0.0) -> torch.Tensor:
    """uint8 crops (N, SIDE, SIDE, 3) -> normalised network input (N, 3, INPUT, INPUT).
    With labels ``y`` (N,), a fifth of the crops get an arm over them (see :func:`arms`,
    ``skin`` and ``ends``) and those covered at the centre are relabelled :data:`ARM`, in
    place. A share ``grained`` of all crops is grained as bare skin is."""
    n = x.shape[0]
    img = x.permute(0, 3, 1, 2).float() / 255.0
    if y is not None:
        pick = torch.rand(n, generator=g) < ARM_SHARE
        if pick.any():
            sub = img[pick]
            covered = arms(sub, g, skin, ends)
            img[pick] = sub
            yp = y[pick]
            yp[covered] = ARM
            y[pick] = yp
    if grained > 0.0:
        # a share of all crops grained as bare skin is (see arms), whatever they show: the
        # grain alone is no arm
        pick = torch.rand(n, generator=g) < grained
        if pick.any():
            k = int(pick.sum())
            grain = torch.randn(k, 1, img.shape[2], img.shape[3], generator=g)
            amp = _rand(k, g, *GRAIN)[:, None, None, None]
            img[pick] = (img[pick] * (1.0 + amp * grain)).clamp(0.0, 1.0)
    # shift and scale: an affine grid onto the READ_SPAN window
    keep = READ_SPAN / SPAN
    s = keep * (1.0 + 0.1 * (2 * torch.rand(n, generator=g) - 1))
    shift = 0.2 / SPAN * 2 * (2 * torch.rand(n, 2, generator=g) - 1)
    flip = torch.where(torch.rand(n, 2, generator=g) < 0.5, -1.0, 1.0)
    theta = torch.zeros(n, 2, 3)
    theta[:, 0, 0] = s * flip[:, 0]
    theta[:, 1, 1] = s * flip[:, 1]
    theta[:, :, 2] = shift
    grid = F.affine_grid(theta, [n, 3, INPUT, INPUT], align_corners=False)
    img = F.grid_sample(img, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
    # recolour: rotate round the grey axis, scale the saturation, per-channel gain, gamma
    a = 2 * math.pi * torch.rand(n, generator=g)
    sat = 0.2 + 1.4 * torch.rand(n, generator=g)
    sat = torch.where(torch.rand(n, generator=g) < 0.2, torch.zeros(n), sat)
    u = torch.tensor([1.0, 1.0, 1.0]) / math.sqrt(3.0)
    k = torch.tensor([[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]])
    uu = torch.outer(u, u)
    eye = torch.eye(3)
    rot = (torch.cos(a)[:, None, None] * (eye - uu) + torch.sin(a)[:, None, None] * k
           + uu)
    m = uu + sat[:, None, None] * (rot - uu)  # keep the grey part, scale the chroma
    img = torch.einsum("nij,njhw->nihw", m, img)
    gain = 1.0 + 0.25 * (2 * torch.rand(n, 3, 1, 1, generator=g) - 1)
    img = (img * gain).clamp(0.0, 1.0)
    gamma = torch.exp(0.4 * (2 * torch.rand(n, 1, 1, 1, generator=g) - 1))
    img = img ** gamma
    # blur and noise
    blur = torch.rand(n, generator=g) < 0.4
    if blur.any():
        kern = torch.tensor([0.25, 0.5, 0.25])
        k2 = (kern[:, None] * kern[None, :]).expand(3, 1, 3, 3)
        img[blur] = F.conv2d(img[blur], k2, padding=1, groups=3)
    img = img + torch.randn(img.shape, generator=g) * (0.02 * torch.rand(n, 1, 1, 1,
                                                                         generator=g))
    img = (img.clamp(0.0, 1.0) * 255.0).round() / 255.0
    mean = img.mean(dim=(1, 2, 3), keepdim=True)
    std = img.std(dim=(1, 2, 3), keepdim=True, unbiased=False)
    return (img - mean) / (std + 0.02)


def plain(x: torch.Tensor) -> torch.Tensor:
    """The centre window with no augmentation, as pibg reads it (through OpenCV there)."""
    from pibg.vision.place_net import centre, prepare
    return torch.from_numpy(prepare(centre(x.numpy())))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", nargs="+", help=".npz files from extract.py")
    ap.add_argument("--out", required=True)
    ap.add_argument("--leave-out", default="", help="comma-separated boards not to train on")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--stacked", action="store_true",
                    help="a fourth class: a checker with another on top (from the crops' "
                         "'stack' labels, where extract.py wrote them)")
    ap.add_argument("--stacked-weight", type=float, default=4.0,
                    help="the loss's weight of the rare stacked class")
    ap.add_argument("--skin", type=float, default=0.3,
                    help="the share of drawn arms that are bare, grained skin (see arms)")
    ap.add_argument("--ends", type=float, default=0.4,
                    help="the share of drawn arms that end in the crop, rounded (see arms)")
    ap.add_argument("--grained", type=float, default=0.3,
                    help="the share of all crops grained as bare skin is (see augment)")
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(2)
    parts = [np.load(p) for p in args.data]
    x = np.concatenate([p["x"] for p in parts])
    y = np.concatenate([p["y"] for p in parts]).astype(np.int64)
    if args.stacked:
        stack = np.concatenate([p["stack"] if "stack" in p.files else np.zeros(len(p["y"]),
                                                                                np.uint8)
                                for p in parts]).astype(bool)
        y[stack & (y == CHECKER)] = STACKED
    board = np.concatenate([p["board"] for p in parts])
    out = np.isin(board, [b for b in args.leave_out.split(",") if b])
    held = out if out.any() else (np.arange(len(y)) % 10 == 0)
    train = ~out if out.any() else ~held
    xt, yt = torch.from_numpy(x[train]), torch.from_numpy(y[train])
    print(f"training on {len(yt)} crops ({int((yt == CHECKER).sum())} checkers) from "
          f"{sorted(set(board[train]))}; held out {int(held.sum())}", file=sys.stderr)
    classes = 4 if args.stacked else 3
    net = model(classes)
    weight = torch.ones(classes)
    if args.stacked:
        weight[STACKED] = args.stacked_weight
    steps = args.epochs * math.ceil(len(yt) / 128)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    g = torch.Generator().manual_seed(args.seed)
    t0 = time.time()
    for epoch in range(args.epochs):
        net.train()
        order = torch.randperm(len(yt), generator=g)
        total = 0.0
        for i in range(0, len(order), 128):
            idx = order[i:i + 128]
            yb = yt[idx].clone()
            logit = net(augment(xt[idx], g, yb, args.skin, args.ends, args.grained))
            loss = F.cross_entropy(logit, yb, weight=weight, label_smoothing=0.03)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += float(loss.detach()) * len(idx)
        net.eval()
        with torch.no_grad():
            xh = plain(torch.from_numpy(x[held]))
            pred = torch.cat([net(xh[i:i + 512]).argmax(1) for i in range(0, len(xh), 512)])
        yh = torch.from_numpy(y[held])
        wrong = int((pred != yh).sum())
        hit = int(((pred == STACKED) & (yh == STACKED)).sum())
        false = int(((pred == STACKED) & (yh != STACKED)).sum())
        stacked = (f", stacked found {hit} of {int((yh == STACKED).sum())} ({false} false)"
                   if args.stacked else "")
        print(f"epoch {epoch + 1}: loss {total / len(yt):.4f}, held-out places wrong "
              f"{wrong} of {int(held.sum())}{stacked}, {time.time() - t0:.0f} s",
              file=sys.stderr)
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, INPUT, INPUT), args.out, input_names=["crop"],
                      output_names=["scores"], dynamic_axes={"crop": {0: "n"}, "scores": {0: "n"}},
                      opset_version=13, dynamo=False)
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
