"""tensorplay.datasets: small datasets shipped inside the package, for examples
and tests that must run without a download.

PyTorch keeps datasets in torchvision/torchtext; this is not a PyTorch module.
It holds one dataset, the 8x8 handwritten digits (``load_digits``) that
``examples/demo.py`` trains a CNN on.  Where the data comes from and its
licence: ``DIGITS_LICENSE.txt`` beside this file.
"""
import gzip
from importlib import resources

import numpy as np

from .._creation import from_numpy

__all__ = ["load_digits"]


def load_digits():
    """The 1797 handwritten digits of the UCI "Optical Recognition of
    Handwritten Digits" test set (scikit-learn's ``load_digits``), as
    ``(images, labels)``: ``images`` a float32 tensor of shape (1797, 8, 8)
    holding pixel counts 0..16 (scale them yourself, e.g. ``images / 16``),
    ``labels`` an int64 tensor of the digits 0..9.  Read from the file
    shipped with the package, each call afresh (tensors of their own).

        >>> from tensorplay.datasets import load_digits
        >>> images, labels = load_digits()
        >>> images.shape, images.dtype, labels.dtype
        (tensorplay.Size([1797, 8, 8]), tensorplay.float32, tensorplay.int64)
        >>> labels[:10].tolist()
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    """
    with resources.files(__name__).joinpath("digits.csv.gz").open("rb") as raw, \
            gzip.open(raw, "rt") as f:
        rows = np.loadtxt(f, delimiter=",", dtype=np.int64)
    images = np.ascontiguousarray(rows[:, :64].reshape(-1, 8, 8), dtype=np.float32)
    labels = np.ascontiguousarray(rows[:, 64])
    return from_numpy(images), from_numpy(labels)
