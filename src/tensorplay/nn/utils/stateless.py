"""``nn.utils.stateless`` (``torch.nn.utils.stateless``): ``functional_call``,
PyTorch's deprecated spelling of ``tensorplay.func.functional_call``."""
import warnings

from ...func._functional_call import functional_call as _functional_call

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """``tensorplay.func.functional_call`` (deprecated here, as in PyTorch 2.x):
    ``module(*args, **kwargs)`` with its named parameters and buffers replaced
    by the given tensors for the duration of the call."""
    warnings.warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and "
                  "will be removed in a future version of PyTorch. Please use "
                  "`torch.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                            strict=strict)
