"""``tensorplay.text.cognitive.functional``: the same ops as ``tensorplay.text.functional``."""
from ..functional import (add, chat_completion, deterministic_evaluator, exact_match_evaluator,
                          format, join, lm_judge_evaluator, split, sum)

__all__ = ["add", "chat_completion", "deterministic_evaluator", "exact_match_evaluator", "format",
           "join", "lm_judge_evaluator", "split", "sum"]
