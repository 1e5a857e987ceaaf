"""set_num_threads/get_num_threads: PyTorch's checks, and a number that sticks."""
import pytest

import tensorplay as tp
from conftest import exact


def test_set_and_get_num_threads():
    before = tp.get_num_threads()
    assert isinstance(before, int) and before >= 1
    try:
        tp.set_num_threads(1)
        assert tp.get_num_threads() == 1
        a = tp.randn(64, 64, dtype=tp.float64)
        assert tp.allclose(a @ tp.eye(64, dtype=tp.float64), a)    # products still right
        tp.set_num_threads(2)
        assert tp.get_num_threads() in (1, 2)    # OpenBLAS caps at the cores it was built for
    finally:
        tp.set_num_threads(before)
    assert tp.get_num_threads() == before


@pytest.mark.parametrize("bad,err", [(0, "set_num_threads expects a positive integer"),
                                     (-1, "set_num_threads expects a positive integer"),
                                     (1.5, "set_num_threads expects an int, but got float")])
def test_set_num_threads_refuses_what_torch_refuses(bad, err):
    with pytest.raises(RuntimeError, match=exact(err)):
        tp.set_num_threads(bad)
