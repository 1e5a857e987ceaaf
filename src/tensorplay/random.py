"""tensorplay.random: the default generator's seed and state (PyTorch's ``torch.random``)."""
from ._random import (default_generator, fork_rng, get_rng_state, initial_seed,  # noqa: F401
                      manual_seed, seed, set_rng_state)

__all__ = ["default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]
