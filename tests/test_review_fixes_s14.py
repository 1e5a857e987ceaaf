"""Regressions for what this session's reviews found outside the areas the
fixing engineers own: Beta/Dirichlet draws kept inside (0, 1), binomial draws
for counts past int64, ``broadcast_shapes``' message naming the argument as
given."""
import numpy as np
import pytest

import tensorplay as tp
from conftest import exact


@pytest.mark.parametrize("dtype", [tp.float32, tp.float64])
def test_beta_and_dirichlet_draws_stay_inside_the_unit_interval(dtype):
    tp.manual_seed(0)
    conc = 1e-3 if dtype is tp.float64 else 0.05
    d = tp.distributions.Beta(tp.full((20000,), conc, dtype=dtype), tp.full((20000,), conc, dtype=dtype))
    x = d.sample()
    assert not ((x == 0) | (x == 1)).any()
    assert tp.isfinite(d.log_prob(x)).all()
    c = tp.full((3,), conc, dtype=dtype, requires_grad=True)
    y = tp.distributions.Dirichlet(c).rsample((5000,))
    assert (y > 0).all() and (y < 1).all()
    g, = tp.autograd.grad(tp.distributions.Dirichlet(c).log_prob(y.detach()).sum() + y.sum(), c)
    assert tp.isfinite(g).all()


def test_dirichlet_clamp_keeps_the_reparameterized_gradient():
    tp.manual_seed(1)
    c = tp.tensor([2.0, 3.0, 4.0], dtype=tp.float64, requires_grad=True)
    y = tp.distributions.Dirichlet(c).rsample((20000,))
    g, = tp.autograd.grad(y[:, 0].mean(), c)       # d E[x0] / dc = d (c0 / sum c) / dc
    s = 9.0
    assert np.allclose(g.tolist(), [(s - 2) / s ** 2, -2 / s ** 2, -2 / s ** 2], atol=3e-3)


def test_binomial_counts_past_int64():
    tp.manual_seed(0)
    n = tp.tensor([1e19, 1e19, 5.0], dtype=tp.float64)
    p = tp.tensor([0.3, 1.0, 0.5], dtype=tp.float64)
    r = tp.distributions.Binomial(n, p).sample((200,))
    assert abs(float(r[:, 0].mean()) / 1e19 - 0.3) < 1e-8
    assert (r[:, 1] == 1e19).all()
    assert ((r[:, 2] >= 0) & (r[:, 2] <= 5) & (r[:, 2] == r[:, 2].round())).all()


@pytest.mark.parametrize("shapes,shown", [
    (((3,), [4]), "[4]"), ((tp.Size([2, 3]), (4,)), "(4,)"), (((2, 3), 4), "(4,)"),
    ((tp.Size([3]), tp.Size([4])), "tensorplay.Size([4])"),
])
def test_broadcast_shapes_names_the_argument_as_given(shapes, shown):
    want = tuple(shapes[0]) if not isinstance(shapes[0], int) else (shapes[0],)
    msg = (f"Attempting to broadcast a dimension of length 4 at -1! Mismatching argument at index 1 "
           f"had {shown}; but expected shape should be broadcastable to {list(want)}")
    with pytest.raises(RuntimeError, match=exact(msg)):
        tp.broadcast_shapes(*shapes)


def test_resize_with_a_memory_format_keeps_the_storage(T):
    a = T.arange(24.).reshape(1, 2, 3, 4)
    a.resize_(1, 2, 3, 4, memory_format=T.channels_last)
    assert a.stride() == (24, 1, 8, 2) and a.flatten().tolist()[:4] == [0.0, 2.0, 4.0, 6.0]
    b = T.arange(24.).reshape(1, 2, 3, 4).clone(memory_format=T.channels_last)
    b.resize_(1, 2, 3, 4, memory_format=T.channels_last)
    assert b.flatten().tolist() == [float(i) for i in range(24)]     # values unchanged
    c = T.arange(10.)
    c.resize_(1, 2, 2, 2, memory_format=T.channels_last)
    assert c.flatten().tolist() == [0.0, 2.0, 4.0, 6.0, 1.0, 3.0, 5.0, 7.0]
    with pytest.raises(RuntimeError, match=exact("required rank 4 tensor to use channels_last format")):
        T.arange(4.).resize_(2, 2, memory_format=T.channels_last)


@pytest.mark.parametrize("norm", ["layer", "group", "batch", "instance"])
def test_half_norm_layers_keep_their_gradient_when_the_variance_passes_65504(norm):
    """The statistics stay float32 for half input (PyTorch's native norms keep them
    so): a float16 variance past 65504 was inf, and the input gradient all zeros."""
    v = [300., -250, 120, -40, 400, -380]
    F = tp.nn.functional
    x64 = tp.tensor([v], dtype=tp.float64, requires_grad=True)
    x16 = tp.tensor([v], dtype=tp.float16, requires_grad=True)
    g = tp.tensor([[1., 0, 0, 0, 0, 0]])
    for x in (x64, x16):
        if norm == "layer":
            y = F.layer_norm(x, (6,))
        elif norm == "group":
            y = F.group_norm(x.reshape(1, 1, 6), 1).reshape(1, 6)
        elif norm == "batch":
            y = F.batch_norm(x.reshape(6, 1), None, None, training=True).reshape(1, 6)
        else:
            y = F.instance_norm(x.reshape(1, 1, 6)).reshape(1, 6)
        y.backward(g.to(x.dtype))
    assert x16.grad.dtype == tp.float16
    np.testing.assert_allclose(np.asarray(x16.grad.tolist()), np.asarray(x64.grad.tolist()),
                               rtol=2e-2, atol=2e-6)


def test_half_batchnorm_running_variance_stays_finite():
    bn = tp.nn.BatchNorm1d(1).half()
    bn(tp.tensor([[300.0], [-250.0], [120.0], [-40.0], [400.0], [-380.0]], dtype=tp.float16))
    assert bn.running_var.tolist() == [9384.0]      # (PyTorch's: 0.9 + 0.1 * 93830, in half)
    bn.eval()
    assert abs(bn(tp.tensor([[100.0]], dtype=tp.float16)).item() - 1.0068) < 1e-3
