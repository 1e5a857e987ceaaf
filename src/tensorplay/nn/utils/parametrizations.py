"""Ready-made parametrizations (``torch.nn.utils.parametrizations``):
``orthogonal``, ``weight_norm`` and ``spectral_norm``, each registered with
``parametrize.register_parametrization``."""
from enum import Enum as _Enum, auto as _auto

import ml_dtypes as _ml_dtypes
import numpy as _np

from ... import _creation as _C
from ... import linalg as _linalg
from ..._autograd.grad_mode import no_grad as _no_grad
from ..._tensor import Tensor as _Tensor
from ...ops.linalg import mv as _mv, vdot as _vdot
from ...ops.pointwise import add as _add
from ...ops.pointwise_more import allclose as _allclose
from ...ops.shape import cat as _cat
from .. import functional as _F
from ..modules.module import Module as _Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------- helpers
def _np_dtype(t):
    return t.detach().numpy().dtype


def _is_orthogonal(Q):
    n, k = Q.size(-2), Q.size(-1)
    Id = _C.eye(k, dtype=Q.dtype)
    eps = 10. * n * float(_ml_dtypes.finfo(_np_dtype(Q)).eps)
    return _allclose(Q.mH @ Q, Id, atol=eps)


def _geqrf(A):
    """LAPACK's ``geqrf`` of a (batch of) matrices: the Householder reflectors
    below the diagonal and R on and above it, and the ``tau``s (unrecorded)."""
    a = A.detach().numpy()
    h, tau = _np.linalg.qr(a, mode="raw")     # h is the transposed (Fortran) layout
    h = _np.ascontiguousarray(_np.swapaxes(h, -1, -2)).astype(a.dtype, copy=False)
    return _C.from_numpy(h), _C.from_numpy(_np.ascontiguousarray(tau.astype(a.dtype, copy=False)))


def _make_orthogonal(A):
    """The Q of the QR decomposition of ``A`` whose R has a positive diagonal."""
    X, tau = _geqrf(A)
    Q = _linalg.householder_product(X, tau)
    return Q * X.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(_Enum):
    matrix_exp = _auto()
    cayley = _auto()
    householder = _auto()


class _Orthogonal(_Module):
    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        n, k = X.size(-2), X.size(-1)
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            # a skew-symmetric (skew-Hermitian) A from the lower triangle, mapped to Q
            X = X.tril()
            if n != k:
                X = _cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = _linalg.matrix_exp(A)
            else:
                Id = _C.eye(n, dtype=A.dtype)
                Q = _linalg.solve(_add(Id, A, alpha=-0.5), _add(Id, A, alpha=0.5))
            if n != k:
                Q = Q[..., :k]
        else:
            # the product of the Householder reflectors below the diagonal, with
            # the sign of each column taken from the diagonal
            A = X.tril(diagonal=-1)
            tau = 2. / (1. + (A * A).sum(dim=-2))
            Q = _linalg.householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = self.base @ Q
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q):
        with _no_grad():
            if Q.shape != self.shape:
                raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                                 f"Got a tensor of shape {Q.shape}.")
            Q_init = Q
            n, k = Q.size(-2), Q.size(-1)
            transpose = n < k
            if transpose:
                Q = Q.mT
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError("It is not possible to assign to the matrix "
                                              "exponential or the Cayley parametrizations when "
                                              "use_trivialization=False.")
                A, tau = _geqrf(Q)
                # the diagonal of A holds the signs of the columns; a reflector with
                # tau == 0 is the identity, its column's sign is flipped
                d = A.diagonal(dim1=-2, dim2=-1)
                d.sign_()
                d[tau == 0.] *= -1
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                N = _C.randn(*(tuple(Q.size()[:-2]) + (n, n - k)), dtype=Q.dtype)
                Q = _make_orthogonal(_cat([Q, N], dim=-1))
            self.base = Q
            # the X whose image is the identity (so the parametrized value is base)
            neg_Id = _C.zeros_like(Q_init)
            neg_Id.diagonal(dim1=-2, dim2=-1).fill_(-1.)
            return neg_Id


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrize ``module.<name>`` as an orthogonal (unitary) matrix or batch
    of matrices, through ``"matrix_exp"``, ``"cayley"`` or ``"householder"``."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} "
                         f"dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.size(-2) == weight.size(-1) or weight.is_complex() \
            else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f'Got: {orthogonal_map}')
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ---------------------------------------------------------------- weight norm
def _norm_except_dim(v, dim):
    """The 2-norm of ``v`` over every dimension but ``dim`` (kept, size 1);
    ``dim=-1``: the norm of the whole tensor (0-d)."""
    if dim == -1:
        return _linalg.vector_norm(v)
    d = dim % v.ndim if v.ndim else 0
    others = [i for i in range(v.ndim) if i != d]
    if not others:
        return v.abs()
    return _linalg.vector_norm(v, 2, dim=others, keepdim=True)


def _weight_norm(v, g, dim):
    return v * (g / _norm_except_dim(v, dim))


class _WeightNorm(_Module):
    def __init__(self, dim=0):
        super().__init__()
        if dim is None:
            dim = -1
        self.dim = dim

    def forward(self, weight_g, weight_v):
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Parametrize ``module.<name>`` as ``g * v / ||v||`` (the norm over every
    dimension but ``dim``): ``original0`` is ``g``, ``original1`` is ``v``."""
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)

    def _weight_norm_compat_hook(state_dict, prefix, local_metadata, strict, missing_keys,
                                 unexpected_keys, error_msgs):
        # a state dict of the old hook-based weight_norm (name_g, name_v) loads too
        g_key, v_key = f"{prefix}{name}_g", f"{prefix}{name}_v"
        if g_key in state_dict and v_key in state_dict:
            g, v = state_dict.pop(g_key), state_dict.pop(v_key)
            state_dict[f"{prefix}parametrizations.{name}.original0"] = g
            state_dict[f"{prefix}parametrizations.{name}.original1"] = v

    module._register_load_state_dict_pre_hook(_weight_norm_compat_hook)
    return module


# ---------------------------------------------------------------- spectral norm
class _SpectralNorm(_Module):
    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(f"Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            with _no_grad():
                u = weight_mat.new_empty(h).normal_(0, 1)
                v = weight_mat.new_empty(w).normal_(0, 1)
                self.register_buffer("_u", _F.normalize(u, dim=0, eps=self.eps))
                self.register_buffer("_v", _F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        # updates the buffers u and v in place (unrecorded)
        with _no_grad():
            for _ in range(n_power_iterations):
                self._u = _F.normalize(_mv(weight_mat, self._v), dim=0, eps=self.eps,
                                      out=self._u)
                self._v = _F.normalize(_mv(weight_mat.H, self._u), dim=0, eps=self.eps,
                                      out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return _F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        # copies: the next power iteration must not change what autograd saved
        u = self._u.clone()
        v = self._v.clone()
        sigma = _vdot(u, _mv(weight_mat, v))
        return weight / sigma

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrize ``module.<name>`` as ``W / sigma(W)``, the spectral norm
    estimated by power iteration (updated in training mode only)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(module, name,
                                         _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module
