"""``functional_call`` and ``stack_module_state`` (``torch.func``): run a module
with its parameters and buffers replaced by given tensors, and stack the
states of several same-shaped modules for ensembling.

The replacement is a swap: for the duration of the call each named entry of
the module's (or a submodule's) ``_parameters``/``_buffers`` holds the given
tensor, and the originals are put back afterwards, also when the call raises.
A given tensor may be any tensor (a function transform's level tensor, a
non-leaf): it is not wrapped in a ``Parameter``.
"""
from collections.abc import Sequence

from .._tensor import Tensor
from ..nn.modules.module import Module
from ..ops.shape import stack

__all__ = ["functional_call", "stack_module_state"]

_MISSING = object()


def _merge(parameter_and_buffer_dicts):
    if isinstance(parameter_and_buffer_dicts, dict):
        return parameter_and_buffer_dicts
    if isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        seen, repeated = set(), []
        for d in parameter_and_buffer_dicts:
            for k in d:
                if k in seen and k not in repeated:
                    repeated.append(k)
                seen.add(k)
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional "
                             f"call is ambiguous")
        return {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, "
                     f"but got {type(parameter_and_buffer_dicts)}")


def _all_named_tensors(module):
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _untie(module, given):
    """``given`` with every name tied to a given one (the same tensor object in
    the module under several names) mapped to that value too."""
    groups = {}
    for name, t in _all_named_tensors(module).items():
        groups.setdefault(id(t), []).append(name)
    out = dict(given)
    for names in groups.values():
        if len(names) < 2:
            continue
        present = [n for n in names if n in given]
        if not present:
            continue
        values = {id(given[n]) for n in present}
        if len(values) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(names)}, which "
                             f"are tied. Consider using tie_weights=False")
        for n in names:
            out.setdefault(n, given[present[0]])
    return out


def _swap(module, name, value):
    """Put ``value`` at dotted ``name`` in ``module``; return what was there
    (``_MISSING`` if nothing)."""
    path, _, leaf = name.rpartition(".")
    owner = module.get_submodule(path) if path else module
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    for store in (owner._parameters, owner._buffers):
        if leaf in store:
            old = store[leaf]
            if value is _MISSING:
                del store[leaf]
            else:
                store[leaf] = value
            return old
    old = getattr(owner, leaf) if hasattr(owner, leaf) else _MISSING
    if old is not _MISSING and old is not None and not isinstance(old, Tensor):
        raise TypeError(f"attribute `{leaf}`: {old} is not an instance of torch.Tensor")
    if value is not _MISSING:
        setattr(owner, leaf, value)
    elif hasattr(owner, leaf):
        delattr(owner, leaf)
    return old


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights=True,
                    strict=False):
    """``module(*args, **kwargs)`` with the named parameters and buffers replaced
    by the given tensors (names as in ``module.named_parameters()``).  Names not
    given keep the module's own tensors (unless ``strict``); with
    ``tie_weights``, a value given for one of several names of the same tensor
    is used for all of them.

        >>> import tensorplay as tp
        >>> lin = tp.nn.Linear(2, 1)
        >>> params = {"weight": tp.ones(1, 2), "bias": tp.zeros(1)}
        >>> tp.func.functional_call(lin, params, (tp.tensor([[1., 2.]]),))
        tensor([[3.]])
    """
    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of torch.nn.Module")
    given = _merge(parameter_and_buffer_dicts)
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    values = _untie(module, given) if tie_weights else given     # (a tied name given counts for all)
    if strict:
        names = set(_all_named_tensors(module))
        missing = sorted(names - set(values))
        unexpected = sorted(set(values) - names)
        errors = []
        if unexpected:
            errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if errors:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
                module._get_name(), "\n\t".join(errors)))
    originals = {}
    try:
        for name, value in values.items():
            originals[name] = _swap(module, name, value)
        return module(*args, **kwargs)
    finally:
        for name, old in reversed(list(originals.items())):
            _swap(module, name, old)


def _stacked_leaf(tensors, name):
    grads = [t.requires_grad for t in tensors]
    if any(grads) and not all(grads):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    out = stack([t.detach() for t in tensors])
    if all(grads):
        out.requires_grad_()
    return out


def stack_module_state(models):
    """``(params, buffers)``: each parameter and buffer of the models stacked
    along a new first dimension, by name; the stacked parameters are new
    leaves that require grad (ready for an optimizer)."""
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval "
                           "mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    params = {k: _stacked_leaf([p[k] for p in all_params], k) for k in all_params[0]}
    all_buffers = [dict(m.named_buffers()) for m in models]
    buffers = {k: _stacked_leaf([b[k] for b in all_buffers], k) for k in all_buffers[0]}
    return params, buffers
