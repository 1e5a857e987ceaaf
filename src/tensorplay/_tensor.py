"""The Tensor: a NumPy array plus the autograd record of where it came from.

Attributes on the hot path are plain slots (``_data``, ``_rg``, ``_gfn``);
everything rarer is read with a default so that making a tensor costs three
stores.  Ops, methods and operators are attached by ``tensorplay.ops``.
"""
import copy
import sys
import weakref

import numpy as np

from . import _dtype as D
from ._autograd.grad_mode import state
from ._autograd.graph import AccumulateGrad, ErrorNode, RemovableHandle
from ._print import tensor_repr
from ._warn import warn as _warn_user

_ndarray = np.ndarray
_new = object.__new__
_getrefcount = sys.getrefcount
# How many references a gradient has when only the engine holds it as
# AccumulateGrad runs: the node's input buffer, what the call of
# ``_accumulate_grad(grads[0], ...)`` holds (interpreters differ: 3.9 and 3.10
# keep one more than 3.11), the parameter, getrefcount's own.  engine.py clears
# its loop variables (the last gradient, the last node's results) before it
# runs a node, so one more reference, say a tensor a hook returned and the user
# kept, means the gradient is shared and is copied.  The count is measured here
# on a call of the same shape rather than assumed.  Checked on CPython up to
# 3.13; newer interpreters may borrow references without counting them, so
# there every first gradient is copied instead.


class _Holder:
    def _accumulate_grad(self, g, create_graph):
        return _getrefcount(g)


class _Probe:
    """Calls as ``AccumulateGrad.apply`` does."""

    def __init__(self):
        self.holder = _Holder()

    def apply(self, grads):
        v = self.holder
        return v._accumulate_grad(grads[0], False)


_PRIVATE_REFS = (_Probe().apply([object()])
                 if sys.implementation.name == "cpython" and sys.version_info < (3, 14) else -1)
del _Holder, _Probe


class _InferenceVersion:
    """The version counter of an inference tensor, which has none (PyTorch):
    reading it is saving the tensor for backward, which is refused."""
    __slots__ = ()

    def __getitem__(self, i):
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
            "inference mode in computation tracked by autograd. To work around this, you can make a "
            "clone to get a normal tensor and use it in autograd, or use `tensorplay.no_grad()` "
            "instead of `tensorplay.inference_mode()`.")

    def __repr__(self):
        return "<no version counter: inference tensor>"


INFERENCE_VERSION = _InferenceVersion()


class TensorMeta:
    """Shape and dtype of a tensor: saved in place of an input whose backward
    needs only those."""
    __slots__ = ("shape", "dtype", "ndim")

    def __init__(self, data):
        self.shape, self.dtype, self.ndim = data.shape, data.dtype, data.ndim

    def size(self, dim=None):
        return Size(self.shape) if dim is None else self.shape[dim]

    def dim(self):
        return self.ndim

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n


def validate_grad(node, g, i):
    """Make gradient ``g`` for input ``i`` of ``node`` fit that input, whose shape
    and NumPy dtype are ``node.input_meta[2*i : 2*i+2]``: sum over broadcast
    dimensions, take the real part for a real input, cast.  A shape that cannot
    come from broadcasting is the node's bug: PyTorch's error."""
    try:
        gd = g._data
    except AttributeError:
        raise TypeError(f"Function {node.name()} returned an invalid gradient at index {i} - "
                        f"expected a Tensor or None, got {type(g).__name__}") from None
    meta = node.input_meta
    shape = meta[2 * i]
    dtype = meta[2 * i + 1]
    if gd.shape != shape:
        if not _expandable(shape, gd.shape):
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"{list(gd.shape)} but expected shape compatible with {list(shape)}")
        g = g.sum_to_size(shape)
        gd = g._data
    if gd.dtype != dtype:
        if gd.dtype.kind == "c" and dtype.kind != "c":
            g = g.real
        g = g.to(D._FROM_NP[dtype])
    return g


def _expandable(shape, to):
    """True if ``shape`` broadcasts to ``to``."""
    if len(shape) > len(to):
        return False
    for a, b in zip(reversed(shape), reversed(to)):
        if a != b and a != 1:
            return False
    return True


class Size(tuple):
    """``tensor.shape``: a tuple that prints as ``tensorplay.Size([...])``."""
    __slots__ = ()

    def __repr__(self):
        return f"tensorplay.Size({list(self)})"

    def __getitem__(self, i):           # (a slice of a Size is a Size, as in PyTorch)
        r = tuple.__getitem__(self, i)
        return Size(r) if type(i) is slice else r

    def __add__(self, other):
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):          # ((1,) + size: Python asks the subclass first)
        return Size(tuple.__add__(tuple(other), self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n


# set_'s node when it is recorded (PyTorch names it so): no derivative
_SetNode = type("NotImplemented", (ErrorNode,), {"__slots__": ()})


def _has_tangent(t):
    """Whether ``t`` has a forward-mode tangent at an open level."""
    d = t.__dict__.get("_fw_grads")
    return bool(d) and any(v is not None for v in d.values())


def like_hook(t):
    """The hook that makes ``zeros_like(t)``, ``t.new_zeros(...)`` & co. when ``t``
    is not a plain tensor but knows how (a vmap batched tensor: ``_make_like``),
    else None."""
    return None if type(t) is Tensor else getattr(t, "_make_like", None)


def _wrap(data, rg=False):
    t = _new(Tensor)
    t._data = data
    t._rg = rg
    t._gfn = None
    t._vc = t._base = None
    return t


def _as_array(data, dt=None):
    """Array for ``tensor()``.  The dtype is inferred as PyTorch does: Python
    floats take the default dtype, ints int64, NumPy scalars and arrays and
    tensors their own dtype, all promoted together."""
    if isinstance(data, Tensor):
        a = data._data
    elif isinstance(data, np.ndarray):
        a = data
    else:
        infer = _infer_dtype(data) if dt is None else None
        a = np.array(_to_nested(data))
        if infer is D.int64 and a.dtype.kind != "i":
            # Python ints beyond int64 (NumPy made them uint64, float64 or objects): PyTorch
            # refuses them; the cast below would wrap them silently
            raise ValueError("Overflow when unpacking long long")
        if infer is not None and a.dtype != infer.np:
            a = a.astype(infer.np)
    if dt is not None:
        npdt = D.to_dtype(dt).np
        if a.dtype != npdt and npdt.kind in "iu" and a is not data and not isinstance(data, Tensor):
            _check_int_range(a, npdt)       # (Python numbers: PyTorch converts each checked)
        if a.dtype.kind == "c" and npdt.kind not in "c" and not isinstance(data, (Tensor, np.ndarray)):
            if npdt.kind == "b":                # (PyTorch: bool of a Python complex, nonzero)
                return a != 0
            raise TypeError("must be real number, not complex")     # (PyTorch's, for a Python complex)
        return a.astype(npdt, copy=False) if a.dtype != npdt else a
    if a.dtype not in D._FROM_NP:
        D.from_numpy_dtype(a.dtype)          # raises the standard message
    return a


def _check_int_range(a, npdt):
    """``tensor(data, dtype=<integer type>)`` of Python numbers: PyTorch's refusal
    of a value the type cannot hold (NumPy would wrap 300 into int8 as 44): an
    integer may wrap into an unsigned type down to -max, a float may not, and
    NaN or inf never fits."""
    if a.size == 0 or a.dtype.kind not in "iuf":
        return
    lo, hi, unsigned = D._RANGES.get(npdt) or D._range(npdt)
    if a.dtype.kind == "f":
        bad = not np.isfinite(a).all() or a.min() < (0 if unsigned else lo) or a.max() > hi
    else:
        bad = int(a.min()) < lo or int(a.max()) > hi
    if bad:
        raise RuntimeError(f"value cannot be converted to type {npdt.name} without overflow")


def _scalar_type(v):
    if isinstance(v, Tensor):
        return v.dtype
    if isinstance(v, (np.ndarray, np.generic)):
        return D.from_numpy_dtype(v.dtype)
    d = D.scalar_dtype(v)
    if d is None:
        if isinstance(v, (bool, int, float, complex)):     # subclasses of the Python numbers
            return D.scalar_dtype(type(v).__mro__[-2](v)) or D.get_default_dtype()
        raise TypeError(f"new(): invalid data type '{type(v).__name__}'")
    return d


_SEQUENCES = (list, tuple, range)     # (PyTorch takes any Python sequence; these are the usual)


def _infer_dtype(data):
    """Walk nested sequences level by level: check they are rectangular and
    promote the scalar types of the elements."""
    if not isinstance(data, _SEQUENCES):
        return _scalar_type(data)
    result = None
    level, dim = [data], 0
    while level:
        n = None
        nxt = []
        for seq in level:
            if isinstance(seq, _SEQUENCES):
                if n is None:
                    n = len(seq)
                elif len(seq) != n:
                    raise ValueError(f"expected sequence of length {n} at dim {dim} (got {len(seq)})")
                nxt.extend(seq)
            else:
                if n is not None:
                    raise ValueError(f"expected sequence of length {n} at dim {dim} (got "
                                     f"{len(seq) if hasattr(seq, '__len__') else 0})")
                d = _scalar_type(seq)
                result = d if result is None else D.promote_types(result, d)
        if n is None:
            break
        level, dim = nxt, dim + 1
        if not nxt:
            break
    return result or D.get_default_dtype()


def _to_nested(x):
    if isinstance(x, Tensor):       # (an element of a sequence: PyTorch takes it as a scalar)
        d = x._data
        if d.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return d.reshape(())
    if isinstance(x, _SEQUENCES):
        return [_to_nested(v) for v in x]
    return x


class Tensor:
    __slots__ = ("_data", "_rg", "_gfn", "_out_nr", "_vc", "_base", "_grad",
                 "_view_version", "_view_chain", "_nograd_view", "__dict__", "__weakref__")
    # rarely set, so not slots: a tensor without them reads these defaults (no exception)
    _inference = False          # made under inference_mode
    _conj_copy = False          # the result of conj() of a complex tensor (ops/pointwise.py)
    _acc = None                 # a leaf's AccumulateGrad (which holds the leaf weakly)
    _views = None               # a root base's ViewList of its live views (ops/_registry.py)
    _fn_view = None             # (output index, Function name): a custom Function's output that
    #                             is a view of (or is) an input: not to be written in place
    __array_priority__ = 1000          # ndarray (op) Tensor defers to Tensor's reflected ops

    def __new__(cls, *args, **kwargs):
        if len(args) == 1 and isinstance(args[0], Tensor) and cls is Tensor:
            return args[0]._alias()         # legacy Tensor(other): an alias, as in PyTorch
        return _new(cls)

    def __init__(self, *args, device=None):
        # the legacy constructor: Tensor(sequence), Tensor(*sizes), Tensor(Size), Tensor()
        # (default dtype), Tensor(other) (an alias of other, made by __new__)
        if len(args) == 1 and isinstance(args[0], Tensor):
            return
        check_device(device)
        _legacy_init(self, args, D.get_default_dtype())

    # ------------------------------------------------------------ metadata
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        if self._data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    def dim(self):
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self):
        return self._data.ndim

    def numel(self):
        return self._data.size

    nelement = numel

    def element_size(self):
        return self._data.itemsize

    @property
    def dtype(self):
        return D._FROM_NP[self._data.dtype]

    @property
    def device(self):
        return _CPU

    @property
    def is_cuda(self):
        return False

    # the CPU, in strided (dense) layout, is the only place and form a tensor has here
    is_cpu = property(lambda self: True, doc="True: tensorplay computes on the CPU.")
    layout = property(lambda self: strided, doc="``tensorplay.strided``: dense memory.")
    is_sparse = is_sparse_csr = is_quantized = is_meta = is_nested = is_mkldnn = property(
        lambda self: False, doc="False: tensorplay has dense CPU tensors only.")
    is_xpu = is_mps = is_ipu = is_xla = is_vulkan = is_maia = is_mtia = is_sparse

    def is_neg(self):
        """False: negation is computed, never a lazy bit of the tensor."""
        return False

    def dim_order(self, *, ambiguity_check=False):
        """The dimensions from the outermost in memory to the innermost (by stride,
        ties in order); ``ambiguity_check=True`` refuses a tensor whose order two
        equal strides leave open."""
        st = self.stride()
        if ambiguity_check is not False and len(set(st)) != len(st):
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact "
                               "one of the given memory formats.")
        return tuple(sorted(range(len(st)), key=lambda i: -st[i]))

    def is_floating_point(self):
        return self._data.dtype.kind == "f" or self._data.dtype in D.LOW_PRECISION

    def is_complex(self):
        return self._data.dtype.kind == "c"

    def stride(self, dim=None):
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[_wrap_dim(dim, self._data.ndim)]

    def is_contiguous(self, memory_format=None):
        if memory_format is None or memory_format is contiguous_format:
            return self._data.flags.c_contiguous
        if memory_format is preserve_format:
            raise RuntimeError("is_contiguous: memory_format preserve_format is not supported")
        return _is_layout(self._data, memory_format)

    def data_ptr(self):
        return self._data.__array_interface__["data"][0]

    # ------------------------------------------------------------ storage
    def storage_offset(self):
        """Where this tensor starts in its storage, in elements."""
        d = self._data
        return storage_offset_in(d, storage_root(d))

    def untyped_storage(self):
        """The memory this tensor's array lives in (shared by its views), as bytes."""
        return UntypedStorage(storage_root(self._data))

    def storage(self):
        """The storage as elements of this tensor's dtype (PyTorch's deprecated TypedStorage)."""
        _warn_typed_storage()
        return TypedStorage(storage_geometry(self._data)[0], self._data.dtype)

    def set_(self, source=None, storage_offset=0, size=None, stride=None):
        """Make this tensor use ``source``'s memory (a tensor or a storage; with
        ``size``/``stride``, a strided window of it), or an empty one.  With grad
        recorded, a tensor that requires grad (or takes a source that does) gets
        PyTorch's ``NotImplemented`` node: a backward through it raises."""
        if state.enabled and self._rg and self._gfn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        if _has_tangent(self) or isinstance(source, Tensor) and _has_tangent(source):
            raise NotImplementedError(
                "Trying to use forward AD with set_ that does not support it because it has not been "
                "implemented yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/"
                "issues/new?template=feature-request.yml so that we can prioritize its implementation.")
        dt = self._data.dtype
        if source is None:
            data = np.empty((0,), dt)
        elif isinstance(source, Tensor) and size is None:
            if source._data.dtype != dt:
                raise RuntimeError(f"Expected object of scalar type {_SCALAR_NAMES[self.dtype.name]}"
                                   f" but got scalar type {_SCALAR_NAMES[source.dtype.name]} for "
                                   "argument 'source'")
            data = source._data
        else:
            if isinstance(source, Tensor):
                if source._data.dtype != dt:
                    raise RuntimeError(f"Expected object of scalar type {_SCALAR_NAMES[self.dtype.name]}"
                                       f" but got scalar type {_SCALAR_NAMES[source.dtype.name]} for "
                                       "argument 'source'")
                root = storage_geometry(source._data)[0]
            elif isinstance(source, (UntypedStorage, TypedStorage)):
                root = source._root
            else:
                raise TypeError(f"set_(): argument 'source' must be Tensor or Storage, not "
                                f"{type(source).__name__}")
            flat = _as_elements(root, dt)
            if size is None:
                size, stride = (flat.size - storage_offset,), (1,)
            size = tuple(int(s) for s in size)
            if stride is None:
                stride = _contiguous_strides(size)
            data = np.lib.stride_tricks.as_strided(
                flat[storage_offset:], size, tuple(s * dt.itemsize for s in stride),
                writeable=flat.flags.writeable)
        if state.enabled and (self._rg or isinstance(source, Tensor) and source._rg):
            ins = [self] + ([source] if isinstance(source, Tensor) else [])
            self._gfn = _SetNode("derivative for set_ is not implemented", ins)
            self._rg, self._out_nr = True, 0
        self._data = data
        self._bump()
        self._new_accumulator()
        return self

    def _new_accumulator(self):
        """A leaf given new memory (``set_``) is a new variable to autograd, as in
        PyTorch: graphs recorded before keep the old accumulator, so
        ``autograd.grad`` of them finds the leaf unused (its GradientEdge still works)."""
        if self._gfn is None and self.__dict__.get("_acc") is not None:
            del self.__dict__["_acc"]

    def resize_(self, *sizes, memory_format=None):
        """Give this tensor the shape ``sizes``, reusing its storage where it is
        large enough (elements beyond it are new and zero)."""
        if self._rg:
            raise RuntimeError("cannot resize variables that require grad")
        if _has_tangent(self):
            raise RuntimeError("cannot resize variables that has a forward grad")
        shape = size_arg(sizes)
        if shape == self._data.shape and memory_format is None:
            return self                 # nothing changes: no version bump, as in PyTorch
        n = 1
        for s in shape:
            n *= s
        root, offset, _ = storage_geometry(self._data)
        dt = self._data.dtype
        flat = _as_elements(root, dt)
        if offset + n <= flat.size:
            data = flat[offset:offset + n].reshape(shape)
        else:
            data = np.zeros(n, dt)
            old = flat[offset:offset + n]
            data[:old.size] = old
            data = data.reshape(shape)
        if memory_format is not None and memory_format.perm is not None:
            # the same storage read with the format's strides (PyTorch's resize_ keeps
            # the storage; copying into the layout would move the values)
            _check_format(data, memory_format)
            perm = memory_format.perm
            data = data.reshape(-1).reshape(tuple(shape[p] for p in perm)).transpose(np.argsort(perm))
        self._data = data
        self._bump()
        return self

    def resize_as_(self, other, memory_format=None):
        return self.resize_(other.shape, memory_format=memory_format)

    def new(self, *args, **kwargs):
        """Legacy constructor of this tensor's dtype: ``new()`` (empty),
        ``new(2, 3)`` / ``new(Size)`` (a new tensor of that shape), ``new(data)``,
        ``new(tensor)`` (sharing its memory)."""
        unknown = set(kwargs) - {"device"}
        if unknown:
            raise TypeError(f"new() received an invalid combination of arguments - got an "
                            f"unexpected keyword argument '{sorted(unknown)[0]}'")
        check_device(kwargs.get("device"))
        dt = self._data.dtype
        if not args:
            return _wrap(np.empty((0,), dt))
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0]._data.dtype != dt:
                raise TypeError(f"expected {self.type()} (got {args[0].type()})")
            t = _wrap(args[0]._data)
            t._vc = args[0]._shared_version()
            return t
        if len(args) == 1 and isinstance(args[0], (UntypedStorage, TypedStorage)):
            return _wrap(_as_elements(args[0]._root, dt))
        if isinstance(args[0], Size) or all(isinstance(a, int) and not isinstance(a, bool)
                                            for a in args):
            return _wrap(np.zeros(size_arg(args), dt))
        if len(args) == 1:
            return _wrap(np.array(_as_array(args[0]), dtype=dt))
        raise TypeError("new() received an invalid combination of arguments")

    # ------------------------------------------------------------ autograd attributes
    @property
    def requires_grad(self):
        return self._rg

    @requires_grad.setter
    def requires_grad(self, flag):
        if type(flag) is not bool:
            raise RuntimeError("requires_grad must be a bool")
        self._set_requires_grad(flag, "only Tensors of floating point and complex dtype can "
                                      "require gradients")

    @requires_grad.deleter
    def requires_grad(self):
        raise RuntimeError(_UNDELETABLE["requires_grad"])

    @property
    def _backward_hooks(self):
        """PyTorch's attribute: None unless code set it (tensorplay keeps a
        tensor's hooks elsewhere; code that rebuilds tensors sets it)."""
        return self.__dict__.get("_backward_hooks")

    @_backward_hooks.setter
    def _backward_hooks(self, hooks):
        self.__dict__["_backward_hooks"] = hooks

    @_backward_hooks.deleter
    def _backward_hooks(self):
        raise RuntimeError(_UNDELETABLE["_backward_hooks"])

    def _is_view(self):
        """Whether this tensor is a view of another (shares its memory and history)."""
        return self._base is not None or self._fn_view is not None

    def __dir__(self):
        # the slots this tensor has not set are not attributes of it
        return [n for n in object.__dir__(self) if n not in _SLOTS or hasattr(self, n)]

    def _set_requires_grad(self, flag, dtype_msg):
        if self.grad_fn is not None:
            if flag and dtype_msg.startswith("only Tensors of floating point dtype"):
                return                       # requires_grad_() on a non-leaf: already true
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables." if flag else
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if flag and not _differentiable_dtype(self._data.dtype):
            raise RuntimeError(dtype_msg)
        if flag and getattr(self, "_inference", False) and not state.inference:
            raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                               "InferenceMode is not allowed.")
        self._rg = flag

    def requires_grad_(self, requires_grad=True):
        if type(requires_grad) is not bool:
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be "
                            f"bool, not {type(requires_grad).__name__}")
        self._set_requires_grad(requires_grad,
                                "only Tensors of floating point dtype can require gradients")
        return self

    @property
    def grad_fn(self):
        if self._base is not None and self._view_version != self._vc[0]:
            self._refresh_history()
        return self._gfn

    @property
    def is_leaf(self):
        if self._base is not None and self._view_version != self._vc[0]:
            self._refresh_history()
        return self._gfn is None

    def _refresh_history(self):
        """A view whose memory was written in place (through itself, its base or
        another view) since its history was made takes the history "view of its
        base's current value", when that history is next needed, as PyTorch
        regenerates a view's grad_fn.  Every reader of a view's ``_grad_fn`` that
        needs it current checks ``_view_version`` against the version first and
        calls this; ``tensorplay.ops.views`` supplies it."""
        raise NotImplementedError

    @property
    def output_nr(self):
        return getattr(self, "_out_nr", 0)

    @property
    def grad(self):
        if self.grad_fn is not None and not getattr(self, "__dict__", {}).get("_retains_grad"):
            _warn_user("The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                       "Its .grad attribute won't be populated during autograd.backward(). If you "
                       "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                       ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                       "mistake, make sure you access the leaf Tensor instead. See "
                       "github.com/pytorch/pytorch/pull/30531 for more informations.")
        return getattr(self, "_grad", None)

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                t = type(value)
                name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {name}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value._data.shape)}' "
                                   f"to a tensor of size '{list(self._data.shape)}'. Please ensure "
                                   "that the gradient and the tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_CPP_NAMES[value.dtype.name]}' to "
                    f"a tensor with grad_dtype '{_SCALAR_NAMES[self.dtype.name]}'. The gradient must "
                    "match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
                    "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. "
                    "Set grad_dtype with caution. Diverging the dtypes of a tensor and its gradient "
                    "may break downstream systems that assume they match.")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    def is_inference(self):
        return self._inference

    def _make_inference(self):
        """Mark a tensor made under inference_mode: no version counter (saving it for
        backward raises), no in-place updates outside inference_mode."""
        self._inference = True
        self._vc = INFERENCE_VERSION

    def _edge(self):
        """The (node, input_nr) a gradient for this tensor flows into."""
        if self._base is not None and self._view_version != self._vc[0]:
            self._refresh_history()
        fn = self._gfn
        if fn is not None:
            return (fn, getattr(self, "_out_nr", 0))
        acc = self._acc
        if acc is None:
            acc = self._acc = AccumulateGrad(self)
        return (acc, 0)

    def _has_nan(self):
        """True if an element is NaN (anomaly mode asks this of every gradient)."""
        d = self._data
        if d.dtype.kind not in "fcV":
            return False
        if d.dtype.kind == "V" or d.dtype.itemsize < 4:      # bfloat16 / float16
            d = d.astype(np.float32)
        return bool(np.isnan(d).any())

    def _accumulate_grad(self, g, create_graph):
        if g is None:
            return
        old = getattr(self, "_grad", None)
        if old is None:
            # Keep the incoming gradient's memory only if nothing else can see it (as
            # PyTorch steals a gradient whose use count says it is private); a gradient
            # that reaches two leaves (x + y), or the user's own seed, is copied, so
            # that an in-place change of one .grad never shows in another tensor.
            a = g._data
            private = a.base is None and _getrefcount(a) <= 3 and _getrefcount(g) <= _PRIVATE_REFS
            if create_graph:
                self._grad = g if private else g.clone()
            elif a.strides != self._data.strides and a.size > 1:
                self._grad = _wrap(_in_layout_of(a, self._data))
            else:
                self._grad = _wrap(a if private else a.copy())
        elif create_graph or state.enabled:
            self._grad = old + g
        else:
            # in place, as PyTorch: the stored gradient is private (see above) or one the
            # user assigned (e.g. a view of a flat buffer), which must see the sum
            od = old._data
            if od.flags.writeable and od.dtype == g._data.dtype and od.shape == g._data.shape:
                np.add(od, g._data, out=od)
            else:
                old._data = od + g._data
            old._bump()
        hooks = self.__dict__.get("_post_acc_hooks")
        if hooks:
            for h in tuple(hooks.values()):
                r = h(self)
                if r is not None and r is not self:     # (self: an in-place op's result)
                    if not isinstance(r, Tensor):
                        raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")

    def _bump(self):
        v = getattr(self, "_vc", None)
        if v is None:
            self._vc = [1]
        elif v is not INFERENCE_VERSION:
            v[0] += 1

    @property
    def _version(self):
        """How many times this tensor's memory was written in place (shared with
        its views and ``detach()``), as PyTorch's ``Tensor._version``."""
        v = getattr(self, "_vc", None)
        if v is INFERENCE_VERSION:
            raise RuntimeError("Inference tensors do not track version counter.")
        return 0 if v is None else v[0]

    # ------------------------------------------------------------ detaching, data
    def detach(self):
        t = _wrap(self._data)
        t._vc = self._shared_version()
        if self._inference:
            t._inference = True
        return t

    def detach_(self):
        if getattr(self, "_base", None) is not None and self.grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        if self._gfn is not None:
            self.__dict__["_detached_inplace"] = True   # a node that saved it refuses to use it
        self._gfn = None
        self._rg = False
        if self.__dict__.get("_fw_grads"):              # (and its forward-mode tangents go too)
            self.__dict__["_fw_grads"].clear()
        return self

    def _shared_version(self):
        v = getattr(self, "_vc", None)
        if v is None:
            v = self._vc = [0]
        return v

    @property
    def data(self):
        return _wrap(self._data)

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
        if self._rg and not (value._data.dtype.kind in "fc" or value._data.dtype in D.LOW_PRECISION):
            raise RuntimeError("data set to a tensor that requires gradients must be floating point "
                               "or complex dtype")
        self._data = value._data

    @data.deleter
    def data(self):
        raise RuntimeError(_UNDELETABLE["data"])

    # ------------------------------------------------------------ conversion
    def numpy(self, *, force=False):
        if self._rg and not force and state.enabled:       # (allowed under no_grad, as PyTorch)
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. "
                               "Use tensor.detach().numpy() instead.")
        return self._data

    def __array__(self, dtype=None, copy=None):
        a = self.numpy()
        if dtype is not None and a.dtype != dtype:
            return a.astype(dtype)
        return a.copy() if copy else a

    # ------------------------------------------------------------ DLPack (zero-copy exchange)
    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """This tensor's memory as a DLPack capsule (no copy unless ``copy=True``),
        for ``numpy.from_dlpack``, ``torch.from_dlpack`` and the like."""
        if self._rg:
            raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
        if stream is not None and stream != -1:
            raise BufferError(f"stream must be None (or -1) for a CPU tensor, got {stream!r}")
        kw = {}
        if max_version is not None:
            kw["max_version"] = max_version
        if dl_device is not None:
            kw["dl_device"] = dl_device
        if copy is not None:
            kw["copy"] = copy
        try:
            return self._data.__dlpack__(stream=None, **kw)
        except BufferError as e:
            if self._data.dtype in D.LOW_PRECISION and self._data.dtype.kind == "V":
                raise BufferError("DLPack export of bfloat16 is not supported: NumPy, which holds "
                                  "tensorplay's memory, cannot describe it; convert with "
                                  ".float() first") from None
            raise e

    def __dlpack_device__(self):
        """(kDLCPU, 0): tensorplay's memory is on the CPU."""
        return (1, 0)

    def item(self):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        v = self._data.reshape(()).item()
        if self._data.dtype in D.LOW_PRECISION:
            v = float(v)
        return v

    def tolist(self):
        if self._data.dtype in D.LOW_PRECISION:
            return self._data.astype(np.float32).tolist()
        return self._data.tolist()

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def _scalar(self, kind):
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        v = self._data.reshape(())
        if v.dtype.kind == "c" and kind is not complex:     # (PyTorch: the real part, when exact)
            if v.imag != 0:
                raise RuntimeError(f"value cannot be converted to type "
                                   f"{'double' if kind is float else 'int64_t'} without overflow")
            v = v.real
        return kind(v.astype(np.float64) if v.dtype in D.LOW_PRECISION else v)

    def __float__(self):
        return self._scalar(float)

    def __int__(self):
        return self._scalar(int)

    def __complex__(self):
        return self._scalar(complex)

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with "
                               f"{'no values' if self._data.size == 0 else 'more than one value'} "
                               "is ambiguous")
        return bool(self._data.reshape(()))

    def __contains__(self, element):
        """``element in t``: whether any element equals it (PyTorch's rule: a
        tensor or a number, compared elementwise)."""
        if isinstance(element, (Tensor, bool, int, float, complex, np.number, np.bool_)):
            return bool((element == self).any())
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                           f"{type(element)}.")

    def __hash__(self):
        return id(self)

    def __reduce_ex__(self, proto):
        return (_rebuild, (self._data, self._rg))

    def __deepcopy__(self, memo):
        if self.grad_fn is not None:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                               "the deepcopy protocol at the moment.  If you were attempting to "
                               "deepcopy a module, this may be because of a torch.nn.utils.weight_norm "
                               "usage, see https://github.com/pytorch/pytorch/pull/103001")
        t = type(self).__new__(type(self))
        t._data, t._rg, t._gfn = _deepcopy_data(self._data, memo), self._rg, None
        t._vc = t._base = None
        memo[id(self)] = t
        g = getattr(self, "_grad", None)
        if g is not None:
            t._grad = g.__deepcopy__(memo)
        for k, v in self.__dict__.items():      # a user's attributes (tensorplay's own start with _)
            if not k.startswith("_"):
                t.__dict__[k] = copy.deepcopy(v, memo)
        return t

    # ------------------------------------------------------------ misc tensor API
    # backward() is attached by tensorplay.autograd (above the ops), as the op
    # methods are by tensorplay.ops

    def register_hook(self, hook):
        """Run ``hook(grad)`` whenever the gradient for this tensor is computed; a
        non-None return value replaces the gradient.  Returns a handle with ``remove()``."""
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        node, nr = self._edge()
        hooks = node.tensor_pre_hooks(nr)
        handle = RemovableHandle(hooks, _checked_hook(hook))
        retain = hooks.pop(_RETAIN_KEY, None)
        if retain is not None:               # retain_grad sees the gradient after every user hook
            hooks[_RETAIN_KEY] = retain
        return handle

    def _check_hook_result(self, r, hook):
        """What a hook returned in place of this gradient: a tensor of its dtype and
        size (PyTorch's check; the engine asks the value, see ``_autograd/engine.py``)."""
        if not isinstance(r, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(r).__name__}'")
        if r._data.dtype != self._data.dtype:
            raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was "
                               f"{self.type()} got {r.type()})")
        if r._data.shape != self._data.shape:
            raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")

    def retain_grad(self):
        """Populate ``.grad`` for this non-leaf tensor during backward."""
        if not self._rg:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self.__dict__.get("_retains_grad"):
            return
        self.__dict__["_retains_grad"] = True
        ref = weakref.ref(self)

        def retain(g):
            # (the engine runs hooks in the grad mode of create_graph: under it the
            # retained gradient keeps its history, as PyTorch's clone does)
            t = ref()
            if t is not None:
                old = getattr(t, "_grad", None)
                t._grad = g.clone(memory_format=contiguous_format) if old is None else old + g
        # the engine runs hooks in insertion order; register_hook keeps this one last
        node, nr = self._edge()
        node.tensor_pre_hooks(nr)[_RETAIN_KEY] = retain

    @property
    def retains_grad(self):
        return bool(self.__dict__.get("_retains_grad"))

    def register_post_accumulate_grad_hook(self, hook):
        """Run ``hook(tensor)`` after a gradient has been accumulated into this
        leaf's ``.grad``.  Returns a handle with ``remove()``."""
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        hooks = self.__dict__.setdefault("_post_acc_hooks", {})
        return RemovableHandle(hooks, hook)

    def __repr__(self):
        return tensor_repr(self)

    def __str__(self):              # (a subclass's repr: "Parameter containing:")
        return self.__repr__()

    def __format__(self, spec):
        if self._data.ndim == 0:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def cpu(self, *args, memory_format=None):
        if args:
            raise TypeError(f"cpu() takes 0 positional arguments but {len(args)} "
                            f"{'was' if len(args) == 1 else 'were'} given")
        return self

    def cuda(self, device=None, non_blocking=False, memory_format=None):
        check_device("cuda" if device is None else device if not isinstance(device, int)
                     else f"cuda:{device}")

    def get_device(self):
        """-1: the CPU (PyTorch's answer for a CPU tensor)."""
        return -1

    def is_pinned(self, device=None):
        return False

    def pin_memory(self, device=None):
        raise RuntimeError("Cannot access accelerator device when none is available.")

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """Without ``dtype``: the legacy type name (``'tensorplay.FloatTensor'``);
        with one: this tensor cast to it (a dtype, such a name or a legacy class)."""
        if dtype is None:
            return "tensorplay." + _TYPE_NAMES[self.dtype.name]
        if isinstance(dtype, _LegacyTensorType):
            dtype = dtype.dtype
        elif isinstance(dtype, str):
            if dtype.split(".")[1:-1] == ["cuda"]:      # 'torch.cuda.FloatTensor'
                raise RuntimeError(f"tensorplay runs on the CPU only: it cannot make a tensor of "
                                   f"type '{dtype}' (like a build of PyTorch compiled without "
                                   f"CUDA support)")
            parts = dtype.split(".")
            name = parts[-1]
            if name not in _NAME_TYPES or parts[:-1] not in (["torch"], ["tensorplay"]):
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = D.to_dtype(_NAME_TYPES[name])
        elif not isinstance(dtype, (D.dtype, type)):
            raise TypeError("dtype must be a type, str, or dtype object")
        return self.to(dtype)


_TYPE_NAMES = {"bool": "BoolTensor", "uint8": "ByteTensor", "int8": "CharTensor",
               "int16": "ShortTensor", "int32": "IntTensor", "int64": "LongTensor",
               "uint16": "UInt16Tensor", "uint32": "UInt32Tensor", "uint64": "UInt64Tensor",
               "float16": "HalfTensor", "bfloat16": "BFloat16Tensor", "float32": "FloatTensor",
               "float64": "DoubleTensor", "complex64": "ComplexFloatTensor",
               "complex128": "ComplexDoubleTensor"}
_NAME_TYPES = {v: k for k, v in _TYPE_NAMES.items()}
# how PyTorch's messages name dtypes: its C++ type names and its ScalarType names
_CPP_NAMES = D.CPP_NAMES
_SCALAR_NAMES = {k: v[:-len("Tensor")] for k, v in _TYPE_NAMES.items()}
_SCALAR_NAMES.update(uint8="Byte", int8="Char", int16="Short", int32="Int", int64="Long")


def _in_layout_of(a, leaf):
    """A copy of gradient ``a`` laid out as PyTorch lays out a leaf's ``.grad``: as
    the leaf if the leaf is dense (channels_last, a transpose), else row-major."""
    out = np.empty_like(leaf)           # (order K: the leaf's strides when it is dense)
    if out.strides != leaf.strides:
        out = np.empty(leaf.shape, leaf.dtype)
    out[...] = a
    return out


def _hook_name(hook):
    name = getattr(hook, "__name__", None)
    return name if isinstance(name, str) else "<unknown>"


def _checked_hook(hook):
    """A tensor hook whose result is checked as PyTorch checks it: a Tensor (or
    None) of the same type and size as the gradient it replaces."""
    def run(grad):
        r = hook(grad)
        if r is None:
            return None
        if grad is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        grad._check_hook_result(r, hook)
        return r
    return run


_RETAIN_KEY = float("inf")
_SLOTS = frozenset(Tensor.__slots__)
# attributes PyTorch refuses to delete, with its messages. Each refuses through its own
# descriptor's deleter: a __delattr__ on Tensor would make every attribute *write* on
# every tensor go through a Python-level slot (~30% more per op on small tensors).
_UNDELETABLE = {"data": "Deleting tensor data is not allowed. Delete tensor instead!",
                "requires_grad": "requires_grad must be a bool",
                "_grad_fn": "Deletion of _grad_fn not allowed. Detach tensor instead!",
                "_backward_hooks": "Deletion of _backwards_hooks not allowed!"}


def _refuse_delete_grad_fn(self):
    raise RuntimeError(_UNDELETABLE["_grad_fn"])


# PyTorch's _grad_fn attribute, over the slot that tensorplay's own code reads (_gfn):
# deleting the slot would break the tensor.
_gfn_slot = Tensor.__dict__["_gfn"]
Tensor._grad_fn = property(_gfn_slot.__get__, _gfn_slot.__set__, _refuse_delete_grad_fn)


def _rebuild(data, rg):
    t = _wrap(data)
    t._rg = rg
    return t


def _differentiable_dtype(npdt):
    return npdt.kind in "fc" or npdt in D.LOW_PRECISION


def _wrap_dim(dim, ndim):
    if type(dim) is int and -ndim <= dim < ndim:      # (ndim > 0 here)
        return dim + ndim if dim < 0 else dim
    if type(dim) is not int:
        dim = int_index(dim, "dim")
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return dim % n


def int_index(v, argname):
    """An int parameter given as another integer, as PyTorch's parser takes it: a
    NumPy integer, or an integer tensor of one element (a tensor of more elements,
    or of floating point, is a TypeError; PyTorch takes a 1-d one for its ``int[]``
    parameters only).  A bool is a TypeError too, as in PyTorch (it is an int in
    Python).  Anything else is returned as it is, for the caller's own checks."""
    if isinstance(v, Tensor):
        if v._data.size != 1 or v._data.dtype.kind not in "iu":
            raise TypeError(f"argument '{argname}' must be int, not Tensor")
        return int(v._data.reshape(()))
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"argument '{argname}' must be int, not bool")
    return v


def int_arg(fname, argname, pos, v):
    """An ``int`` parameter as PyTorch's parser takes it: an int, a NumPy integer
    or an integer tensor of one element; anything else (a float, a bool, a float
    tensor) is its TypeError."""
    if type(v) is int:
        return v
    try:
        r = int_index(v, argname)           # (a bool or a float tensor: its TypeError)
    except TypeError:
        r = None
    if type(r) is not int:
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be int, not {type(v).__name__}")
    return r


def dims_arg(dim, ndim):
    """Normalise ``dim`` (None, int, or sequence) to a sorted tuple of
    non-negative axes, or None for "all"."""
    if type(dim) is int and -ndim <= dim < ndim:
        return (dim + ndim if dim < 0 else dim,)
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        for d in dim:
            if type(d) is bool:
                raise TypeError(f"argument 'dim' must be tuple of ints, not {type(dim).__name__}")
        axes = tuple(sorted(_wrap_dim(d, ndim) for d in dim))
        if len(set(axes)) != len(axes):
            raise RuntimeError(f"dim {axes[0]} appears multiple times in the list of dims")
        return axes
    if isinstance(dim, bool):
        raise TypeError(f"argument 'dim' must be tuple of ints, not {type(dim).__name__}")
    return (_wrap_dim(dim, ndim),)


def number_arg(fname, argname, v, pos=None, kind="Number"):
    """A Number parameter given as a tensor: PyTorch takes a 0-d tensor that needs
    no gradient as its number, and refuses any other (its gradient would be lost).
    ``kind`` is PyTorch's type of the parameter ("Number", "float" or "int": an int
    parameter takes an integer tensor only)."""
    if isinstance(v, Tensor):
        if v.dim() != 0 or v.requires_grad or kind == "int" and v._data.dtype.kind not in "iu":
            where = "" if pos is None else f" (position {pos})"
            raise TypeError(f"{fname}(): argument '{argname}'{where} must be {kind}, not Tensor")
        return v.item()
    return v


def size_arg(size):
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    for s in size:                  # (the commonest case: plain ints already)
        if type(s) is not int:
            break
    else:
        return tuple(size)
    out = []
    for s in size:
        try:
            out.append(int(s.__index__()))
        except (AttributeError, TypeError):
            raise TypeError(f"expected a sequence of integers as size, but got element of type "
                            f"{type(s).__name__}") from None
    return tuple(out)


_pytype = type
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                 "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")


class device:
    """A device, as PyTorch names them: ``device("cpu")``, ``device("cuda", 0)``,
    ``device("cuda:1")``.  Any of PyTorch's device types can be named (code that
    picks a device runs unchanged), but tensorplay computes on the CPU only:
    allocating on another device raises (``check_device``)."""
    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): argument 'type' must be str, not device")
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            type, index = "cuda", type          # device(0): PyTorch's default accelerator
        elif not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({_pytype(type).__name__})")
        else:
            name, sep, idx = type.partition(":")
            if name not in _DEVICE_TYPES:
                raise RuntimeError("Expected one of " + ", ".join(_DEVICE_TYPES) +
                                   f" device type at start of device string: {type}")
            if sep:
                if index is not None:
                    raise RuntimeError(f"type (string) must not include an index because index was "
                                       f"passed explicitly: {type}")
                if not idx.isdigit() or (len(idx) > 1 and idx[0] == "0"):
                    raise RuntimeError(f"Invalid device string: '{type}'")
                index = int(idx)
            type = name
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type, self.index = type, index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        # as in PyTorch, a device equals only a device (device("cpu") != "cpu")
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __reduce__(self):
        return (device, (self.type, self.index))


_CPU = device("cpu")


def check_device(d):
    """Refuse, clearly, to place a tensor anywhere but on the CPU (``d`` a device,
    its name, an index, or None for the default)."""
    if d is None or d == "cpu" or (type(d) is device and d.type == "cpu"):
        return
    dev = d if isinstance(d, device) else device(d)
    if dev.type == "cpu":
        return
    msg = (f"tensorplay runs on the CPU only: it cannot place a tensor on device '{dev}' "
           f"(like a build of PyTorch compiled without {dev.type.upper()} support)")
    if dev.type == "cuda":
        raise AssertionError(msg)           # PyTorch's "Torch not compiled with CUDA enabled"
    raise RuntimeError(msg)


# ------------------------------------------------------------------ storage
def storage_root(a):
    """The array owning ``a``'s memory."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root


def storage_offset_in(a, root):
    """Where ``a`` starts in ``root``'s memory, in elements of ``a``'s dtype."""
    if root is a or not a.size:         # (reading an address builds a dict: ~1 us)
        return 0
    return (a.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // \
        a.dtype.itemsize


def storage_geometry(a):
    """(the array owning ``a``'s memory, ``a``'s offset in it and ``a``'s strides,
    both in elements of ``a``'s dtype)."""
    root = storage_root(a)
    itemsize = a.dtype.itemsize
    return root, storage_offset_in(a, root), tuple([s // itemsize for s in a.strides])


def _as_elements(root, dt):
    """The whole storage ``root`` as a flat array of ``dt`` (no copy)."""
    flat = root.reshape(-1) if root.flags.c_contiguous else root.ravel(order="K")
    if flat.dtype != dt:
        flat = flat.view(np.uint8)[:flat.nbytes - flat.nbytes % dt.itemsize].view(dt)
    return flat


def _deepcopy_data(d, memo):
    """A copy of array ``d`` as PyTorch deep-copies a tensor: its storage copied
    once per ``deepcopy`` call (tensors and views that shared memory share the
    copy), with ``d``'s offset and strides in it."""
    root, offset, _ = storage_geometry(d)
    key = ("tensorplay storage", id(root))
    new_root = memo.get(key)
    if new_root is None:
        new_root = memo[key] = np.array(root, copy=True, order="K")
        memo.setdefault(id(memo), []).append(root)      # (its id stays its own meanwhile)
    flat = _as_elements(new_root, d.dtype)
    out = np.ndarray(d.shape, d.dtype, buffer=flat, offset=offset * d.dtype.itemsize, strides=d.strides)
    if not d.flags.writeable:
        out.flags.writeable = False
    return out


def _contiguous_strides(shape):
    strides, n = [], 1
    for s in reversed(shape):
        strides.append(n)
        n *= max(s, 1)
    return tuple(reversed(strides))


class UntypedStorage:
    """The bytes a tensor's array lives in (``Tensor.untyped_storage()``): enough to
    ask whether two tensors share memory (``data_ptr``), how big it is
    (``nbytes``) and what it holds."""
    __slots__ = ("_root",)

    def __init__(self, root):
        self._root = root

    def data_ptr(self):
        return self._root.__array_interface__["data"][0]

    def nbytes(self):
        return self._root.nbytes

    def size(self):
        return self._root.nbytes

    __len__ = size

    def element_size(self):
        return 1

    @property
    def device(self):
        return _CPU

    def _bytes(self):
        return _as_elements(self._root, np.dtype(np.uint8))

    def __getitem__(self, i):
        return int(self._bytes()[i])

    def tolist(self):
        return self._bytes().tolist()

    def __repr__(self):
        return f"[tensorplay.storage.UntypedStorage(device=cpu) of size {self.nbytes()}]"


class TypedStorage:
    """The storage as elements of one dtype (``Tensor.storage()``, deprecated in PyTorch)."""
    __slots__ = ("_root", "dtype_np")

    def __init__(self, root, dtype):
        self._root, self.dtype_np = root, dtype

    @property
    def dtype(self):
        return D._FROM_NP[self.dtype_np]

    def _elements(self):
        return _as_elements(self._root, self.dtype_np)

    def data_ptr(self):
        return self._root.__array_interface__["data"][0]

    def size(self):
        return self._elements().size

    __len__ = size

    def nbytes(self):
        return self._root.nbytes

    def element_size(self):
        return self.dtype_np.itemsize

    def untyped(self):
        return UntypedStorage(self._root)

    _untyped_storage = property(untyped)

    @property
    def device(self):
        return _CPU

    def __getitem__(self, i):
        return self._elements()[i].item()

    def tolist(self):
        return self._elements().tolist()

    def __repr__(self):
        return f"[tensorplay.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {self.size()}]"


_typed_warned = [False]


def _warn_typed_storage():
    if not _typed_warned[0]:
        _typed_warned[0] = True
        _warn_user("TypedStorage is deprecated. It will be removed in the future and "
                   "UntypedStorage will be the only storage class. This should only matter to "
                   "you if you are using storages directly.  To access UntypedStorage directly, "
                   "use tensor.untyped_storage() instead of tensor.storage()")


# ------------------------------------------------------------------ memory formats
class memory_format:
    """A memory layout (``tensorplay.channels_last``...): NumPy can hold any
    strides, so the formats are real layouts, with PyTorch's strides."""
    __slots__ = ("name", "perm")

    def __init__(self, name, perm=None):
        self.name, self.perm = name, perm

    def __repr__(self):
        return f"tensorplay.{self.name}"

    def __reduce__(self):
        return self.name


class layout:
    """How a tensor's elements are stored: ``tensorplay.strided`` (dense memory with
    strides) is the one layout here."""
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"tensorplay.{self.name}"

    def __reduce__(self):
        return self.name


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last", (0, 2, 3, 1))
channels_last_3d = memory_format("channels_last_3d", (0, 2, 3, 4, 1))


def _check_format(a, fmt):
    if fmt.perm is not None and a.ndim != len(fmt.perm):
        raise RuntimeError(f"required rank {len(fmt.perm)} tensor to use "
                           f"{fmt.name} format")


def _layout_copy(a, fmt):
    """A copy of ``a`` laid out in memory as ``fmt`` says (same values, same shape):
    always new memory (``np.ascontiguousarray`` alone would hand back an array
    that is laid out so already)."""
    if fmt is None or fmt is contiguous_format:
        return a.copy(order="C")
    if fmt is preserve_format:
        if a.flags.c_contiguous or a.flags.f_contiguous or _dense(a):
            return a.copy(order="K")        # the same strides
        order = _dense_order(a)             # (an expand, a strided slice: PyTorch's dense strides)
        return a.transpose(order).copy(order="C").transpose(np.argsort(order))
    _check_format(a, fmt)
    inv = np.argsort(fmt.perm)
    return a.transpose(fmt.perm).copy(order="C").transpose(inv)


def _dense(a):
    """Whether ``a``'s elements fill a block of memory without gaps or overlap
    (in some order of its dimensions)."""
    step = a.itemsize
    for stride, n in sorted((abs(s), n) for s, n in zip(a.strides, a.shape) if n != 1):
        if stride != step:
            return False
        step *= n
    return True


def _dense_order(a):
    """The dimensions, outermost first, of the dense layout PyTorch gives a copy
    of a tensor that is not dense (``preserve_format``, its infer_dense_strides):
    ordered by stride, a stride of 0 keeping its place, equal strides putting
    the larger size outside."""
    strides, shape = a.strides, a.shape
    perm = list(range(a.ndim - 1, -1, -1))      # innermost first
    for i in range(1, len(perm)):
        j = i
        for k in range(i - 1, -1, -1):
            s0, s1 = strides[perm[k]], strides[perm[j]]
            if s0 == 0 or s1 == 0:
                continue
            if s0 > s1 or (s0 == s1 and shape[perm[k]] > shape[perm[j]]):
                perm[k], perm[j] = perm[j], perm[k]
                j = k
            elif s0 < s1:
                break
    return perm[::-1]


def _is_layout(a, fmt):
    """Whether ``a`` is laid out as ``fmt`` (dims of size 1 do not count)."""
    if fmt.perm is None or a.ndim != len(fmt.perm):
        return fmt.perm is None and a.flags.c_contiguous
    want = _contiguous_strides(tuple(a.shape[p] for p in fmt.perm))
    strides = [0] * a.ndim
    for k, p in enumerate(fmt.perm):
        strides[p] = want[k]
    return all(n <= 1 or s == w * a.itemsize for n, s, w in zip(a.shape, a.strides, strides))


# ------------------------------------------------------------------ legacy tensor types
def _legacy_init(t, args, dt):
    """``Tensor(data)`` or ``Tensor(*sizes)`` / ``Tensor(Size)`` / ``Tensor()``, of dtype ``dt``."""
    a = args[0] if len(args) == 1 else None
    if a is not None and (isinstance(a, bool) or not isinstance(a, (int, np.integer, Size))):
        if isinstance(a, (bool, float, complex, np.generic)):
            name = type(a).__name__ if type(a).__module__ == "builtins" else \
                f"{type(a).__module__}.{type(a).__name__}"
            raise TypeError(f"new(): data must be a sequence (got {name})")
        t._data = _as_array(a).astype(dt.np)
    else:
        sizes = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
        t._data = np.zeros(size_arg(sizes) if sizes else (0,), dt.np)
    t._rg = False
    t._gfn = None
    t._vc = t._base = None


def _options(dt):
    return (f"TensorOptions(dtype={_CPP_NAMES[dt.name]}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


class _LegacyTensorType(type):
    """``tensorplay.FloatTensor`` and kin: calling one makes a tensor of its dtype
    (``FloatTensor([1, 2])``, ``FloatTensor(2, 3)``, ``FloatTensor()`` empty;
    ``FloatTensor(t)`` an alias of a float32 ``t``); a tensor of that dtype is an
    instance (``isinstance(t, tensorplay.FloatTensor)``)."""

    def __call__(cls, *args, device=None):
        check_device(device)
        if len(args) == 1 and isinstance(args[0], Tensor):
            if args[0].dtype != cls.dtype:
                raise TypeError(f"expected {_options(cls.dtype)} (got {_options(args[0].dtype)})")
            return args[0]._alias()
        t = _new(Tensor)
        _legacy_init(t, args, cls.dtype)
        return t

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._data.dtype == cls.dtype.np

    def __repr__(cls):
        return f"<class 'tensorplay.{cls.__name__}'>"


def _legacy(name, dtype_name):
    return _LegacyTensorType(name, (), {"dtype": D.to_dtype(dtype_name), "__slots__": ()})


# the ones PyTorch has (no complex or wide unsigned legacy types)
LEGACY_TYPES = {v: _legacy(v, k) for k, v in _TYPE_NAMES.items()
                if not v.startswith(("Complex", "UInt"))}
