"""Anomaly detection (``torch.autograd.anomaly_mode``).  Its state and reports
are part of the autograd core, which the engine and node recording read
(``tensorplay/_autograd/anomaly_mode.py``); this module is where the public
API names them."""
from .._autograd.anomaly_mode import (creation_trace, detect_anomaly,  # noqa: F401
                                      is_anomaly_check_nan_enabled, is_anomaly_enabled,
                                      set_detect_anomaly)
