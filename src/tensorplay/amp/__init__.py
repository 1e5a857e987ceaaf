"""``tensorplay.amp``: automatic mixed precision, as ``torch.amp`` (CPU autocast
and ``GradScaler``)."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "custom_bwd", "custom_fwd", "is_autocast_available", "GradScaler"]
