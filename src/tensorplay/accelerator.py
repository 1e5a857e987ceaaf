"""``tensorplay.accelerator``: there is none (tensorplay computes on the CPU)."""


def is_available():
    return False


def device_count():
    return 0


def current_accelerator(check_available=False):
    """None: no accelerator."""
    return None
