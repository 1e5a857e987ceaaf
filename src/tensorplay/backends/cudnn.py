"""``tensorplay.backends.cudnn``: not available; its flags can be set (code that
sets ``deterministic``/``benchmark`` runs unchanged) and change nothing."""
enabled = True
deterministic = False
benchmark = False
allow_tf32 = True


def is_available():
    return False


def version():
    return None
