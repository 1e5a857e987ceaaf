"""tensorplay.nn.functional: the activation functions (the ops live in tensorplay.ops)."""
from ..ops.pointwise import (gelu, logsigmoid, relu, sigmoid, silu, softplus, tanh)  # noqa: F401
from ..ops.reduction import (_functional_log_softmax as log_softmax,  # noqa: F401
                             _functional_softmax as softmax)

__all__ = ["gelu", "log_softmax", "logsigmoid", "relu", "sigmoid", "silu", "softmax",
           "softplus", "tanh"]
