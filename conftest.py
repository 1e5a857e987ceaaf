"""Docstring examples run as doctests with ``tensorplay`` (and ``tp``) in scope,
each from the same seeded random state (``tests/conftest.py`` does the same for
the tests): no example's outcome depends on what ran before it."""
import random

import numpy as np
import pytest

import tensorplay

# One BLAS thread for the suite, as tests/conftest.py gives torch: CI runs its legs side by
# side on two cores, where OpenBLAS's spinning threads made matrix products ~10x slower
tensorplay.set_num_threads(1)


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    import tensorplay
    doctest_namespace["tensorplay"] = tensorplay
    doctest_namespace["tp"] = tensorplay
    tensorplay.manual_seed(0)
    np.random.seed(0)
    random.seed(0)
