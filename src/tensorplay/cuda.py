"""``tensorplay.cuda``: what CPU-only code asks of ``torch.cuda``.  tensorplay
computes on the CPU only, so no CUDA device is ever available: the queries
answer so, the seeding and cache calls do nothing (as on a CPU-only build of
PyTorch), and what needs a device raises clearly."""
from ._tensor import check_device

__all__ = ["is_available", "device_count", "is_initialized", "current_device", "synchronize",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "empty_cache", "get_device_name",
           "set_device", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "is_bf16_supported", "device"]


def is_available():
    """False: tensorplay runs on the CPU only."""
    return False


def device_count():
    return 0


def is_initialized():
    return False


def _no_cuda(*args, **kwargs):
    check_device("cuda")


current_device = synchronize = get_device_name = set_device = _no_cuda
get_device_capability = get_device_properties = _no_cuda


def manual_seed(seed):
    """Does nothing (no CUDA generator), as on a CPU-only build of PyTorch."""


manual_seed_all = manual_seed


def seed():
    pass


seed_all = seed


def empty_cache():
    pass


def memory_allocated(device=None):
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def is_bf16_supported(including_emulation=True):
    return False


class device:
    """``with tensorplay.cuda.device(i):`` needs a CUDA device: raises."""

    def __init__(self, device):
        self.idx = device

    def __enter__(self):
        check_device("cuda")

    def __exit__(self, *exc):
        return False
