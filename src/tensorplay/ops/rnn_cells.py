"""One step of the recurrent cells, as PyTorch's top-level functions
``torch.rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell`` and ``gru_cell``
(ATen's ``RNN.cpp`` cells, which ``nn.RNNCell`` and its kin call).

Each is written with the registry's ops (``addmm``/``mm`` for the two linear
maps, then the pointwise gates), in the order PyTorch computes them, so that
gradients of every order, forward mode and vmap come from those ops.  The
input is a batch, ``(N, input_size)``, as in PyTorch (the modules unsqueeze an
unbatched input before calling): a 1-d input fails on ``input.size(1)`` with
PyTorch's IndexError.  The checks and their order are PyTorch's:

1. ``hidden_size = w_hh.size(1)``; ``w_ih`` and ``w_hh`` have ``gates *
   hidden_size`` rows;
2. ``input.size(1) == w_ih.size(1)``;
3. each hidden state has the input's batch size and ``hidden_size`` columns.

A bias is added as ``addmm`` adds it (broadcast to ``(N, gates * hidden)``,
so a per-sample bias works as in PyTorch).
"""
from .._tensor import Tensor
from .core import matmul
from .linalg import addmm, mm
from .pointwise import relu, sigmoid, tanh

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"]


def _tensor_args(name, args, first=1):
    """PyTorch's argument parser's refusal of a non-tensor (None where optional)."""
    for pos, (arg, value, optional) in enumerate(args, first):
        if not isinstance(value, Tensor) and not (optional and value is None):
            raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, "
                            f"not {type(value).__name__}")


def _linear(x, w, b):
    """``at::linear``: ``addmm`` for a matrix input with a bias, else a matmul (+ bias)."""
    if x.dim() == 2 and b is not None:
        return addmm(b, x, w.t())
    out = mm(x, w.t()) if x.dim() == 2 else matmul(x, w.t())
    return out if b is None else out + b


def _check(input, hiddens, w_ih, w_hh, gates):
    hidden_size = w_hh.size(1)
    for label, w in (("ih", w_ih), ("hh", w_hh)):
        if w.size(0) != gates * hidden_size:
            raise RuntimeError(f"weight_{label} first dim must be {gates} * hidden_size = "
                               f"{gates * hidden_size}, but got {w.size(0)}")
    input_size = w_ih.size(1)
    if input.size(1) != input_size:
        raise RuntimeError(f"input has inconsistent input_size: got {input.size(1)} expected "
                           f"{input_size}")
    for k, hx in enumerate(hiddens):
        if input.size(0) != hx.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{k} batch "
                               f"size {hx.size(0)}")
        if hx.size(1) != hidden_size:
            raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {hx.size(1)}, "
                               f"expected {hidden_size}")


def _simple_cell(name, nonlinearity, input, hx, w_ih, w_hh, b_ih, b_hh):
    _tensor_args(name, (("input", input, False), ("hx", hx, False), ("w_ih", w_ih, False),
                        ("w_hh", w_hh, False), ("b_ih", b_ih, True), ("b_hh", b_hh, True)))
    _check(input, (hx,), w_ih, w_hh, 1)
    return nonlinearity(_linear(hx, w_hh, b_hh) + _linear(input, w_ih, b_ih))


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``tanh(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``: one step of an Elman RNN."""
    return _simple_cell("rnn_tanh_cell", tanh, input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``relu(input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh)``: one step of an Elman RNN."""
    return _simple_cell("rnn_relu_cell", relu, input, hx, w_ih, w_hh, b_ih, b_hh)


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step: ``hx = (h, c)``; returns ``(h', c')``.  The gates, in the
    rows of ``w_ih``/``w_hh``: input, forget, cell, output."""
    _tensor_args("lstm_cell", (("input", input, False),))
    if not isinstance(hx, (tuple, list)):
        raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, "
                        f"not {type(hx).__name__}")
    for k, h in enumerate(hx):
        if not isinstance(h, Tensor):
            raise TypeError(f"expected Tensor as element {k} in argument 1, but got "
                            f"{type(h).__name__}")
    _tensor_args("lstm_cell", (("w_ih", w_ih, False), ("w_hh", w_hh, False),
                               ("b_ih", b_ih, True), ("b_hh", b_hh, True)), first=3)
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    h, c = hx
    _check(input, (h, c), w_ih, w_hh, 4)
    gates = _linear(h, w_hh, b_hh) + _linear(input, w_ih, b_ih)
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate, forgetgate = sigmoid(ingate), sigmoid(forgetgate)
    cellgate, outgate = tanh(cellgate), sigmoid(outgate)
    cy = forgetgate * c + ingate * cellgate
    hy = outgate * tanh(cy)
    return hy, cy


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step; the gates, in the rows of ``w_ih``/``w_hh``: reset, update
    (PyTorch's "input gate"), new.  ``h' = (h - n) * z + n``."""
    _tensor_args("gru_cell", (("input", input, False), ("hx", hx, False), ("w_ih", w_ih, False),
                              ("w_hh", w_hh, False), ("b_ih", b_ih, True), ("b_hh", b_hh, True)))
    _check(input, (hx,), w_ih, w_hh, 3)
    i_r, i_z, i_n = _linear(input, w_ih, b_ih).chunk(3, 1)
    h_r, h_z, h_n = _linear(hx, w_hh, b_hh).chunk(3, 1)
    reset_gate = sigmoid(h_r + i_r)
    input_gate = sigmoid(h_z + i_z)
    new_gate = tanh(i_n + h_n * reset_gate)
    return (hx - new_gate) * input_gate + new_gate
