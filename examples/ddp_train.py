"""A digits classifier trained data-parallel over MPI ranks.

    pip install -e ".[mpi]"
    python -m tensorplay.distributed.run -n 4 examples/ddp_train.py      # 4 ranks, this machine
    mpiexec -n 4 python examples/ddp_train.py                             # the same, by hand
    mpiexec --hostfile hosts -n 8 python examples/ddp_train.py            # 8 ranks on several
    python examples/ddp_train.py                                          # one process

Each rank builds the same model (DistributedDataParallel copies rank 0's
weights to the others anyway), reads its own share of every epoch through a
DistributedSampler, and after each backward pass holds the gradients averaged
over all ranks, so every replica takes the same optimizer step.  The global
batch is ranks x --batch-size.  Only rank 0 prints, and saves the model.

The data are 8x8 images of the digits 0-9 drawn from a 5x7 pixel font,
shifted by up to a pixel, thickened at random and noised: no download, the
same on every rank for a seed.
"""
import argparse
import time

import numpy as np

import tensorplay as tp
import tensorplay.distributed as dist
from tensorplay import nn, optim
from tensorplay.nn.parallel import DistributedDataParallel as DDP
from tensorplay.utils.data import DataLoader, DistributedSampler, TensorDataset

FONT = {  # 5 columns x 7 rows per digit
    0: ["01110", "10001", "10011", "10101", "11001", "10001", "01110"],
    1: ["00100", "01100", "00100", "00100", "00100", "00100", "01110"],
    2: ["01110", "10001", "00001", "00010", "00100", "01000", "11111"],
    3: ["11111", "00010", "00100", "00010", "00001", "10001", "01110"],
    4: ["00010", "00110", "01010", "10010", "11111", "00010", "00010"],
    5: ["11111", "10000", "11110", "00001", "00001", "10001", "01110"],
    6: ["00110", "01000", "10000", "11110", "10001", "10001", "01110"],
    7: ["11111", "00001", "00010", "00100", "01000", "01000", "01000"],
    8: ["01110", "10001", "10001", "01110", "10001", "10001", "01110"],
    9: ["01110", "10001", "10001", "01111", "00001", "00010", "01100"],
}


def digits(n, seed):
    """``n`` noisy 8x8 digit images (float32, (n, 1, 8, 8)) and their labels."""
    rng = np.random.default_rng(seed)
    glyphs = np.array([[[c == "1" for c in row] for row in FONT[d]] for d in range(10)],
                      np.float32)
    labels = rng.integers(0, 10, n)
    images = np.zeros((n, 8, 8), np.float32)
    for i, d in enumerate(labels):
        dy, dx = rng.integers(0, 2), rng.integers(0, 4)
        g = glyphs[d]
        if rng.random() < 0.3:                          # a bolder stroke
            g = np.maximum(g, np.roll(g, 1, axis=1))
        images[i, dy:dy + 7, dx:dx + 5] = g
    images += rng.normal(0, 0.35, images.shape).astype(np.float32)
    return tp.tensor(images[:, None]), tp.tensor(labels)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(64, 128), nn.ReLU(),
                                  nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        return self.body(x)


def main():
    p = argparse.ArgumentParser(description="digits classifier, data-parallel on MPI")
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=32, help="per rank")
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--train-size", type=int, default=4096)
    p.add_argument("--save", default=None, help="rank 0 saves the model's state_dict here")
    args = p.parse_args()

    dist.init_process_group("mpi")         # rank and world size come from mpiexec
    rank, world = dist.get_rank(), dist.get_world_size()

    def say(*a):
        if rank == 0:
            print(*a, flush=True)

    tp.manual_seed(0)
    train = TensorDataset(*digits(args.train_size, seed=1))      # the same data on every rank
    test_x, test_y = digits(1000, seed=2)
    sampler = DistributedSampler(train, shuffle=True, seed=0)      # this rank's share
    loader = DataLoader(train, batch_size=args.batch_size, sampler=sampler)
    model = DDP(Net())
    opt = optim.Adam(model.parameters(), lr=args.lr)
    say(f"{world} rank(s), {len(sampler)} samples each per epoch, global batch "
        f"{world * args.batch_size}")

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)            # a new shuffle, the same on every rank
        model.train()
        t0 = time.perf_counter()
        stats = tp.zeros(3, dtype=tp.float64)          # loss sum, correct, seen (this rank)
        for x, y in loader:
            opt.zero_grad()
            out = model(x)
            loss = nn.functional.cross_entropy(out, y)
            loss.backward()                 # gradients averaged over the ranks on return
            opt.step()
            stats += tp.tensor([loss.item() * len(y), (out.argmax(1) == y).sum().item(),
                                len(y)], dtype=tp.float64)
        dist.all_reduce(stats)              # the whole epoch, over all ranks
        say(f"epoch {epoch + 1}: loss {stats[0].item() / stats[2].item():.4f}, "
            f"train accuracy {stats[1].item() / stats[2].item():.3f}, "
            f"{time.perf_counter() - t0:.2f} s")

    model.eval()
    with tp.no_grad():
        acc = (model.module(test_x).argmax(1) == test_y).float().mean().item()
    say(f"test accuracy {acc:.3f}")
    if rank == 0 and args.save:
        tp.save(model.module.state_dict(), args.save)    # without DDP's "module." prefix
        say(f"saved to {args.save}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
