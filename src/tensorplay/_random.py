"""Random number generation: a ``Generator`` wraps NumPy's PCG64."""
import pickle

import numpy as np

from ._tensor import _wrap, check_device, device


class Generator:
    def __init__(self, device="cpu"):
        check_device(device)
        self._seed = 67280421310721
        self._rng = np.random.Generator(np.random.PCG64(self._seed))

    def manual_seed(self, seed):
        self._seed = int(seed)
        self._rng = np.random.Generator(np.random.PCG64(self._seed))
        return self

    def seed(self):
        s = int(np.random.SeedSequence().entropy) & ((1 << 63) - 1)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        return self._seed

    def get_state(self):
        return _wrap(np.frombuffer(pickle.dumps(self._rng.bit_generator.state), np.uint8).copy())

    def set_state(self, state):
        self._rng.bit_generator.state = pickle.loads(state._data.tobytes())
        return self

    @property
    def device(self):
        return device("cpu")


default_generator = Generator()


def manual_seed(seed):
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)
