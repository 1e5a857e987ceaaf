"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` (multi-layer, bidirectional,
``batch_first``, initial states, LSTM's ``proj_size``) and their cells.

Each layer and direction projects the whole input sequence with one matmul
(both biases folded in where the gate allows it), then loops over the time
steps with one matmul of the hidden state per step; gates are computed on
the packed (batch, gates * hidden) tensor and split into views.  A
``PackedSequence`` input runs the same steps on the rows still running at each
step (``_run_packed``), built from slicing and ``cat`` only, so autograd
differentiates it like the padded path.
"""
import math
import warnings

from ... import _creation
from ..._tensor import Tensor
from ...ops.nn_ops import linear as _linear
from ...ops.shape import cat as _cat, stack as _stack
from .. import functional as F
from .. import init
from ..utils.rnn import PackedSequence
from ._common import empty_param, factory_dtype
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _lstm_step(xg, h, c, w_hh, w_hr):
    """One LSTM step: ``xg`` holds the input's gate pre-activations (biases in)."""
    g = xg + _linear(h, w_hh, None)
    i, f, gg, o = g.chunk(4, 1)
    c = f.sigmoid() * c + i.sigmoid() * gg.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr is not None:
        h = _linear(h, w_hr, None)
    return h, c


def _gru_step(xg, h, w_hh, b_hh):
    """One GRU step: ``xg`` holds W_i x + b_i for (r, z, n)."""
    hg = _linear(h, w_hh, b_hh)
    xr, xz, xn = xg.chunk(3, 1)
    hr, hz, hn = hg.chunk(3, 1)
    r = (xr + hr).sigmoid()
    z = (xz + hz).sigmoid()
    n = (xn + r * hn).tanh()
    return n + z * (h - n)


def _rnn_step(xg, h, w_hh, relu):
    a = xg + _linear(h, w_hh, None)
    return a.relu() if relu else a.tanh()


def _bias_sum(b_ih, b_hh):
    """The two biases added once ahead of the recurrence (either may be absent)."""
    if b_ih is None or b_hh is None:
        return b_hh if b_ih is None else b_ih
    return b_ih + b_hh


class RNNBase(Module):
    """The parameters and the loop shared by ``RNN``, ``LSTM`` and ``GRU``."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        dtype = factory_dtype(device, dtype)
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first = bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        num_directions = 2 if bidirectional else 1
        if not (isinstance(dropout, (int, float)) and not isinstance(dropout, bool)
                and 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn(f"dropout option adds dropout after all but last recurrent layer, so "
                          f"non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}", UserWarning, stacklevel=3)
        if not isinstance(input_size, int) or isinstance(input_size, bool):
            raise TypeError(f"input_size should be of type int, got: {type(input_size).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_input = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                params = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    params += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    params += [("weight_hr", (proj_size, hidden_size))]
                names = []
                for base, shape in params:
                    name = f"{base}_l{layer}{suffix}"
                    setattr(self, name, empty_param(*shape, dtype=dtype))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        pass

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -------------------------------------------------------------- forward
    def _weights(self, layer, direction):
        suffix = "_reverse" if direction == 1 else ""
        # by attribute, not from _parameters: a parametrized, weight-normed or pruned
        # weight is a property or an attribute its hook sets, no longer a Parameter
        return [getattr(self, f"{b}_l{layer}{suffix}", None)
                for b in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")]

    def _check(self, input, hx, cx=None):
        name = type(self).__name__
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D tensor instead")
        batched = input.ndim == 3
        for t in (hx, cx):
            if t is None:
                continue
            if batched and t.ndim != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got {t.ndim}-D "
                                   f"tensor")
            if not batched and t.ndim != 2:
                raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                                   f"{t.ndim}-D tensor")
        self._check_dtype(input)        # (PyTorch's check_input: the dtype, then the size)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")
        return batched

    def _run(self, input, hx, cx):
        """input (L, N, I); hx (layers*dirs, N, H_out); cx for LSTM.  Returns
        the output (L, N, dirs*H_out) and the stacked final states."""
        mode = self.mode
        dirs = 2 if self.bidirectional else 1
        seq_len = input.shape[0]
        layer_input = input
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, d)
                idx = layer * dirs + d
                h = hx[idx]
                if mode == "GRU":
                    xg = _linear(layer_input, w_ih, b_ih)
                else:
                    xg = _linear(layer_input, w_ih, _bias_sum(b_ih, b_hh))
                steps = xg.unbind(0)
                order = range(seq_len - 1, -1, -1) if d == 1 else range(seq_len)
                hs = [None] * seq_len
                if mode == "LSTM":
                    c = cx[idx]
                    for t in order:
                        h, c = _lstm_step(steps[t], h, c, w_hh, w_hr)
                        hs[t] = h
                    c_n.append(c)
                elif mode == "GRU":
                    for t in order:
                        h = _gru_step(steps[t], h, w_hh, b_hh)
                        hs[t] = h
                else:
                    relu = mode == "RNN_RELU"
                    for t in order:
                        h = _rnn_step(steps[t], h, w_hh, relu)
                        hs[t] = h
                h_n.append(h)
                outs.append(_stack(hs, 0) if seq_len else xg.new_zeros((0,) + tuple(h.shape)))
            layer_input = outs[0] if dirs == 1 else _cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, _stack(h_n, 0), (_stack(c_n, 0) if mode == "LSTM" else None)

    def _run_packed(self, data, batch_sizes, hx, cx):
        """The packed twin of ``_run``: ``data`` (sum(batch_sizes), I) holds, step
        after step, the rows of the sequences still running (longest first);
        hx (layers*dirs, B, H_out) with B = batch_sizes[0].  The forward
        direction drops the rows of finished sequences as it goes (their
        hidden state is final there); the reverse one starts each sequence at
        its own last step with its row of ``hx``.  Returns the packed output
        (sum(batch_sizes), dirs*H_out) and the stacked final states."""
        mode = self.mode
        dirs = 2 if self.bidirectional else 1
        bs = [int(b) for b in batch_sizes.tolist()]
        offsets = [0]
        for b in bs:
            offsets.append(offsets[-1] + b)
        steps = len(bs)
        layer_input = data
        h_n, c_n = [], []
        lstm = mode == "LSTM"
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, d)
                idx = layer * dirs + d
                h0 = hx[idx]
                c0 = cx[idx] if lstm else None
                if mode == "GRU":
                    xg = _linear(layer_input, w_ih, b_ih)
                else:
                    xg = _linear(layer_input, w_ih, _bias_sum(b_ih, b_hh))
                hs = [None] * steps
                if d == 0:
                    h, c = h0, c0
                    done_h, done_c = [], []         # final states of finished rows
                    for t in range(steps):
                        n = bs[t]
                        if n < h.shape[0]:
                            done_h.append(h[n:])
                            h = h[:n]
                            if lstm:
                                done_c.append(c[n:])
                                c = c[:n]
                        h, c = self._step(xg[offsets[t]:offsets[t + 1]], h, c,
                                          w_hh, b_hh, w_hr)
                        hs[t] = h
                    done_h.append(h)
                    h_fin = _cat(done_h[::-1], 0) if len(done_h) > 1 else h
                    if lstm:
                        done_c.append(c)
                        c_fin = _cat(done_c[::-1], 0) if len(done_c) > 1 else c
                else:
                    h = c = None
                    for t in range(steps - 1, -1, -1):
                        n = bs[t]
                        have = 0 if h is None else h.shape[0]
                        if n > have:                # sequences whose last step is t
                            h = h0[have:n] if h is None else _cat([h, h0[have:n]], 0)
                            if lstm:
                                c = c0[have:n] if c is None else _cat([c, c0[have:n]], 0)
                        h, c = self._step(xg[offsets[t]:offsets[t + 1]], h, c,
                                          w_hh, b_hh, w_hr)
                        hs[t] = h
                    h_fin, c_fin = h, c
                h_n.append(h_fin)
                if lstm:
                    c_n.append(c_fin)
                outs.append(_cat(hs, 0))
            layer_input = outs[0] if dirs == 1 else _cat(outs, 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        return layer_input, _stack(h_n, 0), (_stack(c_n, 0) if lstm else None)

    def _step(self, xg, h, c, w_hh, b_hh, w_hr):
        mode = self.mode
        if mode == "LSTM":
            return _lstm_step(xg, h, c, w_hh, w_hr)
        if mode == "GRU":
            return _gru_step(xg, h, w_hh, b_hh), None
        return _rnn_step(xg, h, w_hh, mode == "RNN_RELU"), None

    def _check_dtype(self, input):
        w = self._flat_weights[0]
        if input.dtype != w.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w.dtype}). Convert input: input.to({w.dtype}), or convert model: "
                             f"model.to({input.dtype})")

    def _forward_packed(self, packed, hx):
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        lstm = self.mode == "LSTM"
        if lstm:
            h0, c0 = (None, None) if hx is None else hx
        else:
            h0, c0 = hx, None
        batch = int(batch_sizes[0])
        if h0 is not None and sorted_indices is not None:
            h0 = h0.index_select(1, sorted_indices)
            c0 = None if c0 is None else c0.index_select(1, sorted_indices)
        self._check_dtype(data)
        if data.ndim != 2:
            raise RuntimeError(f"input must have 2 dimensions, got {data.ndim}")
        if data.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {data.shape[-1]}")
        h0, c0 = self._initial_states(data, batch, h0, c0)
        output, h_n, c_n = self._run_packed(data, batch_sizes, h0, c0)
        if unsorted_indices is not None:
            h_n = h_n.index_select(1, unsorted_indices)
            c_n = None if c_n is None else c_n.index_select(1, unsorted_indices)
        output = PackedSequence(output, batch_sizes, sorted_indices, unsorted_indices)
        return (output, (h_n, c_n)) if lstm else (output, h_n)

    def _initial_states(self, like, batch, h0, c0):
        """h0 (and an LSTM's c0): zeros in ``like``'s dtype where not given, else
        checked against (layers * directions, batch, size) in PyTorch's words."""
        lstm = self.mode == "LSTM"
        out_size = self.proj_size if self.proj_size > 0 else self.hidden_size
        if h0 is None:
            h0 = self._zeros_state(like, batch, out_size)
        else:
            self._check_hidden(h0, batch, out_size, "Expected hidden[0] size" if lstm else
                               "Expected hidden size")
        if lstm:
            if c0 is None:
                c0 = self._zeros_state(like, batch, self.hidden_size)
            else:
                self._check_hidden(c0, batch, self.hidden_size, "Expected hidden[1] size")
        return h0, c0

    def _zeros_state(self, input, batch, size):
        dirs = 2 if self.bidirectional else 1
        return _creation.zeros(self.num_layers * dirs, batch, size, dtype=input.dtype)

    def _check_hidden(self, t, batch, size, label="Expected hidden size"):
        dirs = 2 if self.bidirectional else 1
        want = (self.num_layers * dirs, batch, size)
        if tuple(t.shape) != want:
            raise RuntimeError(f"{label} {want}, got {list(t.shape)}")

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        lstm = self.mode == "LSTM"
        if lstm:
            if hx is None:
                h0 = c0 = None
            else:
                if input.ndim in (2, 3):    # (PyTorch indexes hx: a lone tensor is split on dim 0)
                    dims = 3 if input.ndim == 3 else 2
                    if hx[0].ndim != dims or hx[1].ndim != dims:
                        kind = "batched 3-D" if dims == 3 else "unbatched 2-D"
                        raise RuntimeError(f"For {kind} input, hx and cx should also be {dims}-D but "
                                           f"got ({hx[0].ndim}-D, {hx[1].ndim}-D) tensors")
                h0, c0 = hx[0], hx[1]
        else:
            h0, c0 = hx, None
        batched = self._check(input, h0, c0)
        if not batched:
            input = input.unsqueeze(1)
            h0 = None if h0 is None else h0.unsqueeze(1)
            c0 = None if c0 is None else c0.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        batch = input.shape[1]
        h0, c0 = self._initial_states(input, batch, h0, c0)
        if lstm and batched and isinstance(hx, Tensor):
            # (checked as a pair above; PyTorch's kernel then refuses the tensor, where an
            # unbatched input's pair is rebuilt as a tuple first)
            raise TypeError(_LSTM_SIGNATURE_ERROR)
        if input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        output, h_n, c_n = self._run(input, h0, c0)
        if not batched:
            output = output.squeeze(1)
            h_n = h_n.squeeze(1)
            c_n = None if c_n is None else c_n.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return (output, (h_n, c_n)) if lstm else (output, h_n)


_LSTM_SIGNATURE_ERROR = (
    "lstm() received an invalid combination of arguments - got (Tensor, Tensor, list, bool, int, float, "
    "bool, bool, bool), but expected one of:\n"
    " * (Tensor data, Tensor batch_sizes, tuple of Tensors hx, tuple of Tensors params, bool has_biases, "
    "int num_layers, float dropout, bool train, bool bidirectional)\n"
    " * (Tensor input, tuple of Tensors hx, tuple of Tensors params, bool has_biases, int num_layers, "
    "float dropout, bool train, bool bidirectional, bool batch_first)\n")


def _no_proj_size(kwargs):
    """RNN and GRU take no projection (PyTorch's words, for any ``proj_size`` given)."""
    if "proj_size" in kwargs:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if kwargs:
        raise TypeError(f"RNNBase.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)`` (or relu)."""

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None,
                 **kwargs):
        _no_proj_size(kwargs)
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)


class LSTM(RNNBase):
    """Long short-term memory; gates (i, f, g, o) packed in that order."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit; gates (r, z, n) packed in that order."""

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, **kwargs):
        _no_proj_size(kwargs)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)


# ------------------------------------------------------------------ cells
class RNNCellBase(Module):
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        dtype = factory_dtype(device, dtype)
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        self.weight_ih = empty_param(num_chunks * hidden_size, input_size, dtype=dtype)
        self.weight_hh = empty_param(num_chunks * hidden_size, hidden_size, dtype=dtype)
        if bias:
            self.bias_ih = empty_param(num_chunks * hidden_size, dtype=dtype)
            self.bias_hh = empty_param(num_chunks * hidden_size, dtype=dtype)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _prepare(self, input, hx):
        name = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if hx is not None and hx.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected hidden to be 1D or 2D, got {hx.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected "
                               f"{self.input_size}")
        if hx is None:
            hx = _creation.zeros(input.shape[0], self.hidden_size, dtype=input.dtype)
        else:
            if not batched:
                hx = hx.unsqueeze(0)
            self._check_hidden(input, hx, 0)
        return input, hx, batched

    def _check_hidden(self, input, hx, k):
        """PyTorch's checks of hidden state ``k`` (an LSTMCell's c is 1), in its order:
        the batch size (dim 0), then the hidden size (dim 1; a 2-D state of an
        unbatched input is 3-D here, as there, and its dim 1 is its batch)."""
        if hx.shape[0] != input.shape[0]:
            raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size "
                               f"{hx.shape[0]}")
        if hx.ndim < 2:
            raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
        if hx.shape[1] != self.hidden_size:
            raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {hx.shape[1]}, expected "
                               f"{self.hidden_size}")


class RNNCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx)
        a = _linear(input, self.weight_ih, self.bias_ih) + _linear(hx, self.weight_hh, self.bias_hh)
        if self.nonlinearity == "tanh":
            h = a.tanh()
        elif self.nonlinearity == "relu":
            h = a.relu()
        else:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        if hx is not None:
            h0, c0 = hx
        else:
            h0 = c0 = None
        input, h0, batched = self._prepare(input, h0)
        if c0 is None:
            c0 = h0.new_zeros(tuple(h0.shape))
        else:
            if not batched:
                c0 = c0.unsqueeze(0)
            self._check_hidden(input, c0, 1)
        xg = _linear(input, self.weight_ih, self.bias_ih)
        if self.bias_hh is not None:
            xg = xg + self.bias_hh
        h, c = _lstm_step(xg, h0, c0, self.weight_hh, None)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx)
        h = _gru_step(_linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh, self.bias_hh)
        return h if batched else h.squeeze(0)
