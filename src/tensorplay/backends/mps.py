"""``tensorplay.backends.mps``: Apple's Metal backend is never available."""


def is_available():
    return False


def is_built():
    return False
