"""``tensorplay.save`` / ``tensorplay.load``: tensors and nested containers in
the safetensors format.  Loading runs no code: there is no pickle anywhere.

A file is what the safetensors specification describes: 8 bytes (little
endian) giving the length N of a JSON header, the header, then the tensors'
bytes, little endian, back to back.  The header maps each tensor's name to its
``dtype``, ``shape`` and ``data_offsets``, and may hold ``__metadata__``, a map
of strings to strings.  Here the metadata holds ``"format": "pt"`` (the layout
of PyTorch's tensors, which tensorplay shares) and, under ``"tensorplay"``,
the saved object's structure as JSON (dicts with any keys, lists, tuples,
numbers, strings, None), each tensor in it standing for a named entry of the
file.  A state dict (str -> tensor) is saved under its own keys, so any
safetensors reader opens it as the same mapping.

The format is implemented here rather than through the ``safetensors``
package: the package would be a compiled dependency (runtime deps are NumPy
and ml_dtypes only), its NumPy interface has no bfloat16, and its low-level
API changes between versions; the tests check against it when installed.
Every header is checked before any tensor is made: a truncated file, a header
that is not JSON or claims more than 100 MB, unknown dtypes, offsets that
overlap, leave gaps or run past the end, and sizes that disagree with shapes
each give a ``ValueError`` naming the problem.
"""
import io
import json
import math
import os
import sys
from collections import OrderedDict

import numpy as np

from . import _dtype as D
from ._tensor import Size, Tensor, _wrap, device

__all__ = ["save", "load", "add_safe_globals", "get_safe_globals", "clear_safe_globals", "safe_globals"]

_SAFE_GLOBALS = []


def add_safe_globals(safe_globals):
    """PyTorch's allow-list for ``weights_only`` unpickling.  Nothing is unpickled
    here, so the list is kept (``get_safe_globals``) and has no effect."""
    _SAFE_GLOBALS.extend(safe_globals)


def get_safe_globals():
    return list(_SAFE_GLOBALS)


def clear_safe_globals():
    _SAFE_GLOBALS.clear()


class safe_globals:
    """``with safe_globals([...]):`` adds to the allow-list for the block (no effect here)."""

    def __init__(self, safe_globals):
        self.safe_globals = safe_globals

    def __enter__(self):
        self._n = len(_SAFE_GLOBALS)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc):
        del _SAFE_GLOBALS[self._n:]

MAX_HEADER_SIZE = 100_000_000          # the safetensors reference's limit
_FORMAT_VERSION = 1

# safetensors dtype code <-> NumPy dtype (complex128 has no code: saved as F64 pairs)
_CODES = {"F64": np.dtype(np.float64), "F32": np.dtype(np.float32),
          "F16": np.dtype(np.float16), "BF16": D.bfloat16.np,
          "I64": np.dtype(np.int64), "I32": np.dtype(np.int32), "I16": np.dtype(np.int16),
          "I8": np.dtype(np.int8), "U64": np.dtype(np.uint64), "U32": np.dtype(np.uint32),
          "U16": np.dtype(np.uint16), "U8": np.dtype(np.uint8), "BOOL": np.dtype(np.bool_),
          "C64": np.dtype(np.complex64)}
_CODE_OF = {v: k for k, v in _CODES.items()}


# ---------------------------------------------------------------- save
class _Writer:
    """Turns an object into (JSON structure, {name: array}), naming each tensor
    by its path in the object (``state.0.exp_avg``).  A tensor object met twice
    is stored once and comes back as one object."""

    def __init__(self):
        self.arrays = {}
        self.by_id = {}
        self.keep = []          # the tensors seen, alive while their ids are in by_id

    def name(self, path):
        base = ".".join(path) or "tensor"
        name, n = base, 1
        while name in self.arrays or name == "__metadata__":
            name, n = f"{base}#{n}", n + 1
        return name

    def encode(self, obj, path):
        # exact types: a subclass (a namedtuple, a defaultdict, an IntEnum) would come back
        # as its base type, so it is refused rather than changed
        t = type(obj)
        if obj is None or t is bool or t is str:
            return obj
        if t is int:
            return obj
        if t is float:
            return obj if math.isfinite(obj) else {"float": repr(obj)}
        if isinstance(obj, Tensor):
            return self.tensor(obj, path)
        if isinstance(obj, np.generic) and obj.dtype.kind in "biuf":
            return self.encode(obj.item(), path)
        if t is complex:
            return {"complex": [self.encode(obj.real, path), self.encode(obj.imag, path)]}
        if t is Size:
            return {"size": [int(s) for s in obj]}
        if t is tuple:
            return {"tuple": [self.encode(v, path + [str(i)]) for i, v in enumerate(obj)]}
        if t is list:
            return [self.encode(v, path + [str(i)]) for i, v in enumerate(obj)]
        if t is dict or t is OrderedDict:
            items = [[self.key(k), self.encode(v, path + [str(k)])] for k, v in obj.items()]
            out = {"odict" if t is OrderedDict else "dict": items}
            meta = getattr(obj, "_metadata", None)      # a state dict's module versions
            if meta is not None:
                out["metadata"] = self.encode(meta, path + ["_metadata"])
            return out
        raise TypeError(f"tensorplay.save can store tensors, numbers, strings, None and dicts "
                        f"(OrderedDicts), lists and tuples of them, not their subclasses; got "
                        f"{t.__name__}")

    def key(self, k):
        if k is None or type(k) in (bool, str, int, float):
            return self.encode(k, [])
        if type(k) is tuple:
            return {"tuple": [self.key(v) for v in k]}
        raise TypeError(f"tensorplay.save can store dict keys that are strings, numbers, None or "
                        f"tuples of them; got {type(k).__name__}")

    def tensor(self, t, path):
        entry = self.by_id.get(id(t))
        if entry is None:
            a = t._data
            entry = {"tensor": self.name(path)}
            if a.dtype == np.complex128:
                entry["dtype"] = "complex128"
                a = np.ascontiguousarray(a).view(np.float64).reshape(a.shape + (2,))
            if t.requires_grad:
                entry["requires_grad"] = True
            if type(t).__name__ == "Parameter" and type(t).__module__.startswith("tensorplay.nn"):
                entry["parameter"] = True
            self.arrays[entry["tensor"]] = a
            self.by_id[id(t)] = entry
            self.keep.append(t)
        return entry


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True):
    """Save ``obj`` (a tensor, or dicts/lists/tuples of tensors, numbers, strings
    and None, such as the state dicts of modules and optimizers) to ``f``, a
    path or a binary file object, in the safetensors format.

    The pickle arguments of ``torch.save`` are accepted and have no effect
    (nothing is pickled).

        >>> import io, tensorplay as tp
        >>> buf = io.BytesIO()
        >>> tp.save({"w": tp.ones(2), "step": 3}, buf)
        >>> _ = buf.seek(0)
        >>> tp.load(buf)
        {'w': tensor([1., 1.]), 'step': 3}
    """
    w = _Writer()
    tree = w.encode(obj, [])
    meta = {"format": "pt",
            "tensorplay": json.dumps({"version": _FORMAT_VERSION, "object": tree},
                                     separators=(",", ":"), allow_nan=False)}
    header = {"__metadata__": meta}
    # widest dtypes first, so that every tensor starts aligned to its item size
    order = sorted(w.arrays, key=lambda k: (-w.arrays[k].dtype.itemsize, k))
    offset = 0
    for name in order:
        a = w.arrays[name]
        header[name] = {"dtype": _CODE_OF[a.dtype], "shape": list(a.shape),
                        "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    text = json.dumps(header, separators=(",", ":"), allow_nan=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    if len(text) > MAX_HEADER_SIZE:         # (a file no reader would open)
        raise ValueError(f"tensorplay.save: the file's header would be {len(text)} bytes, more than the "
                         f"{MAX_HEADER_SIZE} safetensors readers accept (about 100 bytes per tensor and "
                         "the text of the saved structure): save fewer, larger tensors (stack them)")
    if isinstance(f, (str, os.PathLike)):
        parent = os.path.dirname(os.fspath(f))
        if parent and not os.path.isdir(parent):
            raise RuntimeError(f"Parent directory {parent} does not exist.")
    with _open(f, "wb") as out:
        out.write(len(text).to_bytes(8, "little"))
        out.write(text)
        for name in order:
            a = np.ascontiguousarray(w.arrays[name])
            if sys.byteorder == "big" and a.dtype.itemsize > 1:
                a = a.byteswap()
            if a.size:
                out.write(a.reshape(-1).view(np.uint8))


class _open:
    """``open(f, mode)`` for a path; the file object itself (not closed) otherwise."""

    def __init__(self, f, mode):
        self.f, self.mode, self.owned = f, mode, isinstance(f, (str, bytes, os.PathLike))

    def __enter__(self):
        if self.owned:
            self.f = open(self.f, self.mode)
        elif not hasattr(self.f, "write" if "w" in self.mode else "read"):
            raise TypeError(f"expected a path or a binary file object, got "
                            f"{type(self.f).__name__}")
        return self.f

    def __exit__(self, *exc):
        if self.owned:
            self.f.close()


# ---------------------------------------------------------------- load
def _corrupt(msg):
    return ValueError(f"tensorplay.load: {msg}")


def _read_all(f):
    """The file's bytes as one writable buffer (the loaded tensors are views of it):
    read straight into it when the size is known, else copied from ``read()``."""
    with _open(f, "rb") as src:
        try:
            size = os.fstat(src.fileno()).st_size - src.tell()
        except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
            size = None
        if size and size > 0 and hasattr(src, "readinto"):
            buf = bytearray(size)
            del buf[src.readinto(buf) or 0:]
            rest = src.read()            # (if the file grew meanwhile)
            if rest:
                buf += rest
            return buf
        data = src.read()
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError("tensorplay.load needs a path or a file object opened in binary mode")
    return bytearray(data)


def _no_duplicates(pairs):
    d = {}
    for k, v in pairs:
        if k in d:
            raise _corrupt(f"the header names {k!r} twice")
        d[k] = v
    return d


def _reject_constant(name):
    raise _corrupt(f"the header holds {name}, which is not JSON")


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _tell(f):
    try:
        return f.tell() if f.seekable() else None
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None


def _parse(data, exact=True):
    """Check the header of a safetensors file held in ``data``; return
    ({name: (dtype code, shape, begin, end)}, metadata, start of the data, end of
    the tensors' bytes).  ``exact``: nothing may follow them (a path's file; a
    stream may go on with other data, as after ``torch.save``)."""
    if len(data) < 8:
        raise _corrupt(f"the file is {len(data)} bytes long, too short for a safetensors header "
                       "(truncated, or not a safetensors file)")
    head = bytes(data[:8])
    n = int.from_bytes(head, "little")
    if (n > MAX_HEADER_SIZE or 8 + n > len(data) or data[8:9] != b"{") and \
            (head[:4] == b"PK\x03\x04" or head[:1] == b"\x80" and 2 <= head[1] <= 5):
        raise _corrupt("this looks like a PyTorch pickle checkpoint (torch.save); tensorplay.load "
                       "reads safetensors files only and never unpickles. Convert it with torch: "
                       "safetensors.torch.save_file(torch.load(path, weights_only=True), new_path)")
    if n > MAX_HEADER_SIZE:
        raise _corrupt(f"the header length is {n} bytes, more than the limit of "
                       f"{MAX_HEADER_SIZE} (corrupted, or not a safetensors file)")
    if 8 + n > len(data):
        raise _corrupt(f"the header length is {n} bytes but the file has only {len(data) - 8} "
                       "after the length field (truncated)")
    try:
        text = bytes(data[8:8 + n]).decode("utf-8")
    except UnicodeDecodeError as e:
        raise _corrupt(f"the header is not UTF-8 ({e.reason} at byte {e.start})") from None
    if not text.startswith("{"):
        raise _corrupt("the header does not start with '{' (corrupted, or not a safetensors "
                       "file)")
    try:
        header = json.loads(text, object_pairs_hook=_no_duplicates,
                            parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise _corrupt(f"the header is not valid JSON ({e.msg} at character {e.pos})") from None
    except RecursionError:
        raise _corrupt("the header is nested too deeply") from None
    if not isinstance(header, dict):
        raise _corrupt("the header is not a JSON object")
    meta = header.pop("__metadata__", None)
    if meta is not None and not (isinstance(meta, dict) and
                                 all(isinstance(v, str) for v in meta.values())):
        raise _corrupt("__metadata__ must map strings to strings")
    start = 8 + n
    size = len(data) - start
    entries = {}
    for name, info in header.items():
        if not isinstance(info, dict):
            raise _corrupt(f"the entry for {name!r} is not a JSON object")
        code, shape, offsets = info.get("dtype"), info.get("shape"), info.get("data_offsets")
        if not isinstance(code, str):
            raise _corrupt(f"tensor {name!r} has no dtype")
        if code not in _CODES:
            raise _corrupt(f"tensor {name!r} has dtype {code!r}, which tensorplay does not know "
                           f"(known: {', '.join(_CODES)})")
        if not (isinstance(shape, list) and all(_is_int(s) and s >= 0 for s in shape)):
            raise _corrupt(f"tensor {name!r} has shape {shape!r}, not a list of sizes")
        if not (isinstance(offsets, list) and len(offsets) == 2 and all(map(_is_int, offsets))
                and 0 <= offsets[0] <= offsets[1]):
            raise _corrupt(f"tensor {name!r} has data_offsets {offsets!r}, not [begin, end] with "
                           "0 <= begin <= end")
        numel = 1
        for s in shape:
            numel *= s
        if numel * _CODES[code].itemsize != offsets[1] - offsets[0]:
            raise _corrupt(f"tensor {name!r} of dtype {code} and shape {shape} needs "
                           f"{numel * _CODES[code].itemsize} bytes but its data_offsets span "
                           f"{offsets[1] - offsets[0]}")
        entries[name] = (code, tuple(shape), offsets[0], offsets[1])
    # the tensors' bytes must tile the data exactly: no overlap, no gap, nothing past the end
    end = 0
    for name, (_, _, b, e) in sorted(entries.items(), key=lambda kv: (kv[1][2], kv[1][3])):
        if b != end:
            raise _corrupt(f"tensor {name!r} starts at byte {b} of the data, but the data before "
                           f"it ends at {end} ({'overlapping' if b < end else 'a gap between'} "
                           "tensors)")
        end = e
    if end > size:
        raise _corrupt(f"the tensors need {end} bytes of data but the file holds {size} "
                       "(truncated)")
    if end < size and exact:
        raise _corrupt(f"the file holds {size} bytes of data but the tensors use only {end}")
    return entries, meta or {}, start, end


def _arrays(data, entries, start):
    out = {}
    for name, (code, shape, b, e) in entries.items():
        dt = _CODES[code]
        a = np.frombuffer(data, dt, count=(e - b) // dt.itemsize, offset=start + b)
        if sys.byteorder == "big" and dt.itemsize > 1:
            a = a.byteswap()
        if code == "BOOL" and a.size and a.view(np.uint8).max() > 1:
            raise _corrupt(f"tensor {name!r} of dtype BOOL holds bytes other than 0 and 1")
        out[name] = a.reshape(shape)
    return out


class _Reader:
    """Rebuilds the saved object from its JSON structure and the file's arrays,
    checking each node (a crafted structure gives a ValueError, never code)."""

    def __init__(self, arrays):
        self.arrays = arrays
        self.made = {}

    def decode(self, x):
        if x is None or isinstance(x, (bool, str, int, float)):
            return x
        if isinstance(x, list):
            return [self.decode(v) for v in x]
        if not isinstance(x, dict):
            raise _corrupt(f"unexpected {type(x).__name__} in the saved structure")
        if "tensor" in x:
            return self.tensor(x)
        if "metadata" in x and len(x) == 2 and ("odict" in x or "dict" in x):
            rest = dict(x)
            meta = self.decode(rest.pop("metadata"))
            out = self.decode(rest)
            out._metadata = meta if type(out) is OrderedDict else None
            if out._metadata is None or not isinstance(meta, dict):
                raise _corrupt("a saved _metadata belongs to an OrderedDict and is a dict")
            return out
        if len(x) != 1:
            raise _corrupt(f"unexpected entry {sorted(x)} in the saved structure")
        (tag, v), = x.items()
        if tag == "float" and v in ("nan", "inf", "-inf"):
            return float(v)
        if tag == "complex" and isinstance(v, list) and len(v) == 2:
            re, im = (self.decode(p) for p in v)
            if isinstance(re, float) and isinstance(im, float):
                return complex(re, im)
        if tag == "size" and isinstance(v, list) and all(_is_int(s) for s in v):
            return Size(v)
        if tag == "tuple" and isinstance(v, list):
            return tuple(self.decode(e) for e in v)
        if tag in ("dict", "odict") and isinstance(v, list):
            out = OrderedDict() if tag == "odict" else {}
            for item in v:
                if not (isinstance(item, list) and len(item) == 2):
                    raise _corrupt("a saved dict entry is not a [key, value] pair")
                k = self.decode(item[0])
                try:
                    hash(k)
                except TypeError:
                    raise _corrupt(f"a saved dict key is a {type(k).__name__}") from None
                out[k] = self.decode(item[1])
            return out
        raise _corrupt(f"unexpected entry {{{tag!r}: ...}} in the saved structure")

    def tensor(self, x):
        name = x["tensor"]
        if not isinstance(name, str) or set(x) - {"tensor", "dtype", "requires_grad",
                                                  "parameter"}:
            raise _corrupt(f"unexpected tensor entry {sorted(x)} in the saved structure")
        key = json.dumps(x, sort_keys=True)
        t = self.made.get(key)
        if t is not None:
            return t
        a = self.arrays.get(name)
        if a is None:
            raise _corrupt(f"the saved structure names tensor {name!r}, which the file lacks")
        dtype = x.get("dtype")
        if dtype is not None:
            if dtype != "complex128" or a.dtype != np.float64 or a.ndim == 0 or a.shape[-1] != 2:
                raise _corrupt(f"tensor {name!r} cannot be read as {dtype!r}")
            a = a.view(np.complex128)[..., 0]
        t = _wrap(a)
        if x.get("requires_grad") is True:
            if a.dtype.kind not in "fcV":
                raise _corrupt(f"tensor {name!r} of dtype {a.dtype} cannot require grad")
            t.requires_grad_(True)
        if x.get("parameter") is True:
            from .nn import Parameter
            t = Parameter(t, requires_grad=t.requires_grad)
        self.made[key] = t
        return t


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None,
         **pickle_load_args):
    """Load what ``save`` wrote (or any safetensors file: then a dict of its
    tensors by name) from ``f``, a path or a binary file object (left just
    after the file's bytes, as ``torch.load`` leaves it).

    Nothing in the file is executed, whatever ``weights_only`` says (there is
    no pickle: ``pickle_module`` and pickle's arguments are accepted and have
    no effect); a file that is not a well-formed safetensors file raises
    ``ValueError``.  Only the CPU exists, so ``map_location`` may only name it.
    Tensors that shared memory when saved (a tensor and its view) come back as
    separate tensors; the same tensor object saved twice comes back as one."""
    if map_location is not None and not callable(map_location) and not isinstance(map_location, dict):
        try:
            cpu = device(map_location).type == "cpu"
        except (RuntimeError, TypeError):
            cpu = False
        if not cpu:
            raise RuntimeError(f"tensorplay runs on the CPU only; cannot map to {map_location!r}")
    stream = not isinstance(f, (str, bytes, os.PathLike))
    pos = _tell(f) if stream else None
    data = _read_all(f)
    entries, meta, start, end = _parse(data, exact=not stream)
    if stream and start + end < len(data) and pos is not None:
        f.seek(pos + start + end)           # (what follows in the stream is not this file's)
    arrays = _arrays(data, entries, start)
    structure = meta.get("tensorplay")
    if structure is None:                   # a plain safetensors file: its tensors by name
        return {name: _wrap(arrays[name]) for name in sorted(arrays)}
    try:
        saved = json.loads(structure, parse_constant=_reject_constant)
    except json.JSONDecodeError as e:
        raise _corrupt(f"the saved structure is not valid JSON ({e.msg})") from None
    except RecursionError:
        raise _corrupt("the saved structure is nested too deeply") from None
    if not (isinstance(saved, dict) and saved.get("version") == _FORMAT_VERSION
            and "object" in saved):
        raise _corrupt("the saved structure is not one this version of tensorplay writes")
    try:
        return _Reader(arrays).decode(saved["object"])
    except RecursionError:
        raise _corrupt("the saved structure is nested too deeply") from None
