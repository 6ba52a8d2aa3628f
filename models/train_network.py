"""Trains the beat network (PracticeCore's BeatNetwork) and writes its weights into
Sources/CBeatNetwork/beat_network_weights.c, with a check (bench/beats/network-check.json)
that the Swift inference reproduces the PyTorch model's outputs (BeatNetworkTests).

The network hears what the Swift front end computes at detection time: each piece's
`OnsetFeatures.networkBands`, dumped by `practice beats detect` with PRACTICE_BEAT_FEATURES
(`bench/beats/run detect-dir --features`). Nothing here recomputes a feature: the bands' rise
and standardisation are the network's first layer, written the same in both.

Tempo augmentation (--stretch, 1.25 by default): each training excerpt's time is scaled by
a factor drawn log-uniformly from [1/STRETCH, STRETCH], the bands read at every factor-th
frame (linearly interpolated) and the beats moved with them, so every piece is heard at
other tempi too.

Training data: pieces the repository's generator renders (models/run corpus --train SEED),
none of the development corpus's; the corpus's tuning half is the validation set (the
epoch kept is the one with the lowest validation loss, the mean over every --valid piece:
e.g. the tuning half's clean renders and its delivered copy); its test half is never read.

  models/run train-network
      --train CORPUS:FEATURES [CORPUS:FEATURES ...] --valid CORPUS:FEATURES [...]
      [--minutes 20] [--seed 1] [--stretch 1.25] [--init FILE.pt|FILE.c --lr 1e-3]
      [--out Sources/CBeatNetwork/beat_network_weights.c]

The model (Davies & Böck 2019, Böck & Davies 2020, made small): the 80 bands and their
half-wave rectified rise, standardised; a convolution of width 3 to 32 channels, ELU; a 1×1
to 16, ELU; 10 residual blocks (a convolution of width 5 dilated 1, 2, ... 512, ELU,
dropout, a 1×1, added back); a 1×1 to two sigmoid outputs, beat and downbeat. Targets: 1 on
the frame of each beat (downbeat), 0.5 on the frames either side.
"""

import argparse
import json
import math
import os
import random
import signal
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from models.lib import paths

BANDS, INPUT_WIDTH, WIDTH, BLOCKS, KERNEL, INPUT_KERNEL = 80, 32, 16, 10, 5, 3


def conv(layer, x, dilation):
    """layer (a centred, zero-padded Conv1d) applied as one matrix product over the shifted
    copies of x: PyTorch's own dilated convolution on the CPU is 10-20 times slower."""
    out_ch, in_ch, k = layer.weight.shape
    n = x.shape[2]
    if k == 1:
        cols = x
    else:
        half = (k // 2) * dilation
        xp = F.pad(x, (half, half))
        cols = torch.cat([xp[:, :, j * dilation:j * dilation + n] for j in range(k)], dim=1)
    w = layer.weight.permute(0, 2, 1).reshape(out_ch, k * in_ch)
    return torch.matmul(w, cols) + layer.bias[None, :, None]


class Net(nn.Module):
    def __init__(self, mean, scale, dropout=0.1):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean, dtype=torch.float32))
        self.register_buffer("scale", torch.tensor(scale, dtype=torch.float32))
        self.inp = nn.Conv1d(2 * BANDS, INPUT_WIDTH, INPUT_KERNEL, padding=INPUT_KERNEL // 2)
        self.mid = nn.Conv1d(INPUT_WIDTH, WIDTH, 1)
        self.dil = nn.ModuleList(
            nn.Conv1d(WIDTH, WIDTH, KERNEL, dilation=2 ** b, padding=(KERNEL // 2) * 2 ** b)
            for b in range(BLOCKS))
        self.pw = nn.ModuleList(nn.Conv1d(WIDTH, WIDTH, 1) for _ in range(BLOCKS))
        self.out = nn.Conv1d(WIDTH, 2, 1)
        self.drop = nn.Dropout(dropout)

    def forward(self, bands):  # bands: (batch, BANDS, frames) -> logits (batch, 2, frames)
        rise = F.relu(bands[:, :, 1:] - bands[:, :, :-1])
        rise = torch.cat([torch.zeros_like(bands[:, :, :1]), rise], dim=2)
        x = torch.cat([bands, rise], dim=1)
        x = (x - self.mean[None, :, None]) * self.scale[None, :, None]
        x = F.elu(conv(self.inp, x, 1))
        x = F.elu(conv(self.mid, x, 1))
        for b, (d, p) in enumerate(zip(self.dil, self.pw)):
            x = x + conv(p, self.drop(F.elu(conv(d, x, 2 ** b))), 1)
        return conv(self.out, x, 1)

    def flat(self):
        """The weights in BeatNetwork's order (Swift: BeatNetwork.init(weights:))."""
        parts = [np.array([1, BANDS, INPUT_WIDTH, WIDTH, BLOCKS, KERNEL, INPUT_KERNEL, 2],
                          dtype=np.float32), self.mean.numpy(), self.scale.numpy()]
        for layer in [self.inp, self.mid] + [m for pair in zip(self.dil, self.pw) for m in pair] \
                + [self.out]:
            parts += [layer.weight.detach().numpy().ravel(), layer.bias.detach().numpy().ravel()]
        return np.concatenate(parts).astype(np.float32)

    def load_flat(self, flat):
        """The inverse of flat(): weights in BeatNetwork's order (e.g. read back from the
        shipped C file) into this model, its standardisation too."""
        head = np.array([1, BANDS, INPUT_WIDTH, WIDTH, BLOCKS, KERNEL, INPUT_KERNEL, 2],
                        dtype=np.float32)
        if len(flat) != len(self.flat()) or not np.array_equal(flat[:len(head)], head):
            sys.exit(f"train-network: {len(flat)} weights of another shape than this model's")
        at = len(head)
        for buf in (self.mean, self.scale):
            buf.copy_(torch.from_numpy(flat[at:at + buf.numel()]))
            at += buf.numel()
        for layer in [self.inp, self.mid] + [m for pair in zip(self.dil, self.pw) for m in pair] \
                + [self.out]:
            for param in (layer.weight, layer.bias):
                with torch.no_grad():
                    param.copy_(torch.from_numpy(flat[at:at + param.numel()]).view_as(param))
                at += param.numel()


def read_c(path):
    """The weights a write_c file holds, as float32 (written with 9 significant digits,
    so they read back exactly)."""
    text = open(path).read()
    body = text[text.index("= {") + 3:text.index("};")]
    return np.array([float(v.rstrip("f")) for v in body.replace(",", " ").split()],
                    dtype=np.float32)


def targets(n, beats):
    """Beat and downbeat targets of n frames: 1 on the frame nearest each (fractional) beat
    frame, 0.5 on the frames either side."""
    beat = np.zeros(n, np.float32)
    down = np.zeros(n, np.float32)
    for p, is_down in beats:
        i = int(round(p))
        for target, on in ((beat, True), (down, is_down)):
            if not on:
                continue
            for j, v in ((i - 1, 0.5), (i + 1, 0.5), (i, 1.0)):
                if 0 <= j < n:
                    target[j] = max(target[j], v)
    return beat, down


def load(spec):
    """[(name, bands (BANDS, frames) float32, beat target, downbeat target, beats)] of one
    CORPUS:FEATURES pair: every piece with both its features and its .beats. beats: the
    reference as (fractional frame, is a downbeat) pairs, for the tempo augmentation."""
    corpus, feats = spec.split(":")
    out = []
    for f in sorted(os.listdir(feats)):
        if not f.endswith(".f32"):
            continue
        name = f[:-4]
        ref = os.path.join(corpus, name + ".beats")
        if not os.path.exists(ref):
            continue
        with open(os.path.join(feats, f + ".json")) as g:
            info = json.load(g)
        bands = np.fromfile(os.path.join(feats, f), dtype="<f4").reshape(info["bands"], -1)
        beats = []
        for line in open(ref):
            cols = line.split()
            if not cols:
                continue
            t = float(cols[0])
            # frame i is centred on source frame (i + 1) * hop - window / 2
            p = (t * info["sample_rate"] + info["window"] / 2) / info["hop"] - 1
            beats.append((p, len(cols) > 1 and int(float(cols[1])) == 1))
        beat, down = targets(bands.shape[1], beats)
        out.append((name, bands, beat, down, beats))
    return out


def crop(piece, frames, stretch):
    """A training excerpt of at most `frames` frames, its time scaled by a factor drawn
    log-uniformly from [1 / stretch, stretch] (tempo augmentation): the bands are read at
    every factor-th source frame, linearly interpolated, and the beats move with them, so
    the network hears every piece at other tempi. stretch 1: a plain crop."""
    _, b, beat, down, beats = piece
    n = b.shape[1]
    if stretch <= 1:
        s = random.randint(0, max(0, n - frames))
        return b[:, s:s + frames], beat[s:s + frames], down[s:s + frames]
    factor = math.exp(random.uniform(-math.log(stretch), math.log(stretch)))
    span = min(n - 1, int(math.ceil((frames - 1) * factor)))
    s = random.randint(0, max(0, n - 1 - span))
    m = min(frames, int((n - 1 - s) / factor) + 1)
    src = s + np.arange(m) * factor
    i0 = np.minimum(np.floor(src).astype(np.int64), n - 1)
    i1 = np.minimum(i0 + 1, n - 1)
    w = (src - i0).astype(np.float32)[None, :]
    bands = b[:, i0] * (1 - w) + b[:, i1] * w
    moved = [((p - s) / factor, d) for p, d in beats if -2 <= (p - s) / factor <= m + 1]
    tb, td = targets(m, moved)
    return bands.astype(np.float32), tb, td


def loss_of(model, bands, beat, down):
    logits = model(bands)
    target = torch.stack([beat, down], dim=1)
    return F.binary_cross_entropy_with_logits(logits, target)


def validate(model, valid_sets):
    """The validation loss: the mean over every piece of every --valid set, and each set's
    mean apart (", "-separated in brackets) when there are several."""
    model.eval()
    with torch.no_grad():
        each = [[loss_of(model, torch.from_numpy(b[None]), torch.from_numpy(bt[None]),
                         torch.from_numpy(dt[None])).item() for _, b, bt, dt, _ in v]
                for v in valid_sets]
    vl = sum(map(sum, each)) / max(1, sum(map(len, each)))
    apart = (" (" + ", ".join(f"{sum(e) / max(1, len(e)):.4f}" for e in each) + ")"
             if len(each) > 1 else "")
    return vl, apart


def write_c(flat, path, note):
    lines = [f"/* Generated by models/train_network.py ({note}); do not edit. */",
             '#include "beat_network.h"', "",
             f"static const float weights[{len(flat)}] = {{"]
    vals = [f"{v:.9e}f" if np.isfinite(v) else "0.0f" for v in flat.tolist()]
    for k in range(0, len(vals), 8):
        lines.append("  " + ", ".join(vals[k:k + 8]) + ",")
    lines += ["};", "",
              "const float *practice_beat_network_weights(void) { return weights; }",
              f"int practice_beat_network_count(void) {{ return {len(flat)}; }}", ""]
    with open(path + ".partial", "w") as f:
        f.write("\n".join(lines))
    os.replace(path + ".partial", path)


def check_input(frames=400):
    c = np.arange(BANDS)[:, None]
    t = np.arange(frames)[None, :]
    return (0.5 + 0.5 * np.sin(0.37 * c + 0.11 * t)).astype(np.float32)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", nargs="+", required=True)
    ap.add_argument("--valid", nargs="+", required=True,
                    help="CORPUS:FEATURES pairs; the loss is the mean over all their pieces")
    ap.add_argument("--minutes", type=float, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--init", help="start from these weights at --lr: a --save file (.pt) or "
                    "a weights file this script wrote (.c, e.g. the shipped one)")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--crop", type=int, default=3000, help="frames per training excerpt")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--stretch", type=float, default=1.25,
                    help="tempo augmentation: each excerpt's time scaled by a factor in "
                         "[1/STRETCH, STRETCH] (1: none)")
    ap.add_argument("--out", default=paths.NETWORK_WEIGHTS)
    ap.add_argument("--check", default=paths.NETWORK_CHECK)
    ap.add_argument("--save", default=os.path.join(paths.OUT, "beat-network.pt"))
    args = ap.parse_args()
    # Started in the background (`&` in a script) a program inherits SIGINT ignored, and
    # Python leaves it so: Ctrl-C or `kill -INT` would do nothing. On it the training stops
    # and keeps the best weights so far (the KeyboardInterrupt below).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    torch.set_num_threads(1)  # more threads crawl on a shared, busy machine
    train = [p for spec in args.train for p in load(spec)]
    valid_sets = [load(spec) for spec in args.valid]
    valid = [p for v in valid_sets for p in v]
    print(f"train-network: {len(train)} training pieces, {len(valid)} validation pieces",
          file=sys.stderr, flush=True)
    # the standardisation: every training frame's bands and rises
    allb = np.concatenate([p[1] for p in train], axis=1)
    rise = np.concatenate([np.maximum(0, np.diff(p[1], axis=1, prepend=p[1][:, :1])) for p in train],
                          axis=1)
    x = np.concatenate([allb, rise], axis=0)
    mean = x.mean(axis=1)
    scale = 1 / np.maximum(x.std(axis=1), 1e-3)
    del allb, rise, x
    model = Net(mean, scale)
    if args.init and args.init.endswith(".c"):
        model.load_flat(read_c(args.init))  # its standardisation too
    elif args.init:
        model.load_state_dict(torch.load(args.init))  # its standardisation too
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=3)
    t0 = time.monotonic()
    best = (math.inf, None, 0)
    if args.init:  # the loss to beat: the --init weights' own (epoch 0, kept if none beats it)
        vl, apart = validate(model, valid_sets)
        best = (vl, {k: v.clone() for k, v in model.state_dict().items()}, 0)
        print(f"train-network: epoch 0 (--init): valid {vl:.4f}{apart}", file=sys.stderr,
              flush=True)
    epoch = 0
    # Until the minutes run out, the learning rate has been halved to a thousandth of its
    # start (nothing more is learned), or an interrupt (Ctrl-C: the best epoch is kept).
    while (time.monotonic() - t0 < args.minutes * 60
           and opt.param_groups[0]["lr"] >= args.lr * 1e-3):
        epoch += 1
        try:
            model.train()
            order = list(range(len(train)))
            random.shuffle(order)
            total = 0.0
            for k in range(0, len(order), args.batch):
                crops = [crop(train[i], args.crop, args.stretch) for i in order[k:k + args.batch]]
                m = min(c[0].shape[1] for c in crops)
                bb = torch.from_numpy(np.stack([c[0][:, :m] for c in crops]))
                tb = torch.from_numpy(np.stack([c[1][:m] for c in crops]))
                td = torch.from_numpy(np.stack([c[2][:m] for c in crops]))
                opt.zero_grad()
                loss = loss_of(model, bb, tb, td)
                loss.backward()
                opt.step()
                total += loss.item() * len(crops)
            vl, apart = validate(model, valid_sets)
            sched.step(vl)
            if vl < best[0]:
                best = (vl, {k: v.clone() for k, v in model.state_dict().items()}, epoch)
            print(f"train-network: epoch {epoch}: train {total / len(train):.4f}, valid {vl:.4f}"
                  f"{apart}{' *' if best[2] == epoch else ''} ({time.monotonic() - t0:.0f} s, lr "
                  f"{opt.param_groups[0]['lr']:.1e})", file=sys.stderr, flush=True)
        except KeyboardInterrupt:
            print("train-network: interrupted; keeping the best epoch", file=sys.stderr)
            break
    if best[1] is None:
        sys.exit("train-network: no epoch finished")
    model.load_state_dict(best[1])
    model.eval()
    torch.save(best[1], args.save)
    flat = model.flat()
    note = (f"{len(train)} pieces, epoch {best[2]} of {epoch}, validation loss {best[0]:.4f}, "
            f"seed {args.seed}")
    write_c(flat, args.out, note)
    xin = check_input()
    with torch.no_grad():
        act = torch.sigmoid(model(torch.from_numpy(xin[None])))[0].numpy()
    frames = [0, 1, 57, 199, 398, 399]
    with open(args.check, "w") as f:
        json.dump({"input": "0.5 + 0.5 * sin(0.37 * band + 0.11 * frame), 400 frames",
                   "frames": frames, "beat": [float(act[0, i]) for i in frames],
                   "downbeat": [float(act[1, i]) for i in frames]}, f, indent=1)
        f.write("\n")
    print(f"train-network: {len(flat)} weights ({4 * len(flat) / 1024:.0f} KiB) -> {args.out}; "
          f"{note}", file=sys.stderr)


if __name__ == "__main__":
    main()
