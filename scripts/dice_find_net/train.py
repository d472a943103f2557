"""Train the dice-finding network on drawn boards and write it as ONNX
(``pibg/data/dice_spot_net.onnx``).

Needs PyTorch and onnx, which pibg itself does not (it runs the network with OpenCV):

    pip install torch==2.13.0 onnx
    python scripts/dice_find_net/train.py --out pibg/data/dice_spot_net.onnx --boards 10000 \
        --batch 128 --steps 2049

The network reads a whole top-down view (any size; its sides are cut to a multiple of 16) and
gives, every 4 view pixels, the likelihood that a die's centre lies there: channel 0 a die
lying flat, channel 1 a die leaning (no roll). Eight layers, 12,082 weights: two strided
3 x 3 convolutions, then five depthwise-separable ones dilated 1 to 16 (each view pixel out
sees 255 in, six checkers across), then a 1 x 1 one. Trained on ``--boards`` boards drawn by
``boards.py`` (seeds ``--seed`` up, one a board), 256-pixel pieces cut at random, mirrored
at random, their colour channels shuffled half the time, with the centre-net loss (a focal
loss on Gaussian peaks, as CenterNet's), AdamW with a one-cycle rate for ``--steps`` steps
(or as many as fit in ``--minutes``). It prints its recall and false finds on ``--held``
boards drawn with seeds it did not train on. No render or photo is trained on: what it finds
on them is measured by ``benchmarks/dice_spot_found.py`` and ``benchmarks/dice_misses.py``.

The shipped network is the command above, run on a machine with one H200 GPU and 16 cores
(the ``--steps`` given are what 3.5 minutes allowed there): drawing the boards took 284 s,
training 41 s. The boards come out the same from the same seeds; the weights, up to the
floating-point order of the machine's math library. On 2 cores and no GPU, drawing takes
about 13 minutes and training about an hour.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import boards

from pibg.vision.dice_spot import STRIDE, peaks  # boards put the checkout on the path

PIECE = 256


def _draw(job: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Boards ``seed`` .. ``seed + count - 1`` and their targets (2, H/4, W/4)."""
    first, count = job
    w, h = boards.VIEW
    gh, gw = h // STRIDE, w // STRIDE
    imgs = np.empty((count, h, w, 3), np.uint8)
    heat = np.zeros((count, 2, gh, gw), np.float16)
    yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
    for i in range(count):
        img, dice = boards.board(np.random.default_rng(first + i))
        imgs[i] = img
        for x, y, e, lean in dice:
            cx, cy = (x - STRIDE / 2 + 0.5) / STRIDE, (y - STRIDE / 2 + 0.5) / STRIDE
            s = max(0.7, e / STRIDE / 3)
            g = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * s * s))
            ix, iy = round(cx), round(cy)
            if 0 <= ix < gw and 0 <= iy < gh:
                g[iy, ix] = 1.0
            heat[i, int(lean)] = np.maximum(heat[i, int(lean)], g.astype(np.float16))
    return imgs, heat


def draw(first: int, count: int, procs: int) -> tuple[np.ndarray, np.ndarray]:
    per = math.ceil(count / (procs * 4))
    jobs = [(first + s, min(per, count - s)) for s in range(0, count, per)]
    with multiprocessing.Pool(procs) as pool:
        parts = pool.map(_draw, jobs)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("dice_spot_net.onnx"))
    ap.add_argument("--boards", type=int, default=12_000)
    ap.add_argument("--held", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1_000_000)
    ap.add_argument("--minutes", type=float, default=4.0,
                    help="train for as many steps as fit in this time (without --steps)")
    ap.add_argument("--steps", type=int, default=0, help="train for this many steps")
    ap.add_argument("--weights", type=Path, default=None,
                    help="also save the weights here (PyTorch), to train on from them")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--jobs", type=int, default=multiprocessing.cpu_count())
    a = ap.parse_args(argv)

    import torch
    from torch import nn

    t0 = time.time()
    x, y = draw(a.seed, a.boards, a.jobs)
    xv, yv = draw(a.seed + a.boards + 1000, a.held, a.jobs)
    flat, lean = int((y[:, 0] == 1).sum()), int((y[:, 1] == 1).sum())
    print(f"drew {len(x)} boards ({flat} flat dice, {lean} leaning) and {len(xv)} held out "
          f"in {time.time() - t0:.0f} s", flush=True)
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    def sep(c: int, o: int, dil: int) -> list[nn.Module]:
        return [nn.Conv2d(c, c, 3, padding=dil, dilation=dil, groups=c, bias=False),
                nn.Conv2d(c, o, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    torch.manual_seed(0)
    net = nn.Sequential(
        nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
        *sep(32, 32, 1), *sep(32, 32, 2), *sep(32, 32, 4), *sep(32, 32, 8), *sep(32, 32, 16),
        nn.Conv2d(32, 2, 1),
    ).to(dev)
    with torch.no_grad():
        net[-1].bias.fill_(-4.0)  # few places hold a die
    print(f"{sum(p.numel() for p in net.parameters())} weights on {dev}", flush=True)
    xt = torch.from_numpy(x).to(dev)  # (N, H, W, 3) uint8
    yt = torch.from_numpy(y).to(dev)

    def norm(img: torch.Tensor) -> torch.Tensor:
        """(B, H, W, 3) uint8 -> (B, 3, H, W), each image's lightness centred and scaled."""
        f = img.permute(0, 3, 1, 2).float() / 255.0
        m = f.mean(dim=(1, 2, 3), keepdim=True)
        s = f.std(dim=(1, 2, 3), keepdim=True)
        return (f - m) / (s + 0.02)

    def batch() -> tuple[torch.Tensor, torch.Tensor]:
        n, h, w = xt.shape[:3]
        idx = torch.randint(0, n, (a.batch,))
        gy = torch.randint(0, (h - PIECE) // STRIDE + 1, (a.batch,)) * STRIDE
        gx = torch.randint(0, (w - PIECE) // STRIDE + 1, (a.batch,)) * STRIDE
        xs = torch.stack([xt[i, r:r + PIECE, c:c + PIECE] for i, r, c in
                          zip(idx.tolist(), gy.tolist(), gx.tolist(), strict=True)])
        k = PIECE // STRIDE
        ys = torch.stack([yt[i, :, r // STRIDE:r // STRIDE + k, c // STRIDE:c // STRIDE + k]
                          for i, r, c in zip(idx.tolist(), gy.tolist(), gx.tolist(), strict=True)])
        xb, yb = norm(xs), ys.float()
        if torch.rand(()) < 0.5:
            xb, yb = xb.flip(3), yb.flip(3)
        if torch.rand(()) < 0.5:
            xb, yb = xb.flip(2), yb.flip(2)
        if torch.rand(()) < 0.5:  # the colour channels in another order: no colour is a cue
            xb = xb[:, torch.randperm(3)]
        return xb, yb

    def focal(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
        pos = target >= 0.999
        pos_loss = -(torch.log(p) * (1 - p) ** 2)[pos].sum()
        neg_loss = -(torch.log(1 - p) * p ** 2 * (1 - target) ** 4)[~pos].sum()
        return (pos_loss + neg_loss) / pos.sum().clamp(min=1)

    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=1e-4)
    t1 = time.time()
    for _ in range(30):  # how many steps fit in the time given
        xb, yb = batch()
        loss = focal(net(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    if dev.type == "cuda":
        torch.cuda.synchronize()
    per = (time.time() - t1) / 30
    steps = a.steps or max(50, int(a.minutes * 60 / per))
    opt = torch.optim.AdamW(net.parameters(), 3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 4e-3, total_steps=steps)
    print(f"{per * 1000:.1f} ms a step: {steps} steps", flush=True)
    net.train()
    for step in range(steps):
        xb, yb = batch()
        loss = focal(net(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        if (step + 1) % max(1, steps // 10) == 0:
            print(f"step {step + 1}: loss {loss.item():.3f}, {time.time() - t0:.0f} s",
                  flush=True)
    net.eval()
    held(net, norm, xv, yv, dev, torch)
    cut = net.cpu()
    if a.weights is not None:
        torch.save(cut.state_dict(), a.weights)
    h16, w16 = (boards.VIEW[1] // 16) * 16, (boards.VIEW[0] // 16) * 16
    torch.onnx.export(cut, torch.zeros(1, 3, h16, w16), str(a.out), dynamo=False,
                      input_names=["view"], output_names=["heat"], opset_version=13,
                      dynamic_axes={"view": {2: "h", 3: "w"}, "heat": {2: "h4", 3: "w4"}})
    print(f"wrote {a.out} ({a.out.stat().st_size} bytes) in {time.time() - t0:.0f} s")
    return 0


def held(net, norm, xv, yv, dev, torch) -> None:  # type: ignore[no-untyped-def]
    """Recall of the held-out boards' flat dice (a find within 2 view pixels per... a third
    of an edge) and false finds a board, at a few likelihoods."""
    with torch.no_grad():
        out = torch.cat([torch.sigmoid(net(norm(torch.from_numpy(xv[i:i + 16]).to(dev))))
                         for i in range(0, len(xv), 16)]).float().cpu().numpy()
    for at in (0.2, 0.3, 0.5, 0.7):
        hit = miss = false = lean_hit = lean_n = 0
        for o, t in zip(out, yv, strict=True):
            truth = peaks(t[0].astype(np.float32), 0.999)
            found = peaks(o[0], at)
            used = set()
            for tx, ty, _ in truth:
                near = [k for k, (fx, fy, _) in enumerate(found)
                        if math.hypot(fx - tx, fy - ty) <= 6]
                if near:
                    hit += 1
                    used.update(near)
                else:
                    miss += 1
            false += len(found) - len(used)
            lt = peaks(t[1].astype(np.float32), 0.999)
            lean_n += len(lt)
            lf = peaks(o[1], at)
            lean_hit += sum(any(math.hypot(fx - tx, fy - ty) <= 6 for fx, fy, _ in lf)
                            for tx, ty, _ in lt)
        print(f"held out, at {at}: flat dice found {hit} of {hit + miss}, "
              f"{false / len(xv):.2f} false finds a board; leaning found {lean_hit} of "
              f"{lean_n}", flush=True)


if __name__ == "__main__":
    raise SystemExit(main())
