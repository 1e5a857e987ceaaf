import tensorplay as torch
# The PyTorch examples' polynomial regression: fit y = w1 x + w2 x^2 + w3 x^3 + w4 x^4 + b
# with one Linear layer on the features [x, x^2, x^3, x^4], by hand-written gradient
# steps on the smooth L1 loss, batch after batch, until the loss is small. The target
# polynomial and the batches come from a seeded NumPy generator (and the layer starts from
# NumPy numbers), so every library that runs this script sees the same problem.
from itertools import count

import numpy as np
import tensorplay.nn.functional as F

rng = np.random.default_rng(11)

POLY_DEGREE = 4
W_target = torch.from_numpy(rng.standard_normal((POLY_DEGREE, 1)).astype(np.float32)) * 5
b_target = torch.from_numpy(rng.standard_normal(1).astype(np.float32)) * 5


def make_features(x):
    """The columns [x, x^2, x^3, x^4] of a batch of numbers."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, POLY_DEGREE + 1)], 1)


def f(x):
    """The function to learn."""
    return x.mm(W_target) + b_target.item()


def poly_desc(W, b):
    """A polynomial written out, e.g. 'y = +1.00 x^1 -2.50 x^2 +0.30'."""
    result = 'y = '
    for i, w in enumerate(W):
        result += '{:+.2f} x^{} '.format(w, i + 1)
    result += '{:+.2f}'.format(b[0])
    return result


def get_batch(batch_size=32):
    """A batch of (features, f(x)) pairs."""
    random = torch.from_numpy(rng.standard_normal(batch_size).astype(np.float32))
    x = make_features(random)
    y = f(x)
    return x, y


fc = torch.nn.Linear(W_target.size(0), 1)
with torch.no_grad():
    fc.weight.copy_(torch.from_numpy(rng.uniform(-0.5, 0.5, (1, POLY_DEGREE)).astype(np.float32)))
    fc.bias.fill_(0.0)

losses = []
for batch_idx in count(1):
    batch_x, batch_y = get_batch()

    fc.zero_grad()

    output = F.smooth_l1_loss(fc(batch_x), batch_y)
    loss = output.item()
    losses.append(loss)

    output.backward()

    # a plain gradient step, written out
    for param in fc.parameters():
        param.data.add_(-0.1 * param.grad)

    # done when the loss is small (or after a bounded number of batches)
    if loss < 1e-3 or batch_idx == 2000:
        break

learned = poly_desc(fc.weight.view(-1), fc.bias)
actual = poly_desc(W_target.view(-1), b_target)
print('Loss: {:.6f} after {} batches'.format(loss, batch_idx))
print('==> Learned function:\t' + learned)
print('==> Actual function:\t' + actual)
