"""Grad modes (``torch.autograd.grad_mode``).  They are state of the autograd
core, below Tensor (``tensorplay/_autograd/grad_mode.py``); this module is
where the public API names them."""
from .._autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                                   is_inference_mode_enabled, no_grad, set_grad_enabled,
                                   _DecoratorContextManager, _NoParamDecoratorContextManager)
