"""Train the cube-face network on drawn cubes and write it as ONNX (``pibg/data/cube_net.onnx``).

Needs PyTorch and onnx, which pibg itself does not (it runs the network with OpenCV):

    pip install torch==2.13.0 onnx
    python scripts/cube_net/train.py --out pibg/data/cube_net.onnx     # about 45 min, 2 cores

The recipe that made the shipped network (its defaults; 18 minutes drawing, 27 training on 2
cores): 80,000 patches of a cube with a number to read (seeds 1, 11, 2 and 12) and 12,000
mostly with none (seeds 3 and 13: no cube, a die, a blank face, a cube off the middle), from
``synth.py``, each shrunk to the network's
``cube.NET_INPUT`` pixels and its channels centred and scaled by its own spread
(``cube.net_input``); 10 epochs of AdamW (one-cycle rate up to 0.003, batches of 128, label
smoothing 0.05), each batch turned by a random quarter turn (a cube lies any way round; it
is never mirrored: a mirrored 2 is no 2). Classes 0-5 are ``cube.CUBE_FACES``, class 6 "no
number to read". It prints its accuracy on 3,000 patches drawn with seeds it did not train
on; what it reads on renders is measured by ``benchmarks/leave_one_out.py`` (the cube
column) and ``tests/vision/test_vision_cube_face.py``. The same command gives the same
samples; the weights come out the same up to the floating-point order of the machine's
math library.
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

import cv2
import synth

from pibg.vision.cube import NET_INPUT, net_input


def _draw(job: tuple[int, int, bool]) -> tuple[np.ndarray, np.ndarray]:
    seed, count, blank = job
    rng = np.random.default_rng(seed)
    x = np.empty((count, NET_INPUT, NET_INPUT, 3), np.uint8)
    y = np.empty(count, np.int64)
    for i in range(count):
        img, y[i] = synth.sample(rng, blank=blank)
        x[i] = cv2.resize(img, (NET_INPUT, NET_INPUT), interpolation=cv2.INTER_AREA)
    return x, y


def draw(jobs: list[tuple[int, int, bool]], procs: int) -> tuple[np.ndarray, np.ndarray]:
    """The patches of each (seed, count, blank) job, in order, at the network's size."""
    with multiprocessing.Pool(procs) as pool:
        parts = pool.map(_draw, jobs)
    return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("cube_net.onnx"))
    ap.add_argument("--cubes", type=int, default=40_000, help="cubes per seed (2 seeds)")
    ap.add_argument("--blank", type=int, default=12_000, help="patches mostly with nothing to read")
    ap.add_argument("--epochs", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=2)
    a = ap.parse_args(argv)

    import torch
    import torch.nn.functional as F
    from torch import nn

    torch.set_num_threads(a.jobs)
    t0 = time.time()
    half = a.cubes // 2  # each seed's cubes drawn in two jobs, so that both cores draw
    x, y = draw([(1, half, False), (11, half, False), (2, half, False), (12, half, False),
                 (3, a.blank // 2, True), (13, a.blank - a.blank // 2, True)], a.jobs)
    xv, yv = draw([(99, 1500, False), (98, 1500, True)], a.jobs)
    print(f"drew {len(y)} training patches in {time.time() - t0:.0f} s", flush=True)

    def prep(batch: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(net_input(batch))

    def block(i: int, o: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    torch.manual_seed(0)
    net = nn.Sequential(
        *block(3, 12), nn.MaxPool2d(2),
        *block(12, 24), *block(24, 24), nn.MaxPool2d(2),
        *block(24, 48), *block(48, 48), nn.MaxPool2d(2),
        *block(48, 64),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(64, 7),
    )
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    batches = len(x) // 128
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=a.epochs * batches)
    yt = torch.from_numpy(y)
    vx = prep(xv)
    gen = torch.Generator().manual_seed(0)
    for epoch in range(a.epochs):
        net.train()
        perm = torch.randperm(len(y), generator=gen).numpy()
        total = 0.0
        for i in range(0, batches * 128, 128):
            idx = perm[i:i + 128]
            xb = torch.rot90(prep(x[idx]), int(torch.randint(0, 4, (), generator=gen)), (2, 3))
            loss = F.cross_entropy(net(xb), yt[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item()
        net.eval()
        with torch.no_grad():
            got = net(vx).argmax(1).numpy()
        read = yv != synth.NONE
        print(f"epoch {epoch + 1}: loss {total / batches:.3f}, held-out drawn cubes "
              f"{np.mean(got[read] == yv[read]):.3f}, nothing read as a number "
              f"{np.mean(got[~read] != synth.NONE):.3f}, {time.time() - t0:.0f} s", flush=True)
    net.eval()
    torch.onnx.export(net, torch.zeros(1, 3, NET_INPUT, NET_INPUT), str(a.out), dynamo=False,
                      input_names=["patch"], output_names=["logits"], opset_version=13,
                      dynamic_axes={"patch": {0: "n"}, "logits": {0: "n"}})
    print(f"wrote {a.out} ({a.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
