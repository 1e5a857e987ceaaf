"""Invertible transforms with log-determinant Jacobians (``torch.distributions.transforms``).

A transform maps ``x`` in its ``domain`` to ``y`` in its ``codomain``; a bijective one
also gives ``log |dy/dx|`` (summed over its event dimensions).  Everything is written
in tensorplay ops, so values, inverses and log-Jacobians are differentiable.
"""
import math as _math
import numbers as _numbers

from . import _tp

from . import constraints
from .constraints import _finfo
from .utils import (_sum_rightmost, broadcast_all as _broadcast_all,
                    lazy_property as _lazy_property, tril_matrix_to_vec as _tril_matrix_to_vec,
                    vec_to_tril_matrix as _vec_to_tril_matrix)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
    "SoftmaxTransform",
    "StackTransform",
    "StickBreakingTransform",
    "Transform",
    "identity_transform",
]


class Transform:
    """Base class of invertible transforms with computable log-det-Jacobians.

    Subclasses write ``_call`` and/or ``_inverse`` (and ``log_abs_det_jacobian`` when
    ``bijective``).  ``cache_size=1`` remembers the last ``(x, y)`` pair, so that
    ``t.inv(t(x))`` gives back ``x`` itself (the same object).
    """
    bijective = False

    def __init__(self, cache_size=0):
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 1:
            self._cached_x_y = None, None
        super().__init__()

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_inv"] = None
        return state

    @property
    def event_dim(self):
        d, c = self.domain.event_dim, self.codomain.event_dim
        if d != c:
            raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")
        return d

    @property
    def inv(self):
        """The inverse transform (``t.inv.inv is t``)."""
        inv = self._inv
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = inv
        return inv

    @property
    def sign(self):
        """Sign of the Jacobian's determinant (bijective univariate transforms)."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x):
        if not self._cache_size:
            return self._call(x)
        cx, cy = self._cached_x_y
        if x is cx:
            return cy
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if not self._cache_size:
            return self._inverse(y)
        cx, cy = self._cached_x_y
        if y is cy:
            return cx
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """``log |dy/dx|`` given the input and the output."""
        raise NotImplementedError

    def __repr__(self):
        return type(self).__name__ + "()"

    def forward_shape(self, shape):
        return shape

    def inverse_shape(self, shape):
        return shape


class _InverseTransform(Transform):
    """The inverse of one transform; made by ``Transform.inv``."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __repr__(self):
        return f"{type(self).__name__}({self._inv!r})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """The transforms of ``parts`` applied in order (each part does its own caching)."""

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [p.with_cache(cache_size) for p in parts]
        super().__init__(cache_size=cache_size)
        self.parts = parts

    def __eq__(self, other):
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if not self.parts:
            return constraints.real
        first = self.parts[0].domain
        # walk back from the output's event rank to the input's
        ed = self.parts[-1].codomain.event_dim
        for p in self.parts[::-1]:
            ed = max(ed + p.domain.event_dim - p.codomain.event_dim, p.domain.event_dim)
        if ed > first.event_dim:
            first = constraints.independent(first, ed - first.event_dim)
        return first

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if not self.parts:
            return constraints.real
        last = self.parts[-1].codomain
        ed = self.parts[0].domain.event_dim
        for p in self.parts:
            ed = max(ed + p.codomain.event_dim - p.domain.event_dim, p.codomain.event_dim)
        if ed > last.event_dim:
            last = constraints.independent(last, ed - last.event_dim)
        return last

    @_lazy_property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @_lazy_property
    def sign(self):
        s = 1
        for p in self.parts:
            s = s * p.sign
        return s

    @property
    def inv(self):
        inv = self._inv
        if inv is None:
            inv = ComposeTransform([p.inv for p in self.parts[::-1]])
            self._inv = inv
            inv._inv = self
        return inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for p in self.parts:
            x = p(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return _tp.zeros_like(x)
        values = [x]
        for p in self.parts[:-1]:
            values.append(p(values[-1]))
        values.append(y)
        total = None
        ed = self.domain.event_dim
        for i, p in enumerate(self.parts):
            term = _sum_rightmost(p.log_abs_det_jacobian(values[i], values[i + 1]),
                                  ed - p.domain.event_dim)
            total = term if total is None else total + term
            ed += p.codomain.event_dim - p.domain.event_dim
        return total

    def forward_shape(self, shape):
        for p in self.parts:
            shape = p.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for p in self.parts[::-1]:
            shape = p.inverse_shape(shape)
        return shape

    def __repr__(self):
        return type(self).__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more rightmost dimensions
    counted as event dimensions (summed out of the log-det-Jacobian)."""

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshapes the rightmost ``in_shape`` of a tensor to ``out_shape`` (unit Jacobian)."""
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = _tp.Size(in_shape)
        self.out_shape = _tp.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        lead = tuple(x.shape[:x.dim() - len(self.in_shape)])
        return x.reshape(lead + tuple(self.out_shape))

    def _inverse(self, y):
        lead = tuple(y.shape[:y.dim() - len(self.out_shape)])
        return y.reshape(lead + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        return x.new_zeros(tuple(x.shape[:x.dim() - len(self.in_shape)]))

    @staticmethod
    def _swap(shape, old, new):
        if len(shape) < len(old):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(old)
        if tuple(shape[cut:]) != tuple(old):
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {old}")
        return _tp.Size(tuple(shape[:cut]) + tuple(new))

    def forward_shape(self, shape):
        return self._swap(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape):
        return self._swap(shape, self.out_shape, self.in_shape)


class ExpTransform(Transform):
    """``y = exp(x)``."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals."""
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = _broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @_lazy_property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return self.exponent.eq(other.exponent).all().item()

    __hash__ = object.__hash__

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return _tp.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    def inverse_shape(self, shape):
        return _tp.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))


def _clipped_sigmoid(x):
    fi = _finfo(x.dtype)
    return _tp.clamp(_tp.sigmoid(x), min=float(fi.tiny), max=1.0 - float(fi.eps))


class SigmoidTransform(Transform):
    """``y = 1 / (1 + exp(-x))``, ``x = logit(y)``."""
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        fi = _finfo(y.dtype)
        y = y.clamp(min=float(fi.tiny), max=1.0 - float(fi.eps))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        # log sigmoid'(x) = log sigmoid(x) + log sigmoid(-x)
        return -_tp.functional.softplus(-x) - _tp.functional.softplus(x)


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))`` (linear above x = 20)."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return _tp.functional.softplus(x)

    def _inverse(self, y):
        # log(exp(y) - 1) = y + log(1 - exp(-y))
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -_tp.functional.softplus(-x)


class TanhTransform(Transform):
    """``y = tanh(x)``."""
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return _tp.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (_math.log(2.0) - x - _tp.functional.softplus(-2.0 * x))


class AbsTransform(Transform):
    """``y = |x|`` (not bijective; the inverse picks the non-negative root)."""
    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, over ``event_dim`` rightmost dimensions."""
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.real if self.event_dim == 0 else constraints.independent(
            constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.real if self.event_dim == 0 else constraints.independent(
            constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    @staticmethod
    def _same(a, b):
        if isinstance(a, _numbers.Number) and isinstance(b, _numbers.Number):
            return a == b
        return bool((a == b).all().item())

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        return self._same(self.loc, other.loc) and self._same(self.scale, other.scale)

    __hash__ = object.__hash__

    @property
    def sign(self):
        s = self.scale
        if isinstance(s, _numbers.Number):
            s = float(s)
            return 1 if s > 0 else (-1 if s < 0 else 0)
        return s.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = tuple(x.shape)
        s = self.scale
        if isinstance(s, _numbers.Number):
            out = _tp.full_like(x, _math.log(abs(s)))
        else:
            out = _tp.abs(s).log()
        if self.event_dim:
            out = out.reshape(tuple(out.shape[:-self.event_dim]) + (-1,)).sum(-1)
            shape = shape[:-self.event_dim]
        return out.expand(shape)

    def forward_shape(self, shape):
        return _tp.broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                    getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape):
        return self.forward_shape(shape)


def _pad_last(x, left, right, value=1.0):
    """Pads the last dimension of ``x`` by ``left``/``right`` entries of ``value``."""
    parts = []
    if left:
        parts.append(_tp.full(tuple(x.shape[:-1]) + (left,), value, dtype=x.dtype))
    parts.append(x)
    if right:
        parts.append(_tp.full(tuple(x.shape[:-1]) + (right,), value, dtype=x.dtype))
    return _tp.cat(parts, -1) if len(parts) > 1 else x


class CorrCholeskyTransform(Transform):
    """Unconstrained vector of length ``D(D-1)/2`` to the Cholesky factor of a ``D x D``
    correlation matrix (lower triangular, positive diagonal, unit-norm rows), through a
    signed stick-breaking of ``tanh`` of each row."""
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        x = _tp.tanh(x)
        eps = float(_finfo(x.dtype).eps)
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = _vec_to_tril_matrix(x, diag=-1)
        # each row: y_ij = r_ij * prod_{k<j} sqrt(1 - r_ik^2); the diagonal takes the rest
        remaining = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + _tp.eye(r.shape[-1], dtype=r.dtype)
        return r * _pad_last(remaining[..., :-1], 1, 0)

    def _inverse(self, y):
        left = 1 - _tp.cumsum(y * y, dim=-1)
        left = _pad_last(left[..., :-1], 1, 0)
        t = _tril_matrix_to_vec(y, diag=-1) / _tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        left = 1 - (y * y).cumsum(dim=-1)
        stick = 0.5 * _tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        tanh_part = -2 * (x + _tp.functional.softplus(-2 * x) - _math.log(2.0)).sum(dim=-1)
        return stick + tanh_part

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return _tp.Size(tuple(shape[:-1]) + (d, d))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return _tp.Size(tuple(shape[:-2]) + (d * (d - 1) // 2,))


class SoftmaxTransform(Transform):
    """Unconstrained vector to the simplex by ``exp`` then normalizing (not bijective)."""
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        e = (x - x.max(-1, True)[0]).exp()
        return e / e.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """Unconstrained ``K``-vector to the ``K+1``-simplex by stick breaking: each logit
    (shifted so zero maps to the simplex's centre) takes a sigmoid fraction of what is
    left of the stick."""
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    __hash__ = object.__hash__

    @staticmethod
    def _log_offset(x, k):
        # log(K - i) for i = 0..K-1  (the number of pieces still to come)
        return (k + 1 - x.new_ones(k).cumsum(-1)).log()

    def _call(self, x):
        k = x.shape[-1]
        z = _clipped_sigmoid(x - self._log_offset(x, k))
        rest = (1 - z).cumprod(-1)
        return _pad_last(z, 0, 1) * _pad_last(rest, 1, 0)

    def _inverse(self, y):
        head = y[..., :-1]
        k = head.shape[-1]
        left = _tp.clamp(1 - head.cumsum(-1), min=float(_finfo(y.dtype).tiny))
        return head.log() - left.log() + self._log_offset(y, k)

    def log_abs_det_jacobian(self, x, y):
        k = x.shape[-1]
        x = x - self._log_offset(x, k)
        return (-x + _tp.functional.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return _tp.Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return _tp.Size(tuple(shape[:-1]) + (shape[-1] - 1,))


class LowerCholeskyTransform(Transform):
    """Unconstrained matrix to a lower-triangular one with a positive diagonal
    (strict lower part kept, diagonal exponentiated)."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(Transform):
    """Unconstrained matrix to a positive-definite one, ``L L^T`` with ``L`` from
    :class:`LowerCholeskyTransform`."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x):
        low = LowerCholeskyTransform()(x)
        return low @ low.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(_tp.linalg.cholesky(y))


def _check_dim(t, where, var, dim, want, what):
    """PyTorch's checks (AssertionError) that ``dim`` is in range and of size ``want``."""
    if not (-t.dim() <= dim < t.dim()):
        raise AssertionError(f"dim {dim} out of range for {where} with {t.dim()} dimensions")
    if t.size(dim) != want:
        raise AssertionError(f"{var}.size({dim}) = {t.size(dim)} must equal {what} {want}")


class CatTransform(Transform):
    """Applies ``tseq[i]`` to the i-th block (of ``lengths[i]``) along ``dim``, as
    :func:`tensorplay.cat` joins them."""

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @_lazy_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @_lazy_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _blocks(self, t):
        start = 0
        for n in self.lengths:
            yield t.narrow(self.dim, start, n)
            start += n

    def _call(self, x):
        _check_dim(x, "tensor", "x", self.dim, self.length, "length")
        return _tp.cat([f(b) for f, b in zip(self.transforms, self._blocks(x))], dim=self.dim)

    def _inverse(self, y):
        _check_dim(y, "tensor", "y", self.dim, self.length, "length")
        return _tp.cat([f.inv(b) for f, b in zip(self.transforms, self._blocks(y))], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_dim(x, "x", "x", self.dim, self.length, "length")
        _check_dim(y, "y", "y", self.dim, self.length, "length")
        terms = []
        for f, xb, yb in zip(self.transforms, self._blocks(x), self._blocks(y)):
            term = f.log_abs_det_jacobian(xb, yb)
            if f.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - f.event_dim)
            terms.append(term)
        dim = self.dim - x.dim() if self.dim >= 0 else self.dim
        dim += self.event_dim
        if dim < 0:
            return _tp.cat(terms, dim=dim)
        total = 0
        for t in terms:
            total = total + t
        return total

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Applies ``tseq[i]`` to the i-th slice along ``dim``, as :func:`tensorplay.stack`
    joins them."""

    def __init__(self, tseq, dim=0, cache_size=0):
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        _check_dim(x, "tensor", "x", self.dim, len(self.transforms), "len(transforms)")
        return _tp.stack([f(s) for s, f in zip(self._slice(x), self.transforms)], dim=self.dim)

    def _inverse(self, y):
        _check_dim(y, "tensor", "y", self.dim, len(self.transforms), "len(transforms)")
        return _tp.stack([f.inv(s) for s, f in zip(self._slice(y), self.transforms)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        _check_dim(x, "x", "x", self.dim, len(self.transforms), "len(transforms)")
        _check_dim(y, "y", "y", self.dim, len(self.transforms), "len(transforms)")
        return _tp.stack([f.log_abs_det_jacobian(a, b) for a, b, f in
                          zip(self._slice(x), self._slice(y), self.transforms)], dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)`` (to the unit interval); the log-det-Jacobian is the
    distribution's ``log_prob``."""
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
