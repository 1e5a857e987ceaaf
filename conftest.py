"""Docstring examples run as doctests with ``tensorplay`` (and ``tp``) in scope."""
import pytest


@pytest.fixture(autouse=True)
def _doctest_names(doctest_namespace):
    import tensorplay
    doctest_namespace["tensorplay"] = tensorplay
    doctest_namespace["tp"] = tensorplay
