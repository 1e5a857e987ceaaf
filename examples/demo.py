"""tensorplay trains two real models on this CPU, from PyTorch-style code.

    pip install -e ".[demo]" && python examples/demo.py [--quick] [--out PATH] [--seed N]

1. A small CNN (Conv2d, BatchNorm2d, MaxPool2d, Dropout, Linear) learns the
   8x8 handwritten digits shipped with tensorplay (``tensorplay.datasets``:
   the UCI digits that scikit-learn bundles) and is scored on held-out images.
2. A character-level transformer (Embedding, TransformerEncoder with a causal
   mask) learns the Zen of Python, the one text every CPython carries with it
   (the ``this`` module, in every install and every venv), then writes some.

It shows a progress bar with the running loss while it trains and saves one
PNG with both loss curves, a grid of test digits with their predicted labels
(mistakes in red) and the transformer's sample.  ``--quick`` trains for a few
seconds only (the test suite runs it so); the full run takes under a minute of
CPU time.

Everything but ``load_digits`` is PyTorch code: with ``import torch`` in place
of ``import tensorplay as torch`` (and the digits turned into torch tensors)
the same script trains the same models on PyTorch.
"""
import argparse
import codecs
import contextlib
import io
import os
import sys
import textwrap
import time

# These models' matrices are small: one BLAS thread multiplies them about as fast as
# several, and idle BLAS threads spin, which costs much time on a busy machine (this
# demo ran 5x longer with them on a loaded 2-core box).  PyTorch code would call
# torch.set_num_threads(1); the BLAS reads its setting when NumPy loads.  Set the
# variable yourself to override it.
for _var in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np                         # (after the thread settings)

import tensorplay as torch
from tensorplay import nn
from tensorplay.datasets import load_digits
from tensorplay.utils.data import DataLoader, TensorDataset

try:
    from tqdm import tqdm
    import matplotlib
    matplotlib.use("Agg")                  # files only: no window, no display needed
    import matplotlib.pyplot as plt
    from matplotlib import patches, ticker
except ImportError as e:                   # the demo extra is not installed
    sys.exit(f"examples/demo.py needs tqdm and matplotlib ({e}); install them with\n"
             f'    pip install -e ".[demo]"')

# settings of a full run and of --quick
FULL = dict(cnn_epochs=8, lm_steps=500, sample_chars=400)
QUICK = dict(cnn_epochs=1, lm_steps=25, sample_chars=80)
PROMPT, TEMPERATURE = "Beautiful is", 0.7      # how the transformer starts, and how boldly it goes on


def smooth(values, parts=25):
    """A centred moving average over about 1/parts of the curve (for the plots)."""
    w = max(1, len(values) // parts) | 1                   # odd: centred
    padded = np.pad(np.asarray(values, dtype=float), w // 2, mode="edge")
    return np.convolve(padded, np.ones(w) / w, mode="valid")


# ------------------------------------------------------------------ 1. CNN on digits

def digits_cnn():
    return nn.Sequential(
        nn.Conv2d(1, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.MaxPool2d(2),                                                  # 32 x 4 x 4
        nn.Conv2d(32, 64, kernel_size=3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.MaxPool2d(2),                                                  # 64 x 2 x 2
        nn.Flatten(), nn.Dropout(0.25), nn.Linear(64 * 2 * 2, 10),
    )


def train_cnn(epochs, seed):
    images, labels = load_digits()                         # (1797, 8, 8) pixel counts 0..16
    x = (images / 16.0).unsqueeze(1)                       # (N, 1, 8, 8) in [0, 1]
    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(x), generator=g)
    n_test = len(x) // 5                                   # 20% held out, never trained on
    test_idx, train_idx = order[:n_test], order[n_test:]
    mean, std = x[train_idx].mean(), x[train_idx].std()   # statistics of the training part only
    x = (x - mean) / std
    x_test, y_test = x[test_idx], labels[test_idx]
    loader = DataLoader(TensorDataset(x[train_idx], labels[train_idx]), batch_size=32,
                        shuffle=True, generator=g)

    model = digits_cnn()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, epochs=epochs,
                                                    steps_per_epoch=len(loader))
    loss_fn = nn.CrossEntropyLoss()
    print(f"[1/2] CNN on the 8x8 digits: {len(train_idx)} training and {n_test} test images, "
          f"{sum(p.numel() for p in model.parameters()):,} parameters, {epochs} epoch"
          f"{'s' if epochs > 1 else ''}")

    def accuracy():
        model.eval()
        with torch.no_grad():
            pred = model(x_test).argmax(dim=1)
        model.train()
        return pred, (pred == y_test).float().mean().item()

    losses, accs = [], []
    bar = tqdm(total=epochs * len(loader), desc="CNN        ", unit="step", leave=True)
    running = None
    for epoch in range(epochs):
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            running = losses[-1] if running is None else 0.9 * running + 0.1 * losses[-1]
            bar.set_postfix(epoch=f"{epoch + 1}/{epochs}", loss=f"{running:.3f}", refresh=False)
            bar.update()
        accs.append(accuracy()[1])
        bar.set_postfix(epoch=f"{epoch + 1}/{epochs}", loss=f"{running:.3f}",
                        test_acc=f"{accs[-1]:.1%}")
    bar.close()
    pred, acc = accuracy()
    n_right = int((pred == y_test).sum().item())
    print(f"CNN test accuracy: {acc:.1%} ({n_right}/{n_test} held-out digits right)")
    return dict(losses=losses, steps_per_epoch=len(loader), accs=accs, acc=acc,
                images=images[test_idx].numpy(), labels=y_test.numpy(), pred=pred.numpy())


# ------------------------------------------------------------------ 2. character transformer

def zen_of_python():
    """The Zen of Python: ``this.s`` holds it rot13-encoded; importing ``this``
    prints it, which we swallow."""
    with contextlib.redirect_stdout(io.StringIO()):
        import this
    return codecs.decode(this.s, "rot13")


class CharTransformer(nn.Module):
    """A GPT-style decoder: token and position embeddings, pre-norm
    transformer blocks that only look back (a causal mask), a linear head."""

    def __init__(self, vocab_size, block_size, d_model=64, nhead=4, num_layers=2):
        super().__init__()
        self.block_size = block_size
        self.tok = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(block_size, d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=4 * d_model,
                                           dropout=0.0, activation="relu", batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, num_layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(block_size),
                             persistent=False)

    def forward(self, idx):                                # idx: (batch, time) char ids
        t = idx.shape[1]
        h = self.tok(idx) + self.pos(torch.arange(t))
        h = self.blocks(h, mask=self.causal[:t, :t], is_causal=True)
        return self.head(self.norm(h))                     # (batch, time, vocab) logits

    @torch.no_grad()
    def generate(self, idx, n, temperature=1.0, generator=None):
        for _ in range(n):
            logits = self(idx[:, -self.block_size:])[:, -1] / temperature
            nxt = torch.multinomial(logits.softmax(dim=-1), 1, generator=generator)
            idx = torch.cat([idx, nxt], dim=1)
        return idx


def train_transformer(steps, sample_chars, seed, block_size=64, batch_size=32):
    text = zen_of_python()
    chars = sorted(set(text))
    stoi = {c: i for i, c in enumerate(chars)}
    data = torch.tensor([stoi[c] for c in text])
    g = torch.Generator().manual_seed(seed)
    offsets = torch.arange(block_size)

    model = CharTransformer(len(chars), block_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=3e-3, total_steps=steps)
    loss_fn = nn.CrossEntropyLoss()
    print(f"[2/2] character transformer on the Zen of Python ({len(text)} characters, "
          f"{len(chars)} symbols), {sum(p.numel() for p in model.parameters()):,} parameters, "
          f"{steps} steps")

    losses, running = [], None
    bar = tqdm(range(steps), desc="transformer", unit="step")
    for _ in bar:
        # a batch of random windows of the text; the target is the window moved on by one
        start = torch.randint(0, len(data) - block_size, (batch_size, 1), generator=g)
        xb, yb = data[start + offsets], data[start + offsets + 1]
        logits = model(xb)
        loss = loss_fn(logits.reshape(-1, len(chars)), yb.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        running = losses[-1] if running is None else 0.9 * running + 0.1 * losses[-1]
        bar.set_postfix(loss=f"{running:.3f}", refresh=False)
    bar.close()
    print(f"transformer loss: {losses[0]:.3f} -> {running:.3f} nats per character "
          f"(uniform guessing: {np.log(len(chars)):.3f})")

    model.eval()
    ids = model.generate(torch.tensor([[stoi[c] for c in PROMPT]]), sample_chars,
                         temperature=TEMPERATURE, generator=g)
    sample = "".join(chars[i] for i in ids[0].tolist())
    print(f"sample (prompt {PROMPT!r}, temperature {TEMPERATURE}):")
    print(textwrap.indent(sample, "    | "))
    return dict(losses=losses, sample=sample, vocab=len(chars))


# ------------------------------------------------------------------ the figure

def plot(cnn, lm, path, seconds, quick):
    red, blue, grey, ink = "#c0392b", "#1f5f99", "#a7b1bc", "#24292f"
    plt.rcParams.update({"font.size": 9, "axes.spines.top": False, "axes.spines.right": False,
                         "axes.titlesize": 11, "axes.titleweight": "bold"})
    fig = plt.figure(figsize=(14, 7.4), dpi=110)
    plots, text_row = fig.add_gridspec(2, 1, height_ratios=[1, 0.62], hspace=0.36, left=0.055,
                                       right=0.645, top=0.84, bottom=0.04)
    cnn_cell, lm_cell = plots.subgridspec(1, 2, wspace=0.42)

    def loss_curve(ax, losses, title, ylabel):
        steps = np.arange(1, len(losses) + 1)
        ax.plot(steps, losses, color=grey, lw=0.7, label="per batch")
        ax.plot(steps, smooth(losses), color=blue, lw=2, label="running average")
        ax.set_yscale("log")
        plain = ticker.FuncFormatter(lambda v, _: f"{v:g}")
        ax.yaxis.set_major_formatter(plain)                # 0.1, not 10^-1
        ax.yaxis.set_minor_formatter(plain if max(losses) / min(losses) < 20
                                     else ticker.NullFormatter())
        ax.set(xlabel="training step", ylabel=ylabel)
        ax.set_title(title, loc="left")
        ax.grid(True, which="major", color="#eaeef2", lw=0.8)
        ax.set_axisbelow(True)

    # CNN: the loss per step, and the test accuracy after each epoch
    ax = fig.add_subplot(cnn_cell)
    loss_curve(ax, cnn["losses"], "CNN on 8x8 digits", "cross-entropy loss")
    acc_ax = ax.twinx()
    acc_ax.spines["right"].set_visible(True)
    epoch_end = np.arange(1, len(cnn["accs"]) + 1) * cnn["steps_per_epoch"]
    accs = 100 * np.array(cnn["accs"])
    acc_ax.plot(epoch_end, accs, "o-", color=red, lw=1.5, ms=4, label="test accuracy")
    acc_ax.annotate(f"{accs[-1]:.1f}%", (epoch_end[-1], accs[-1]), xytext=(0, 6),
                    textcoords="offset points", ha="right", color=red, fontweight="bold")
    acc_ax.set_ylabel("test accuracy (%)", color=red)
    acc_ax.tick_params(axis="y", colors=red)
    acc_ax.set_ylim(min(80.0, accs.min() - 2), 101)
    handles = ax.get_legend_handles_labels()[0] + acc_ax.get_legend_handles_labels()[0]
    ax.legend(handles, [h.get_label() for h in handles], loc="lower left", frameon=False)

    # transformer: the loss per step, against guessing uniformly among the characters
    ax = fig.add_subplot(lm_cell)
    loss_curve(ax, lm["losses"], "Character transformer on the Zen of Python",
               "cross-entropy (nats per character)")
    ax.axhline(np.log(lm["vocab"]), color=red, ls="--", lw=1, label="uniform guessing")
    ax.legend(loc="lower left", frameon=False)

    # what the transformer writes
    ax = fig.add_subplot(text_row)
    ax.axis("off")
    ax.set_title(f"The transformer writes  (prompt \u201c{PROMPT}\u201d, temperature {TEMPERATURE})",
                 loc="left")
    ax.add_patch(patches.FancyBboxPatch(
        (0, 0), 1, 1, boxstyle="round,pad=0,rounding_size=0.02", transform=ax.transAxes,
        fc="#f6f8fa", ec="#d0d7de", lw=1))
    lines = [w for line in lm["sample"].splitlines()
             for w in (textwrap.wrap(line, 105) or [""])][:9]
    ax.text(0.018, 0.93, "\n".join(lines), family="monospace", va="top", ha="left",
            fontsize=9.5, color=ink, linespacing=1.45, transform=ax.transAxes)

    # held-out digits with the CNN's answers: every mistake (up to half the grid), the rest right
    rows, cols = 7, 6
    wrong = np.flatnonzero(cnn["pred"] != cnn["labels"])
    right_ones = np.flatnonzero(cnn["pred"] == cnn["labels"])
    rng = np.random.default_rng(0)
    show_wrong = wrong[: rows * cols // 2]
    shown = np.concatenate([show_wrong, rng.choice(right_ones, rows * cols - len(show_wrong),
                                                   replace=False)])
    rng.shuffle(shown)
    grid = fig.add_gridspec(rows, cols, left=0.69, right=0.985, top=0.8, bottom=0.04,
                            wspace=0.1, hspace=0.42)
    for k, i in enumerate(shown):
        a = fig.add_subplot(grid[k // cols, k % cols])
        a.imshow(cnn["images"][i], cmap="Greys", vmin=0, vmax=16, interpolation="nearest")
        a.set_xticks([])
        a.set_yticks([])
        bad = cnn["pred"][i] != cnn["labels"][i]
        a.set_title(f"{cnn['pred'][i]}" + (f" (is {cnn['labels'][i]})" if bad else ""),
                    color=red if bad else ink, fontsize=9, pad=2,
                    fontweight="bold" if bad else "normal")
        for s in a.spines.values():
            s.set_visible(True)
            s.set_color(red if bad else "#d0d7de")
            s.set_linewidth(2 if bad else 0.8)
    n_wrong, n = len(wrong), len(cnn["labels"])
    middle = (0.69 + 0.985) / 2
    shown_wrong = (f"its {n_wrong} mistakes" if len(show_wrong) == n_wrong
                   else f"{len(show_wrong)} of its {n_wrong} mistakes")
    if n_wrong == 0:
        shown_wrong = "no mistakes"
    fig.text(middle, 0.855, f"Held-out digits: {n - n_wrong} of {n} "
             f"right ({cnn['acc']:.1%})", ha="center", va="bottom", fontsize=11,
             fontweight="bold")
    fig.text(middle, 0.83, f"the CNN's answer above each; "
             f"{shown_wrong} in red (true digit)", ha="center", va="bottom",
             fontsize=9, color="#57606a")

    fig.suptitle("tensorplay: PyTorch-style training on NumPy" + ("  (--quick run)" if quick
                                                                    else ""),
                 x=0.055, y=0.975, ha="left", fontsize=16, fontweight="bold", color=ink)
    fig.text(0.055, 0.915, f"Both models trained from scratch on this CPU in {seconds:.0f} s, "
             f"written as PyTorch code with \u201cimport tensorplay as torch\u201d",
             ha="left", fontsize=10, color="#57606a")
    fig.savefig(path)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="train for a few seconds only (a smoke test)")
    parser.add_argument("--out", default="tensorplay_demo.png",
                        help="where to write the figure (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    cfg = QUICK if args.quick else FULL

    t0 = time.perf_counter()
    torch.manual_seed(args.seed)
    cnn = train_cnn(cfg["cnn_epochs"], args.seed)
    lm = train_transformer(cfg["lm_steps"], cfg["sample_chars"], args.seed)
    seconds = time.perf_counter() - t0
    path = os.path.abspath(args.out)
    plot(cnn, lm, path, seconds, args.quick)
    print(f"figure: {path}")
    print(f"total time: {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
