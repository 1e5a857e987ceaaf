"""The ``*_copy`` spellings of the view ops (``view_copy``, ``t_copy``,
``split_copy``...) and ``narrow_copy``: the view op's result as new memory
(contiguous, never a view), so writing into it leaves the input alone.  Each is
the view op and then ``clone``, so its derivatives are the view op's.  The
``out=`` keyword takes a tensor (a list of them for the ops with several
outputs), as PyTorch's.  ``detach_copy`` is a detached copy that does not
require grad (PyTorch's result claims to require grad and then has no
derivative)."""
from .. import _dtype as D
from .._out import call_with_out
from .._tensor import Tensor, _wrap_dim, contiguous_format
from ._registry import public
from .complex_ops import view_as_complex, view_as_real
from .shape import narrow

__all__ = ["alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy",
           "narrow_copy", "permute_copy", "select_copy", "slice_copy", "split_copy",
           "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy",
           "unfold_copy", "unsqueeze_copy", "view_as_complex_copy", "view_as_real_copy",
           "view_copy"]


def _copied(r):
    if isinstance(r, Tensor):
        return r.clone(memory_format=contiguous_format)
    return tuple(t.clone(memory_format=contiguous_format) for t in r)


def _copy_of(name, view):
    """``name(input, *args, out=None, **kwargs)``: ``view``'s result, copied."""
    def fn(input, *args, out=None, **kwargs):
        if out is not None:
            return call_with_out(name, fn, (input,) + args, kwargs, out)
        return _copied(view(input, *args, **kwargs))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``{name[:-5]}``'s result in new memory (never a view of ``input``)."
    return fn


def _slice(input, dim=0, start=None, end=None, step=1):
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    return input[(slice(None),) * _wrap_dim(dim, input.dim()) + (slice(start, end, step),)]


def _view(input, size):
    if isinstance(size, D.dtype):
        return input.view(size)
    return input.reshape(size)      # (PyTorch's view_copy takes any layout)


alias_copy = _copy_of("alias_copy", lambda input: input)
as_strided_copy = _copy_of("as_strided_copy", lambda input, size, stride, storage_offset=None:
                           input.as_strided(size, stride, storage_offset))
diagonal_copy = _copy_of("diagonal_copy", lambda input, offset=0, dim1=0, dim2=1:
                         input.diagonal(offset, dim1, dim2))
expand_copy = _copy_of("expand_copy", lambda input, size, *, implicit=False: input.expand(size))
permute_copy = _copy_of("permute_copy", lambda input, dims: input.permute(dims))
select_copy = _copy_of("select_copy", lambda input, dim, index: input.select(dim, index))
slice_copy = _copy_of("slice_copy", _slice)
split_copy = _copy_of("split_copy", lambda input, split_size, dim=0: input.split(split_size, dim))
split_with_sizes_copy = _copy_of("split_with_sizes_copy", lambda input, split_sizes, dim=0:
                                 input.split(list(split_sizes), dim))
squeeze_copy = _copy_of("squeeze_copy", lambda input, dim=None:
                        input.squeeze() if dim is None else input.squeeze(dim))
t_copy = _copy_of("t_copy", lambda input: input.t())
transpose_copy = _copy_of("transpose_copy", lambda input, dim0, dim1: input.transpose(dim0, dim1))
unbind_copy = _copy_of("unbind_copy", lambda input, dim=0: input.unbind(dim))
unfold_copy = _copy_of("unfold_copy", lambda input, dimension, size, step:
                       input.unfold(dimension, size, step))
unsqueeze_copy = _copy_of("unsqueeze_copy", lambda input, dim: input.unsqueeze(dim))
view_as_complex_copy = _copy_of("view_as_complex_copy", view_as_complex)
view_as_real_copy = _copy_of("view_as_real_copy", view_as_real)
view_copy = _copy_of("view_copy", _view)
narrow_copy = public()(_copy_of("narrow_copy", narrow))


def detach_copy(input, *, out=None):
    """A copy of ``input`` outside the graph."""
    if out is not None:
        return call_with_out("detach_copy", detach_copy, (input,), {}, out)
    return input.detach().clone(memory_format=contiguous_format)
