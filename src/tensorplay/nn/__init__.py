"""tensorplay.nn: ``Module`` and the layers, ``Parameter``/``Buffer``, ``functional``,
``init`` and ``utils`` (as ``torch.nn``)."""
from .parameter import Buffer, Parameter
from . import functional, init
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from . import modules, parameter, utils  # noqa: F401

__all__ = ["Parameter", "Buffer"] + list(_modules_all)
