"""``nn.attention`` (``torch.nn.attention``): ``SDPBackend`` and the
``sdpa_kernel`` context manager that picks the kernels of
``F.scaled_dot_product_attention``.

tensorplay has one implementation of scaled dot-product attention, the math
one, on the CPU: ``sdpa_kernel`` checks its argument as PyTorch does, so code
written for PyTorch runs unchanged, and has no other effect (whatever the
backends named, the attention computed is the same).

``nn.attention.bias`` (the causal biases ``causal_upper_left`` and
``causal_lower_right``) is a submodule imported on demand, as PyTorch's is.
"""
import contextlib as _contextlib
import enum as _enum

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

# PyTorch warns why its fused kernels cannot run when this is True; there are
# none here, so it is only a flag that can be set
WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(_enum.Enum):
    """The scaled dot-product attention backends, with PyTorch's values."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self):
        return self.value

    def __index__(self):
        return self.value


@_contextlib.contextmanager
def sdpa_kernel(backends, set_priority=False):
    """Run the block with ``backends`` (one ``SDPBackend`` or a list of them)
    selected for scaled dot-product attention, in that priority order with
    ``set_priority``.  Here the math backend computes attention in any case:
    the argument is checked and nothing else changes.  Yields ``{}`` as
    PyTorch's does."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(f"Backend must be an instance of SDPBackend or a list of SDPBackend "
                             f"instances, got {type(backends).__name__}")
    if isinstance(backends, SDPBackend):
        backends = [backends]
    backends = list(dict.fromkeys(backends))        # (PyTorch's dedup; nothing to set)
    yield {}
