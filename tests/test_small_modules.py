"""Small public modules: nn.utils.stateless.functional_call (the deprecated alias
of func.functional_call), nn.modules.utils (_single/_pair/_triple/_quadruple,
_reverse_repeat_tuple, consume_prefix_in_state_dict_if_present) and
nn.attention (SDPBackend, sdpa_kernel); on both libraries where they agree."""
import importlib
import warnings
from collections import OrderedDict

import pytest

from conftest import exact

_DEPRECATED = ("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will "
               "be removed in a future version of PyTorch. Please use `torch.func.functional_call` "
               "instead which is a drop-in replacement.")


def test_stateless_functional_call(T):
    T.manual_seed(0)
    lin = T.nn.Linear(2, 1)
    w0 = lin.weight
    x = T.tensor([[1., 2.]])
    params = {"weight": T.ones(1, 2, requires_grad=True), "bias": T.zeros(1)}
    with pytest.warns(FutureWarning, match=exact(_DEPRECATED)):
        out = T.nn.utils.stateless.functional_call(lin, params, x)
    assert out.tolist() == [[3.0]]
    assert lin.weight is w0                                    # the module's own are back
    out.sum().backward()
    assert params["weight"].grad.tolist() == [[1.0, 2.0]]      # gradients reach the given tensors
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        got = T.nn.utils.stateless.functional_call(lin, {"bias": T.ones(1)}, (x,), {})
        assert got.tolist() == T.func.functional_call(lin, {"bias": T.ones(1)}, (x,)).tolist()
        with pytest.raises(RuntimeError, match="Unexpected key\\(s\\): 'nope'"):
            T.nn.utils.stateless.functional_call(lin, {"nope": T.ones(1)}, (x,), strict=True)
    assert "stateless" in T.nn.utils.__all__


def test_module_utils(T):
    mu = importlib.import_module(T.__name__ + ".nn.modules.utils")
    assert mu._single(3) == (3,) and mu._pair(3) == (3, 3) and mu._triple(2) == (2, 2, 2)
    assert mu._quadruple(1) == (1, 1, 1, 1) and mu._pair([4, 5]) == (4, 5)
    assert mu._pair((1, 2, 3)) == (1, 2, 3) and mu._ntuple(5)(0) == (0,) * 5
    assert [f.__name__ for f in (mu._single, mu._pair, mu._triple, mu._quadruple)] == \
        ["_single", "_pair", "_triple", "_quadruple"]
    assert mu._reverse_repeat_tuple((1, 2, 3), 2) == (3, 3, 2, 2, 1, 1)
    assert mu._reverse_repeat_tuple((), 2) == ()
    assert mu._list_with_default([None, 3], [8, 9, 10]) == [9, 3]
    assert mu._list_with_default(5, [1, 2]) == 5
    with pytest.raises(ValueError, match=exact("Input dimension should be at least 3")):
        mu._list_with_default([1, 2], [4, 5])
    sd = OrderedDict([("module.a", 1), ("module.b.c", 2), ("other", 3)])
    sd._metadata = OrderedDict([("", {}), ("module", {"v": 1}), ("module.b", {"v": 2})])
    mu.consume_prefix_in_state_dict_if_present(sd, "module.")
    assert list(sd) == ["other", "a", "b.c"]
    assert list(sd._metadata) == ["", "b"] and sd._metadata[""] == {"v": 1}
    assert mu.__all__ == ["consume_prefix_in_state_dict_if_present"]


def test_module_utils_is_the_layers_helper():
    import tensorplay
    from tensorplay.nn.modules import conv, utils
    assert utils._pair is conv._pair and utils._ntuple is conv._ntuple
    assert tensorplay.nn.modules.utils is utils


def test_sdp_backend(T):
    att = T.nn.attention
    B = att.SDPBackend
    names = ["ERROR", "MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION",
             "OVERRIDEABLE"]
    assert list(B.__members__) == names
    assert [int(B.__members__[n]) for n in names] == [-1, 0, 1, 2, 3, 4]
    assert str(B.MATH) == "SDPBackend.MATH" and repr(B.MATH) == "<SDPBackend.MATH: 0>"
    assert B.MATH.name == "MATH" and B.MATH.value == 0 and B.MATH != 0 and B(1) == B.FLASH_ATTENTION
    assert B.__name__ == "SDPBackend" and att.WARN_FOR_UNFUSED_KERNELS is False
    assert {"SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"} <= set(att.__all__)


def test_sdpa_kernel(T):
    att = T.nn.attention
    B = att.SDPBackend
    F = T.nn.functional
    T.manual_seed(0)
    q, k, v = T.randn(1, 2, 3, 4), T.randn(1, 2, 5, 4), T.randn(1, 2, 5, 4)
    ref = F.scaled_dot_product_attention(q, k, v)
    for arg in (B.MATH, [B.MATH], [B.MATH, B.MATH, B.EFFICIENT_ATTENTION]):
        with att.sdpa_kernel(arg) as got:
            assert got == {}
            assert (F.scaled_dot_product_attention(q, k, v) - ref).abs().max().item() < 1e-6
    with att.sdpa_kernel([B.MATH, B.FLASH_ATTENTION], set_priority=True):
        pass
    for bad, name in (((B.MATH,), "tuple"), ("math", "str"), (None, "NoneType")):
        with pytest.raises(AssertionError, match=exact(
                f"Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                f"got {name}")):
            with att.sdpa_kernel(bad):
                pass
    # the block's exceptions propagate
    with pytest.raises(KeyError):
        with att.sdpa_kernel(B.MATH):
            raise KeyError("x")


def test_top_level_modules(T):
    for mod in ("testing", "signal"):
        assert hasattr(T, mod)
    assert hasattr(T.signal, "windows") and hasattr(T.testing, "assert_close")
    assert callable(T.testing.make_tensor) and callable(T.utils._pytree.tree_flatten)
