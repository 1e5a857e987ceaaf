"""Per-call cost of 29 view spellings on a 4x4 float32 tensor without grad,
tensorplay beside torch (when installed), in microseconds, best of 5 x 20000
calls (issue 6 asks for view ops under 1 us).

    python benchmarks/view_cost.py
"""
import timeit

import numpy as np

CASES = {
    "view(2,8)": lambda a: a.view(2, 8), "reshape(16)": lambda a: a.reshape(16),
    "t()": lambda a: a.t(), ".T": lambda a: a.T, "transpose(0,1)": lambda a: a.transpose(0, 1),
    "permute(1,0)": lambda a: a.permute(1, 0), "swapaxes": lambda a: a.swapaxes(0, 1),
    ".mT": lambda a: a.mT, "unsqueeze(0)": lambda a: a.unsqueeze(0),
    "squeeze()": lambda a: a.squeeze(), "squeeze(0)": lambda a: a.squeeze(0),
    "flatten()": lambda a: a.flatten(), "unflatten": lambda a: a.unflatten(1, (2, 2)),
    "narrow": lambda a: a.narrow(0, 1, 2), "select(0,1)": lambda a: a.select(0, 1),
    "a[0]": lambda a: a[0], "a[1:3]": lambda a: a[1:3], "a[:, 1]": lambda a: a[:, 1],
    "a[None]": lambda a: a[None], "diagonal": lambda a: a.diagonal(),
    "view_as": lambda a: a.view_as(a), "expand(2,4,4)": lambda a: a.expand(2, 4, 4),
    "expand_as": lambda a: a.expand_as(a), "movedim": lambda a: a.movedim(0, 1),
    "detach": lambda a: a.detach(), "unbind": lambda a: a.unbind(),
    "split(2)": lambda a: a.split(2), "chunk(2)": lambda a: a.chunk(2),
    "as_strided": lambda a: a.as_strided((2, 2), (1, 2)),
}


def run(T, n=20000):
    a = T.tensor(np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32))
    return {k: min(timeit.repeat(lambda f=f: f(a), number=n, repeat=5)) / n * 1e6
            for k, f in CASES.items()}


def main():
    import tensorplay
    try:
        import torch
    except ImportError:
        torch = None
    p = run(tensorplay)
    t = run(torch) if torch is not None else {}
    print("| spelling | tensorplay | torch |\n|---|---|---|")
    for k in CASES:
        print(f"| {k} | {p[k]:.2f} | {t[k]:.2f} |" if t else f"| {k} | {p[k]:.2f} | |")
    under = sum(p[k] < 1 for k in CASES)
    line = f"under 1 us: tensorplay {under} of {len(CASES)}"
    if t:
        line += f", torch {sum(t[k] < 1 for k in CASES)}"
    print(line)


if __name__ == "__main__":
    main()
