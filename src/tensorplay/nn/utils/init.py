"""``skip_init`` (PyTorch's ``torch.nn.utils.init``): a module whose parameters
and buffers are left uninitialized.

PyTorch builds the module on the ``meta`` device (no memory, no initialization
runs) and then allocates empty storage with ``to_empty``.  tensorplay has no
meta device, so the module is built on the CPU as usual and its parameters and
buffers are then replaced by fresh uninitialized (``empty_like``: zero-filled)
tensors of the same shapes and dtypes.  The default generator's state is put
back afterwards, so that, as in PyTorch, ``skip_init`` draws no random numbers
(a seeded program gives the same draws after it as without it).  Only the time
that initialization takes is not saved.
"""
import inspect

from ... import _creation
from ..._random import default_generator
from ..._tensor import check_device
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with its parameters and buffers uninitialized.
    The class must take a ``device`` argument, as in PyTorch.

        >>> import tensorplay as tp
        >>> m = tp.nn.utils.skip_init(tp.nn.Linear, 5, 1)
        >>> m.weight.shape, m.weight.requires_grad
        (tensorplay.Size([1, 5]), True)
    """
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")

    final_device = kwargs.pop("device", "cpu")
    check_device(final_device)
    kwargs["device"] = final_device
    state = default_generator.get_state()
    try:
        module = module_cls(*args, **kwargs)
    finally:
        default_generator.set_state(state)
    return module._apply(lambda t: _creation.empty_like(t))
