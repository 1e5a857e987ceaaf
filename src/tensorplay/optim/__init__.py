"""tensorplay.optim: optimizers and learning-rate schedulers (PyTorch's ``torch.optim``)."""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401
from .adam_variants import Adamax, NAdam, RAdam  # noqa: F401
from .rmsprop import RMSprop  # noqa: F401
from .adagrad import Adagrad  # noqa: F401
from .adadelta import Adadelta  # noqa: F401
from .lbfgs import LBFGS  # noqa: F401
from .asgd import ASGD  # noqa: F401
from .rprop import Rprop  # noqa: F401
from .adafactor import Adafactor  # noqa: F401
from ._muon import Muon  # noqa: F401
from . import lr_scheduler  # noqa: F401
from . import swa_utils  # noqa: F401

# as in PyTorch, the algorithms' modules are importable but not attributes of the package
for _name in ("adadelta", "adafactor", "adagrad", "adam", "adam_variants", "asgd", "lbfgs", "optimizer", "rmsprop",
              "rprop", "sgd"):
    globals().pop(_name)
del _name

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "Adamax", "AdamW", "LBFGS", "Muon", "NAdam",
           "Optimizer",
           "RAdam", "RMSprop", "Rprop", "SGD"]
