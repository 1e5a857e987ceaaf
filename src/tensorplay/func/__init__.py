"""Composable function transforms, as ``torch.func``: ``grad``,
``grad_and_value``, ``vjp``, ``jvp``, ``linearize``, ``jacrev``, ``jacfwd``,
from ._vmap import vmap
from ._functional_call import functional_call, stack_module_state

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "stack_module_state", "vjp", "vmap"]
forward: ``autograd.forward_ad``'s dual levels), so they nest to any depth
without confusing one level's perturbation with another's.

    >>> import tensorplay as tp
    >>> from tensorplay.func import grad
    >>> x = tp.tensor(1.)
    >>> grad(lambda x: x * grad(lambda y: x + y)(x))(x)     # 1, not 2
    tensor(1.)
"""
from ._eager import grad, grad_and_value, jvp, linearize, vjp
from ._jac import hessian, jacfwd, jacrev
from ._vmap import vmap
from ._functional_call import functional_call, stack_module_state

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "stack_module_state", "vjp", "vmap"]
