"""Small helpers the layer modules share."""
from ... import _creation
from ... import _dtype as D
from ..parameter import Parameter


def empty_param(*shape, dtype=None, requires_grad=True):
    """An uninitialised parameter of ``shape`` (the layer's reset_parameters fills it)."""
    dt = D.get_default_dtype() if dtype is None else D.to_dtype(dtype)
    return Parameter(_creation.empty(*shape, dtype=dt), requires_grad=requires_grad)


def factory_dtype(device, dtype):
    """The ``device=``/``dtype=`` every layer constructor takes (CPU only)."""
    if device is not None and str(device).split(":")[0] != "cpu":
        raise RuntimeError(f"tensorplay runs on the CPU only (got device '{device}')")
    return dtype


def optional_param(module, name, present, *shape, dtype=None):
    """Register parameter ``name`` of ``shape`` on ``module`` (uninitialised), or
    None when ``present`` is false (a layer built with ``bias=False``)."""
    if present:
        setattr(module, name, empty_param(*shape, dtype=dtype))
    else:
        module.register_parameter(name, None)
