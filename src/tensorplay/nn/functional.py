"""tensorplay.nn.functional: the activation functions (the ops live in tensorplay.ops)."""
from ..ops.pointwise import (gelu, logsigmoid, relu, sigmoid, silu, softplus, tanh)  # noqa: F401
from ..ops import FUNCTIONS as _F

globals().update({k: _F[k] for k in ("softmax", "log_softmax") if k in _F})
