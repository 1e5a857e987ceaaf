"""tensorplay.save / tensorplay.load: round trips of tensors and nested
containers, the safetensors layout (checked by hand, and with the safetensors
package when installed), and malformed files: truncated at every length,
bytes flipped, crafted headers, pickles.  Each gives a ValueError naming the
problem, never code execution, never another exception."""
import io
import json
import math
import os
import pickle
import struct
from collections import OrderedDict

import numpy as np
import pytest

import tensorplay as tp

try:
    import torch
except ImportError:
    torch = None
try:
    import safetensors
    import safetensors.numpy
except ImportError:
    safetensors = None

needs_safetensors = pytest.mark.skipif(safetensors is None, reason="safetensors not installed")


def _roundtrip(obj, tmp_path=None):
    buf = io.BytesIO()
    tp.save(obj, buf)
    buf.seek(0)
    return tp.load(buf)


def _same(a, b):
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, tp.Tensor):
        assert a.dtype == b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad
        x, y = a.detach()._data, b.detach()._data
        assert x.tobytes() == np.ascontiguousarray(y).tobytes()
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b)
    else:
        assert a == b


DTYPES = [tp.float64, tp.float32, tp.float16, tp.bfloat16, tp.int64, tp.int32, tp.int16,
          tp.int8, tp.uint8, tp.uint16, tp.uint32, tp.uint64, tp.bool, tp.complex64,
          tp.complex128]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_every_dtype_round_trips(dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 4)) * 50
    if dtype.is_complex:
        a = a + 1j * rng.standard_normal((3, 4))
    t = tp.tensor(a).to(dtype) if dtype != tp.bool else tp.tensor(a > 0)
    for x in (t, t[0], t[1:, ::2], t.t(), t.reshape(-1)[:0], t[0, 0]):
        _same(x, _roundtrip(x))


def test_nested_structures_round_trip():
    w = tp.randn(2, 3, requires_grad=True)
    obj = {
        "model": OrderedDict([("fc.weight", w), ("fc.bias", tp.zeros(2))]),
        "optimizer": {"state": {0: {"step": tp.tensor(3.0), "exp_avg": tp.ones(2, 3)}},
                      "param_groups": [{"lr": 1e-3, "betas": (0.9, 0.999), "params": [0],
                                        "amsgrad": False, "foreach": None, "name": "main"}]},
        "epoch": 7, "big": 2 ** 80, "neg": -3, "specials": [math.inf, -math.inf, math.nan, -0.0],
        "z": 1 - 2j, "shape": tp.Size([2, 3]), "nested": [[[(1, (2, [3]))]]], "empty": ({}, [], ()),
        (1, "a"): "tuple key", None: "none key", 2.5: True,
    }
    back = _roundtrip(obj)
    _same(obj, back)
    assert math.copysign(1, back["specials"][3]) == -1.0
    assert back["model"]["fc.weight"].requires_grad and back["model"]["fc.weight"].is_leaf


def test_identity_and_parameters():
    """A tensor met twice comes back as one object; a Parameter as a Parameter."""
    t = tp.ones(3)
    p = tp.nn.Parameter(tp.zeros(2))
    back = _roundtrip({"a": t, "b": [t, p], "c": p})
    assert back["a"] is back["b"][0] and back["c"] is back["b"][1]
    assert isinstance(back["c"], tp.nn.Parameter) and back["c"].requires_grad
    assert isinstance(_roundtrip(tp.nn.Parameter(tp.ones(1), requires_grad=False)),
                      tp.nn.Parameter)


def test_loaded_tensors_are_writable_and_independent_of_the_original():
    t = tp.arange(6.0)
    back = _roundtrip({"t": t, "u": t * 2})
    back["t"].add_(1)
    back["t"][0] = 100
    assert t.tolist() == [0, 1, 2, 3, 4, 5] and back["u"].tolist() == [0, 2, 4, 6, 8, 10]


def test_a_tensor_with_history_is_saved_as_its_value():
    x = tp.ones(2, requires_grad=True)
    back = _roundtrip(x * 3)
    assert back.tolist() == [3.0, 3.0] and back.is_leaf and back.requires_grad


def test_paths_and_file_objects(tmp_path):
    obj = {"w": tp.ones(2), "n": 1}
    for f in (str(tmp_path / "a.safetensors"), tmp_path / "b.safetensors"):
        tp.save(obj, f)
        _same(obj, tp.load(f))
    with open(tmp_path / "c.bin", "wb") as fh:
        fh.write(b"prefix")
        tp.save(obj, fh)
    with open(tmp_path / "c.bin", "rb") as fh:
        assert fh.read(6) == b"prefix"
        _same(obj, tp.load(fh))
    with pytest.raises(TypeError, match="expected a path or a binary file object"):
        tp.save(obj, 3)


def test_unsupported_objects():
    with pytest.raises(TypeError, match=r"tensorplay.save can store tensors, numbers, strings, "
                                        r"None and dicts \(OrderedDicts\), lists and tuples of them, not "
                                        r"their subclasses; got set"):
        tp.save({"s": {1, 2}}, io.BytesIO())
    with pytest.raises(TypeError, match="dict keys that are strings, numbers, None or tuples"):
        tp.save({tp.ones(1): 1}, io.BytesIO())


def test_numpy_scalars_are_saved_as_numbers():
    back = _roundtrip([np.float32(0.5), np.int64(3), np.bool_(True)])
    assert back == [0.5, 3, True] and [type(v) for v in back] == [float, int, bool]


def test_load_arguments():
    buf = io.BytesIO()
    tp.save(tp.ones(1), buf)
    for kw in (dict(weights_only=False), dict(map_location="cpu"),
               dict(map_location=tp.device("cpu")), dict(mmap=True)):
        buf.seek(0)
        assert tp.load(buf, **kw).tolist() == [1.0]
    buf.seek(0)                 # (nothing is unpickled: pickle's arguments have no effect)
    assert tp.load(buf, pickle_module=pickle, encoding="latin1").tolist() == [1.0]
    with pytest.raises(RuntimeError, match="CPU only"):
        tp.load(buf, map_location="cuda:0")


def _layout(raw):
    n = struct.unpack("<Q", raw[:8])[0]
    return n, json.loads(raw[8:8 + n]), raw[8 + n:]


def test_the_file_is_safetensors_by_the_specification():
    """Checked by hand (no package needed): 8-byte little-endian header length,
    a JSON header padded to 8 bytes, names from the state dict's keys, offsets
    tiling the data, tensors aligned to their item size, little-endian bytes."""
    sd = OrderedDict([("layer.weight", tp.arange(6, dtype=tp.float32).reshape(2, 3)),
                      ("layer.bias", tp.tensor([1, 2], dtype=tp.int16)),
                      ("scale", tp.tensor(0.5, dtype=tp.float64))])
    buf = io.BytesIO()
    tp.save(sd, buf)
    raw = buf.getvalue()
    n, header, data = _layout(raw)
    assert n % 8 == 0
    meta = header.pop("__metadata__")
    assert meta["format"] == "pt" and all(isinstance(v, str) for v in meta.values())
    assert set(header) == {"layer.weight", "layer.bias", "scale"}
    spans = sorted(tuple(h["data_offsets"]) for h in header.values())
    assert spans[0][0] == 0 and spans[-1][1] == len(data)
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    w = header["layer.weight"]
    assert w["dtype"] == "F32" and w["shape"] == [2, 3] and w["data_offsets"][0] % 4 == 0
    b0, b1 = w["data_offsets"]
    assert np.frombuffer(data[b0:b1], "<f4").tolist() == [0, 1, 2, 3, 4, 5]
    s = header["scale"]
    assert s["dtype"] == "F64" and s["shape"] == []
    assert header["layer.bias"]["dtype"] == "I16"


def test_a_plain_safetensors_file_loads_as_a_dict():
    """A file without tensorplay's structure (written by any tool): its tensors by name."""
    header = {"b": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},
              "a": {"dtype": "F32", "shape": [1], "data_offsets": [2, 6]}}
    raw = _file(header, b"\x01\x02" + struct.pack("<f", 1.5))
    out = tp.load(io.BytesIO(raw))
    assert list(out) == ["a", "b"] and out["a"].tolist() == [1.5] and out["b"].dtype == tp.uint8


def test_optimizer_state_dict_round_trip(tmp_path):
    """Save model and optimizer state mid-training; the reloaded pair continues
    exactly as the original."""
    def loss_of(p):
        return ((p - tp.arange(4.0)) ** 2).sum()
    p = tp.nn.Parameter(tp.zeros(4))
    opt = tp.optim.Adam([p], lr=0.1, amsgrad=True)
    for _ in range(3):
        opt.zero_grad()
        loss_of(p).backward()
        opt.step()
    tp.save({"p": p, "opt": opt.state_dict()}, tmp_path / "ck.safetensors")
    ck = tp.load(tmp_path / "ck.safetensors")
    q = ck["p"]
    opt2 = tp.optim.Adam([q], lr=0.5)
    opt2.load_state_dict(ck["opt"])
    for x, o in ((p, opt), (q, opt2)):
        o.zero_grad()
        loss_of(x).backward()
        o.step()
    assert q.tolist() == p.tolist() and opt2.param_groups[0]["lr"] == 0.1


# ---------------------------------------------------------------- the safetensors package
@needs_safetensors
def test_a_state_dict_opens_in_the_safetensors_package(tmp_path):
    sd = {"fc.weight": tp.randn(3, 4), "fc.bias": tp.zeros(3), "steps": tp.arange(5),
          "mask": tp.tensor([True, False]), "h": tp.ones(2, dtype=tp.float16)}
    path = str(tmp_path / "sd.safetensors")
    tp.save(sd, path)
    with safetensors.safe_open(path, framework="np") as f:
        assert sorted(f.keys()) == sorted(sd)
        assert f.metadata()["format"] == "pt"
        for k in sd:
            np.testing.assert_array_equal(f.get_tensor(k), sd[k].numpy())
    loaded = safetensors.numpy.load(open(path, "rb").read())
    assert sorted(loaded) == sorted(sd)


@needs_safetensors
def test_bfloat16_and_nested_files_open_in_the_safetensors_package(tmp_path):
    path = str(tmp_path / "n.safetensors")
    tp.save({"opt": {"state": {0: {"m": tp.ones(2, dtype=tp.bfloat16)}}}, "lr": 0.1}, path)
    raw = open(path, "rb").read()
    info = dict(safetensors.deserialize(raw))
    assert info["opt.state.0.m"]["dtype"] in ("bfloat16", "BF16")
    assert bytes(info["opt.state.0.m"]["data"]) == np.ones(2, tp.bfloat16.np).tobytes()


@needs_safetensors
def test_files_written_by_the_safetensors_package_load(tmp_path):
    arrays = {"a": np.arange(6.0).reshape(2, 3), "b": np.array([True, False]),
              "c": np.array(3, np.int8), "d": np.zeros((0, 2), np.float32)}
    path = str(tmp_path / "o.safetensors")
    safetensors.numpy.save_file(arrays, path, metadata={"source": "elsewhere"})
    out = tp.load(path)
    assert sorted(out) == sorted(arrays)
    for k, v in arrays.items():
        assert out[k].numpy().dtype == v.dtype
        np.testing.assert_array_equal(out[k].numpy(), v)


@needs_safetensors
@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_a_torch_state_dict_loads_with_its_keys_and_shapes(tmp_path):
    import safetensors.torch
    net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.BatchNorm1d(3))
    path = str(tmp_path / "t.safetensors")
    safetensors.torch.save_file(net.state_dict(), path)
    out = tp.load(path)
    assert sorted(out) == sorted(net.state_dict())
    for k, v in net.state_dict().items():
        assert list(out[k].shape) == list(v.shape) and out[k].tolist() == v.tolist()
    tp.save(out, path)                  # and back: torch's reader opens ours
    back = safetensors.torch.load_file(path)
    assert all(torch.equal(back[k], v) for k, v in net.state_dict().items())


# ---------------------------------------------------------------- malformed files
def _file(header, data=b"", pad=True):
    text = json.dumps(header).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def _valid():
    buf = io.BytesIO()
    tp.save({"w": tp.arange(6.0).reshape(2, 3), "b": tp.tensor([1, 2]), "meta": [1, "x", None]},
            buf)
    return buf.getvalue()


def _load_bytes(raw):
    return tp.load(io.BytesIO(raw))


def test_truncated_at_every_length():
    raw = _valid()
    for n in range(len(raw)):
        with pytest.raises(ValueError, match="tensorplay.load: "):
            _load_bytes(raw[:n])
    _load_bytes(raw)


def test_flipped_bytes_never_crash():
    """Any one byte changed: the file loads (a changed tensor value) or gives a
    ValueError; no other exception, no crash."""
    raw = _valid()
    rng = np.random.default_rng(1)
    outcomes = set()
    for _ in range(400):
        b = bytearray(raw)
        i = int(rng.integers(len(b)))
        b[i] = int(rng.integers(256))
        try:
            _load_bytes(bytes(b))
            outcomes.add("loaded")
        except ValueError:
            outcomes.add("error")
    assert outcomes == {"loaded", "error"}


T32 = {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}
BAD = [
    ("huge header length", struct.pack("<Q", 2 ** 63) + b"{}", "more than the limit"),
    ("header longer than the file", struct.pack("<Q", 100) + b"{}" + b" " * 6, "truncated"),
    ("not UTF-8", struct.pack("<Q", 8) + b"{\xff\xfe}    ", "not UTF-8"),
    ("not an object", _file([1, 2]), "does not start with '{'"),
    ("not JSON", struct.pack("<Q", 8) + b"{'a': 1}", "not valid JSON"),
    ("NaN in the header", _file({"a": T32}).replace(b"[0, 8]", b"[NaN, 8]"), "not JSON"),
    ("empty header", struct.pack("<Q", 0), "does not start with '{'"),
    ("unknown dtype", _file({"a": dict(T32, dtype="F128")}, b"\0" * 8), "does not know"),
    ("fp8 dtype", _file({"a": dict(T32, dtype="F8_E4M3", shape=[8])}, b"\0" * 8), "does not know"),
    ("no dtype", _file({"a": {"shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8), "has no dtype"),
    ("negative size", _file({"a": dict(T32, shape=[-2])}, b"\0" * 8), "not a list of sizes"),
    ("bool size", _file({"a": dict(T32, shape=[True])}, b"\0" * 8), "not a list of sizes"),
    ("float offsets", _file({"a": dict(T32, data_offsets=[0.0, 8])}, b"\0" * 8),
     "not \\[begin, end\\]"),
    ("reversed offsets", _file({"a": dict(T32, data_offsets=[8, 0])}, b"\0" * 8),
     "not \\[begin, end\\]"),
    ("offsets past the end", _file({"a": dict(T32, data_offsets=[0, 8])}, b"\0" * 4), "truncated"),
    ("offsets far out of range", _file({"a": dict(T32, shape=[2 ** 40],
                                                   data_offsets=[0, 2 ** 42])}, b"\0" * 8),
     "truncated"),
    ("size disagrees with shape", _file({"a": dict(T32, shape=[3])}, b"\0" * 8), "needs 12 bytes"),
    ("huge shape", _file({"a": dict(T32, shape=[2 ** 62, 2 ** 62])}, b"\0" * 8), "needs"),
    ("overlapping tensors", _file({"a": T32, "b": dict(T32, data_offsets=[4, 12])}, b"\0" * 12),
     "overlapping"),
    ("gap between tensors", _file({"a": T32, "b": dict(T32, data_offsets=[12, 20])}, b"\0" * 20),
     "a gap between"),
    ("not starting at zero", _file({"a": dict(T32, data_offsets=[4, 12])}, b"\0" * 12),
     "a gap between"),
    ("trailing bytes", _file({"a": T32}, b"\0" * 9), "use only 8"),
    ("metadata not strings", _file({"__metadata__": {"a": 1}}), "map strings to strings"),
    ("entry not an object", _file({"a": [1]}), "is not a JSON object"),
    ("bool bytes", _file({"a": {"dtype": "BOOL", "shape": [1], "data_offsets": [0, 1]}}, b"\x07"),
     "other than 0 and 1"),
    ("zip (torch.save)", b"PK\x03\x04" + b"\0" * 60, "PyTorch pickle checkpoint"),
]


@pytest.mark.parametrize("raw,match", [(b, m) for _, b, m in BAD], ids=[n for n, _, _ in BAD])
def test_malformed_headers(raw, match, tmp_path):
    path = tmp_path / "bad.safetensors"         # (a path's file: nothing may follow the tensors)
    path.write_bytes(raw)
    with pytest.raises(ValueError, match=match):
        tp.load(path)


def test_a_stream_may_go_on_after_the_file():
    raw = _file({"a": T32}, b"\0" * 8)
    buf = io.BytesIO(raw + b"next")
    assert tp.load(buf).get("a") is not None
    assert buf.read() == b"next"


def test_duplicate_names():
    text = b'{"a":' + json.dumps(T32).encode() + b',"a":' + json.dumps(T32).encode() + b"}"
    with pytest.raises(ValueError, match="names 'a' twice"):
        _load_bytes(struct.pack("<Q", len(text)) + text + b"\0" * 8)


def _with_structure(structure, header=None, data=b""):
    header = dict(header or {})
    header["__metadata__"] = {"format": "pt", "tensorplay": json.dumps(structure)}
    return _file(header, data)


@pytest.mark.parametrize("structure,match", [
    ({"version": 99, "object": 1}, "not one this version"),
    ({"object": 1}, "not one this version"),
    ({"version": 1, "object": {"tensor": "missing"}}, "which the file lacks"),
    ({"version": 1, "object": {"tensor": "a", "evil": 1}}, "unexpected tensor entry"),
    ({"version": 1, "object": {"__reduce__": ["os.system", ["echo hi"]]}}, "unexpected entry"),
    ({"version": 1, "object": {"dict": [[[1, 2], 3]]}}, "dict key is a list"),
    ({"version": 1, "object": {"dict": [[1]]}}, "not a \\[key, value\\] pair"),
    ({"version": 1, "object": {"float": "1e5"}}, "unexpected entry"),
    ({"version": 1, "object": {"tensor": "a", "dtype": "complex128"}}, "cannot be read as"),
    ({"version": 1, "object": {"tensor": "n", "requires_grad": True}}, "cannot require grad"),
])
def test_tampered_structures(structure, match):
    header = {"a": T32, "n": {"dtype": "I64", "shape": [1], "data_offsets": [8, 16]}}
    with pytest.raises(ValueError, match=match):
        _load_bytes(_with_structure(structure, header, b"\0" * 16))


def test_deep_nesting_is_a_value_error():
    text = '{"version":1,"object":' + "[" * 100000 + "]" * 100000 + "}"
    meta = {"__metadata__": {"tensorplay": text}}
    with pytest.raises(ValueError, match="nested too deeply"):
        _load_bytes(_file(meta))
    with pytest.raises(ValueError, match="nested too deeply|not valid JSON"):
        _load_bytes(struct.pack("<Q", 200000) + b"{" + b'"a":[' * 20000 + b" " * 99999)


class _Payload:
    def __reduce__(self):
        return (os.system, ("touch " + _Payload.marker,))


def test_a_malicious_pickle_runs_nothing(tmp_path):
    """A pickle whose loading would run a command: refused, and the command never runs."""
    _Payload.marker = str(tmp_path / "pwned")
    raw = pickle.dumps({"w": _Payload()}, protocol=2)
    with pytest.raises(ValueError, match="never unpickles"):
        _load_bytes(raw)
    path = tmp_path / "evil.pt"
    path.write_bytes(raw)
    with pytest.raises(ValueError):
        tp.load(path)
    # also smuggled into the header's metadata, where only JSON is read
    with pytest.raises(ValueError):
        _load_bytes(_file({"__metadata__": {"tensorplay": raw.decode("latin-1")}}))
    assert not os.path.exists(_Payload.marker)


@pytest.mark.skipif(torch is None, reason="torch not installed")
def test_a_torch_save_file_is_refused_with_advice(tmp_path):
    path = tmp_path / "m.pt"
    torch.save({"w": torch.ones(2)}, path)
    with pytest.raises(ValueError, match="safetensors.torch.save_file"):
        tp.load(path)


@needs_safetensors
@pytest.mark.parametrize("raw", [b for n, b, _ in BAD if n not in ("bool bytes", "fp8 dtype")],
                         ids=[n for n, _, _ in BAD if n not in ("bool bytes", "fp8 dtype")])
def test_the_safetensors_package_rejects_them_too(raw):
    """The reference implementation agrees that these files are malformed (two
    are well formed for it: FP8, which tensorplay has no dtype for, and BOOL
    bytes other than 0 and 1, which tensorplay refuses as well)."""
    with pytest.raises(Exception):
        safetensors.deserialize(raw)
