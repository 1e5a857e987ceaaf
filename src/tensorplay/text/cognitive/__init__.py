"""tensorplay.text.cognitive: afnio's spelling of the same names
(``cognitive.Parameter``, ``cognitive.functional``)."""
from .._variable import Parameter
from . import functional

__all__ = ["Parameter", "functional"]
