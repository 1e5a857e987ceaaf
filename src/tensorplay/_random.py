"""Random number generation: a ``Generator`` wraps NumPy's PCG64.

A generator's state is a uint8 tensor of ``_STATE_BYTES`` bytes: PCG64's
128-bit state and increment and its buffered 32-bit half, little endian.  It
is plain data (no pickle), so a state read back from a file can only set a
generator, never run code.
"""
import contextlib
import functools
import inspect

import numpy as np

from ._tensor import Tensor, _wrap, check_device, device

_STATE_BYTES = 40
_BELOW_ONE = np.nextafter(np.float32(1), np.float32(0))
_DIGITS = {np.dtype(np.float16): 11}     # significand bits of the low-precision floats (+ bfloat16)


def uniform01(rng, shape, dtype):
    """Uniform samples in [0, 1) of NumPy ``dtype`` (a complex one: real and
    imaginary parts each), never 1, as PyTorch's: a half or bfloat16 sample is a
    multiple of 2**-digits below 1 (rounding a double to the nearest half gave
    1.0 about once in 4,000 draws; PyTorch's finer structure near 0 differs); a
    float32 one that rounds up to 1 is the float below it (once in ~3e7).  The
    draws are NumPy's doubles."""
    dt = np.dtype(dtype)
    if dt.kind == "c":
        part = np.float32 if dt == np.complex64 else np.float64
        return (uniform01(rng, shape, part) + 1j * uniform01(rng, shape, part)).astype(dt)
    u = rng.random(shape)
    if dt == np.float64:
        return u
    digits = _DIGITS.get(dt)
    if digits is None and dt.name == "bfloat16":
        digits = 8
    if digits is not None:
        return (np.floor(u * 2.0 ** digits) * 2.0 ** -digits).astype(dt)
    r = u.astype(dt)
    if dt == np.float32:
        r[r == 1] = _BELOW_ONE
    return r
# the open transforms that care about random draws (vmap levels, with their
# ``randomness``), innermost last.  Each has ``check_draw()``, run before every
# draw, and ``sample(fn, how, args, kwargs)``, which runs a call of a function
# marked with ``sampling`` (so that each sample can get its own draws)
draw_guards = []


class Sampling:
    """How a sampling function draws, as a transform needs to know it:

    - ``batch``: how to draw for a whole batch of samples, each its own:
      ``"elementwise"`` (the function draws one number per element of its
      output, which lines up elementwise with its tensor arguments: run it once
      on those arguments holding the whole batch), ``"inplace"`` (fills its
      first argument: fill the whole batch's), ``"loop"`` (once per sample),
      or a callable ``(n, args, kwargs) -> result`` drawing ``n`` samples at
      once (a factory given the batch size in front of its size);
    - ``same_batched``: whether one draw shared by every sample may meet a
      batched tensor argument (``rand_like``, dropout: yes; ``bernoulli(p)``,
      ``normal(mean)``: PyTorch refuses, since the draw depends on values);
    - ``inplace_param``: the index of a flag parameter (``inplace=``) that
      makes the call in-place on its first argument.
    """
    __slots__ = ("batch", "same_batched", "inplace_param")

    def __init__(self, batch, same_batched, inplace_param):
        self.batch, self.same_batched, self.inplace_param = batch, same_batched, inplace_param

    def is_inplace(self, args, kwargs):
        if self.batch == "inplace":
            return True
        i = self.inplace_param
        if i is None:
            return False
        return bool(args[i[0]] if len(args) > i[0] else kwargs.get(i[1], False))


def sampling(batch="loop", same_batched=True, inplace_param=None):
    """Mark a public function that draws random numbers (see ``Sampling``).
    Outside the transforms that care about draws the call goes straight
    through (one global read)."""
    def deco(fn):
        pos = None
        if inplace_param is not None:
            pos = (list(inspect.signature(fn).parameters).index(inplace_param), inplace_param)
        how = Sampling(batch, same_batched, pos)

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if draw_guards:
                return draw_guards[-1].sample(fn, how, args, kwargs)
            return fn(*args, **kwargs)
        return wrapper
    return deco


class Generator:
    def __init__(self, device="cpu"):
        check_device(device)
        self._seed = 67280421310721
        self._np = np.random.Generator(np.random.PCG64(self._seed))

    @property
    def _rng(self):
        """The NumPy generator every draw uses (after the open transforms' checks)."""
        if draw_guards:
            draw_guards[-1].check_draw()
        return self._np

    def manual_seed(self, seed):
        """Seed the generator: an int (a negative one counts modulo 2**64, as
        PyTorch's seeds are unsigned 64-bit numbers)."""
        if type(seed) is not int:
            if isinstance(seed, np.integer):
                raise TypeError("an integer is required")
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        if not -(1 << 63) <= seed < (1 << 64):
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % (1 << 64)
        self._np = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self):
        s = int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        st = self._np.bit_generator.state
        raw = (st["state"]["state"].to_bytes(16, "little")
               + st["state"]["inc"].to_bytes(16, "little")
               + int(st["has_uint32"]).to_bytes(4, "little")
               + int(st["uinteger"]).to_bytes(4, "little"))
        return _wrap(np.frombuffer(raw, np.uint8).copy())

    def set_state(self, new_state):
        if not isinstance(new_state, Tensor) or new_state._data.dtype != np.uint8:
            raise TypeError("RNG state must be a tensorplay.ByteTensor")
        if new_state._data.size != _STATE_BYTES:
            raise RuntimeError(f"Expected a Generator state of size {_STATE_BYTES} but found the "
                               f"input RNG state size to be {new_state._data.size}")
        raw = new_state._data.tobytes()
        if raw[32:36] not in (b"\0\0\0\0", b"\1\0\0\0"):
            raise RuntimeError("Invalid Generator state (its buffered-value flag is neither 0 "
                               "nor 1)")
        self._np.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[:16], "little"),
                      "inc": int.from_bytes(raw[16:32], "little")},
            "has_uint32": raw[32], "uinteger": int.from_bytes(raw[36:40], "little")}
        return self

    @property
    def device(self):
        return device("cpu")


default_generator = Generator()


def manual_seed(seed):
    return default_generator.manual_seed(int(seed))


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(new_state):
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type=None):
    """Inside, the default generator may be used freely: its state is restored on
    exit (PyTorch's ``torch.random.fork_rng``; there are no other devices here).

        >>> import tensorplay as tp
        >>> _ = tp.manual_seed(0)
        >>> with tp.random.fork_rng():
        ...     a = tp.rand(2)
        >>> tp.equal(a, tp.rand(2))
        True
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
