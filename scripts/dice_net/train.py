"""Train the die-face network on drawn dice and write it as ONNX (``pibg/data/dice_net.onnx``).

Needs PyTorch and onnx, which pibg itself does not (it runs the network with OpenCV):

    pip install torch==2.13.0 onnx
    python scripts/dice_net/train.py --out pibg/data/dice_net.onnx      # about 64 min, 2 cores

The recipe that made the shipped network: 60,000 crops with no die face (seeds 5 and 6),
30,000 leaning dice (seeds 7 and 8, also "no die face": no roll) and 200,000 flat dice
(seeds 3 and 4), in that order, from ``synth.py``, 40 x 40 pixels; each crop's
lightness centred and scaled by its own spread; 10 epochs of AdamW (one-cycle rate up to
0.003, batches of 128, label smoothing 0.05), each batch turned by a random quarter turn and
mirrored half the time (a die's six faces are unchanged by both). Classes 0-5 are the values
one to six, class 6 "no flat die face here". The same command gives the same samples; the weights
come out the same up to the floating-point order of the machine's math library. It prints
its accuracy on 6,000 dice drawn with seeds it did not train on; what it reads on photos and
renders is measured by ``benchmarks/dice_accuracy.py``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import synth

from pibg.vision.dice_net import INPUT, prepare

NO_DIE = 6  # class index of "no die face"


def _draw(job: tuple[int, int, str]) -> tuple[np.ndarray, np.ndarray]:
    seed, count, kind = job
    rng = np.random.default_rng(seed)
    x = np.empty((count, INPUT, INPUT, 3), np.uint8)
    y = np.empty(count, np.int64)
    for i in range(count):
        if kind == "negative":
            x[i], y[i] = synth.negative(rng, INPUT), NO_DIE
        else:
            img, value = synth.sample(rng, INPUT, lean=kind == "leaning")
            x[i], y[i] = img, value - 1 if value else NO_DIE
    return x, y


def draw(jobs: list[tuple[int, int, str]], procs: int) -> tuple[np.ndarray, np.ndarray]:
    with multiprocessing.Pool(procs) as pool:
        parts = pool.map(_draw, jobs)
    x = np.concatenate([p[0] for p in parts])
    return np.stack([prepare(c) for c in x]), np.concatenate([p[1] for p in parts])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("dice_net.onnx"))
    ap.add_argument("--dice", type=int, default=100_000, help="dice per seed (2 seeds)")
    ap.add_argument("--negatives", type=int, default=30_000, help="no-die crops per seed")
    ap.add_argument("--leaning", type=int, default=15_000, help="leaning dice per seed")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--shuffle-channels", type=float, nargs="?", const=1.0, default=0.0,
                    metavar="SHARE",
                    help="reorder the colour channels of this share of the batches at random "
                         "(1 if given alone; a die's value is the same in any colours; not in "
                         "the shipped network's recipe)")
    a = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.set_num_threads(a.jobs)
    t0 = time.time()
    x, y = draw([(5, a.negatives, "negative"), (6, a.negatives, "negative"),
                 (7, a.leaning, "leaning"), (8, a.leaning, "leaning"),
                 (3, a.dice, "flat"), (4, a.dice, "flat")], a.jobs)
    xv, yv = draw([(99, 3000, "flat"), (98, 3000, "flat")], a.jobs)
    print(f"drew {len(y)} training crops in {time.time() - t0:.0f} s", flush=True)

    def block(i: int, o: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    torch.manual_seed(0)
    net = nn.Sequential(
        *block(3, 16), *block(16, 16), nn.MaxPool2d(2),
        *block(16, 32), *block(32, 32), nn.MaxPool2d(2),
        *block(32, 64), *block(64, 64), nn.MaxPool2d(2),
        *block(64, 96), *block(96, 112),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(112, 7),
    )
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    batches = len(x) // 128
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=a.epochs * batches)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    for epoch in range(a.epochs):
        net.train()
        perm = torch.randperm(len(xt))
        total = 0.0
        for i in range(0, batches * 128, 128):
            idx = perm[i:i + 128]
            xb = torch.rot90(xt[idx], int(torch.randint(0, 4, ())), (2, 3))
            if torch.rand(()) < 0.5:
                xb = xb.flip(3)
            if a.shuffle_channels and torch.rand(()) < a.shuffle_channels:
                xb = xb[:, torch.randperm(3)]
            loss = F.cross_entropy(net(xb), yt[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        net.eval()
        with torch.no_grad():
            got = net(torch.from_numpy(xv))[:, :6].argmax(1).numpy()
        print(f"epoch {epoch + 1}: loss {total / batches:.3f}, held-out drawn dice "
              f"{np.mean(got == yv):.3f}, {time.time() - t0:.0f} s", flush=True)
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, INPUT, INPUT), str(a.out), dynamo=False,
                      input_names=["crop"], output_names=["logits"], opset_version=13,
                      dynamic_axes={"crop": {0: "n"}, "logits": {0: "n"}})
    print(f"wrote {a.out} ({a.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
