"""Top-level spellings PyTorch has for functions that live elsewhere here
(``tensorplay/__init__.py`` takes those it does not define already):
``torch.<name>_(x, ...)`` in-place functions (each ``x.<name>_(...)``), and
``torch.batch_norm``, ``torch.dropout``, ``torch.kl_div``... under PyTorch's
top-level signatures, which differ from ``nn.functional``'s (positional flags,
integer reductions, ``embedding(weight, indices)``, batch_norm's argument
order)."""
from ._tensor import Tensor
from ._warn import warn_once as _warn_once
from . import linalg as _linalg
from .ops.reduction import _return_type
from .ops.ctc import toplevel_ctc_loss as ctc_loss  # noqa: F401   (integer reduction)
from .nn import functional as _functional

# In-place functions: torch.<name>_(x, ...) is x.<name>_(...).  The names are PyTorch's
# top-level in-place functions; each is made from the Tensor method, where tensorplay has it.
_INPLACE_FUNCTIONS = (
    "abs_ acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ as_strided_ asin_ "
    "asinh_ atan_ atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ conj_physical_ cos_ cosh_ deg2rad_ "
    "detach_ erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ index_put_ lcm_ ldexp_ "
    "log10_ log1p_ log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ relu_ resize_as_ "
    "round_ rsqrt_ sigmoid_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_ zero_").split()


def _inplace_function(name, method):
    def f(input, *args, **kwargs):
        return method(input, *args, **kwargs)
    f.__name__ = f.__qualname__ = name
    return f


_made = [n for n in _INPLACE_FUNCTIONS if hasattr(Tensor, n)]
globals().update({n: _inplace_function(n, getattr(Tensor, n)) for n in _made})

# nn.functional under PyTorch's top-level signatures (which differ: positional flags, integer
# reductions, embedding's (weight, indices), batch_norm's argument order).  A loss's reduction
# is an int (0 none, 1 mean, 2 sum), and left out it is 0 in PyTorch 2.x's top-level functions:
# the elementwise losses, not their mean.
_F = _functional
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(name, r, pos):
    if type(r) is not int:
        raise TypeError(f"{name}(): argument 'reduction' (position {pos}) must be int, not {type(r).__name__}")
    return _REDUCTIONS[r]


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled):
    return _F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled):
    return _F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return _F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return _F.group_norm(input, num_groups, weight, bias, eps)


def dropout(input, p, train):
    return _F.dropout(input, p, train)


def dropout_(input, p, train):
    return _F.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    return _F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return _F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    return _F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    return _F.feature_alpha_dropout(input, p, train, inplace=True)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    return _F.embedding(indices, weight, padding_idx if padding_idx >= 0 else None,
                        scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def kl_div(input, target, reduction=0, *, log_target=False):
    return _F.kl_div(input, target, reduction=_reduction("kl_div", reduction, 3), log_target=log_target)


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F.margin_ranking_loss(input1, input2, target, margin,
                                  reduction=_reduction("margin_ranking_loss", reduction, 5))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False, reduction=0):
    return _F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                  reduction=_reduction("triplet_margin_loss", reduction, 8))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    return _F.hinge_embedding_loss(input, target, margin,
                                   reduction=_reduction("hinge_embedding_loss", reduction, 4))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return _F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                               reduction=_reduction("poisson_nll_loss", reduction, 6))


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    return _F.cosine_embedding_loss(input1, input2, target, margin,
                                    reduction=_reduction("cosine_embedding_loss", reduction, 5))


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    return _F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction("binary_cross_entropy_with_logits", reduction, 5),
        pos_weight=pos_weight)


# the deprecated LU functions (PyTorch warns once a process)
_LU_DEPRECATED = (
    "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
    "removed in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced "
    "with\nLU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\nLU, pivots, info = torch.lu(A, "
    "compute_pivots, get_infos=True)\nshould be replaced with\nLU, pivots, info = "
    "torch.linalg.lu_factor_ex(A, compute_pivots)")
_LU_SOLVE_DEPRECATED = (
    "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch "
    "release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, "
    "pivots)\nshould be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)")
_lu_with_info_rt = _return_type("_lu_with_info", ("LU", "pivots", "info"))


def _copy_out(out, results):
    if len(out) != len(results):
        raise TypeError(f"expected {len(results)} out tensors, got {len(out)}")
    for o, r in zip(out, results):
        o.resize_(r.shape)
        o.copy_(r)
    return out


def lu(A, pivot=True, get_infos=False, out=None):
    """``torch.lu`` (deprecated there): ``(LU, pivots)`` of ``linalg.lu_factor_ex``,
    and its ``info`` too with ``get_infos``; a singular matrix is no error."""
    _warn_once(_LU_DEPRECATED)
    LU, pivots, info = _linalg.lu_factor_ex(A, pivot=pivot)
    r = _lu_with_info_rt(LU, pivots, info) if get_infos else (LU, pivots)
    return r if out is None else _copy_out(out, r)


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve`` (deprecated there): ``linalg.lu_solve(LU_data, LU_pivots, b)``."""
    _warn_once(_LU_SOLVE_DEPRECATED)
    X = _linalg.lu_solve(LU_data, LU_pivots, b)
    return X if out is None else _copy_out((out,), (X,))[0]


Tensor.lu = lambda self, pivot=True, get_infos=False: lu(self, pivot, get_infos)
Tensor.lu_solve = lambda self, LU_data, LU_pivots: lu_solve(self, LU_data, LU_pivots)


# the same signature at the top level as in nn.functional (less the inplace flag)
_SAME = ("bilinear", "celu", "selu", "rrelu", "threshold", "prelu", "hardshrink", "pixel_shuffle",
         "pixel_unshuffle", "pairwise_distance", "cosine_similarity", "rms_norm", "celu_", "selu_",
         "rrelu_", "threshold_")
globals().update({n: getattr(_F, n) for n in _SAME})

_COMPILE_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(model=None, *, fullgraph=False, dynamic=None, backend=None, mode=None, options=None, name=None,
            disable=False, **kwargs):
    """``torch.compile``'s signature and argument checks.  tensorplay has no compiler:
    the function or module comes back unchanged and runs eagerly (as PyTorch's
    ``backend="eager"`` would run it, though without its wrapper object, so a
    module's ``state_dict`` keeps its own keys).  Without ``model``, a decorator."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _COMPILE_MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_COMPILE_MODES)}")
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, name=name, disable=disable, **kwargs)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model


def _range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    """PyTorch's deprecated ``range``: ``start`` to ``end`` *inclusive*, in the default
    floating dtype unless ``dtype`` says otherwise (``arange`` excludes ``end``)."""
    import warnings
    from . import _creation
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior "
                  "is inconsistent with Python's range builtin. Instead, use torch.arange, which produces "
                  "values in [start, end).", UserWarning, stacklevel=2)
    if end is None:
        raise TypeError("range() missing 1 required positional arguments: \"end\"")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    import math
    n = int(math.floor((end - start) / step)) + 1
    dt = dtype if dtype is not None else _creation.D.get_default_dtype()
    r = (_creation.arange(n, dtype=_creation.D.float64) * step + start).to(dt)
    if requires_grad:
        r.requires_grad_(True)
    if out is not None:
        out.resize_(r.shape).copy_(r)
        return out
    return r


globals()["range"] = _range     # (the builtin stays ``range`` above: this module defines no loop after)
__all__ = _made + list(_SAME) + ["lu", "lu_solve", "ctc_loss", "compile", "range"] + [
    "batch_norm", "instance_norm", "layer_norm", "group_norm", "dropout", "dropout_", "alpha_dropout",
    "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "embedding", "kl_div",
    "margin_ranking_loss", "triplet_margin_loss", "hinge_embedding_loss", "poisson_nll_loss",
    "cosine_embedding_loss", "binary_cross_entropy_with_logits"]
