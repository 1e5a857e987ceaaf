"""tensorplay.text.functional: the ops on Variables, each a node of the shared graph.

Deterministic ops (their backward makes no model call): ``add`` (also
``x + y``), ``sum``, ``split``, ``join``, ``format``.  A language-model call:
``chat_completion``.  Evaluators, which return ``(score, explanation)`` and
are where ``backward()`` starts: ``exact_match_evaluator``,
``deterministic_evaluator``, ``lm_judge_evaluator``.
"""
from ._chat import chat_completion
from ._evaluators import deterministic_evaluator, exact_match_evaluator, lm_judge_evaluator
from ._ops import add, format, join, split, sum

__all__ = ["add", "chat_completion", "deterministic_evaluator", "exact_match_evaluator", "format",
           "join", "lm_judge_evaluator", "split", "sum"]
