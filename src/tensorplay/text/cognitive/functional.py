"""``tensorplay.text.cognitive.functional``: the same ops as ``tensorplay.text.functional``."""
from ..functional import (add, chat_completion, deterministic_evaluator,  # noqa: F401
                          exact_match_evaluator, format, join, lm_judge_evaluator, split, sum)
from ..functional import __all__  # noqa: F401
