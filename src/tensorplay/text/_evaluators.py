"""Evaluators: the losses of the text module.

Each returns ``(score, explanation)``, two outputs of one node.  Their outputs
are the only Variables ``backward()`` may start from without explicit
feedback: the node's ``implicit_grad`` is its own explanation (as a scalar
loss's implicit gradient is one).  Backward asks the backward model, once per
sample, for feedback on that sample's prediction, unless ``success_fn`` says
the reduced score leaves nothing to improve.
"""
import builtins
import numbers

from ._chat import Prompt
from ._llm import ask_json, request_feedback, show_messages
from ._node import TextNode, record, sample, texts
from ._variable import Variable, feedback


def _targets(op, prediction, target):
    """Per-sample (predictions, targets), and whether it is a batch."""
    if not isinstance(prediction, Variable):
        raise TypeError(f"{op}: prediction must be a Variable, got {type(prediction).__name__}")
    tdata = target._data if isinstance(target, Variable) else target
    pdata = prediction._data
    if type(pdata) is list:
        if type(tdata) is list and len(tdata) != len(pdata):
            raise ValueError(f"{op}: {len(pdata)} predictions and {len(tdata)} targets")
        return pdata, [sample(tdata, i) for i in range(len(pdata))], True
    if type(tdata) is list:
        raise ValueError(f"{op}: one prediction and a batch of {len(tdata)} targets")
    return [pdata], [tdata], False


def _check_score(op, s):
    if not isinstance(s, numbers.Real):
        raise TypeError(f"{op}: a score must be a number, got {type(s).__name__}")
    return s


class _EvaluatorNode(TextNode):
    """``saved``: a dict with the per-sample predictions, targets and scores, the
    reduced score, the prediction's role, what was evaluated (``purpose``), how
    scores were reduced, and ``success_fn``."""
    op = ""

    seed = None     # (explanation data, its role), kept after release

    def implicit_grad(self, output_nr):
        """The feedback ``backward()`` starts from: the evaluator's explanation."""
        data, role = self.seed
        return (feedback(data, role),)

    def sections(self, s, i):
        return [("Evaluation", f"{s['purpose']}. Scores of the samples are reduced by "
                               f"{s['reduction']}.")]

    def backward(self, grads, saved):
        fbs = (grads[0] or ()) + (grads[1] or ())
        if not fbs:
            return (None,)
        success_fn = saved["success_fn"]
        if success_fn is not None and success_fn(saved["score"]):
            return (None,)              # nothing to improve
        batched, role = saved["batched"], saved["role"]
        out = []
        for i, (pred, target, score) in enumerate(zip(saved["predictions"], saved["targets"],
                                                      saved["scores"])):
            said = texts(fbs, i if batched else None)
            if not said:
                out.append(None)
                continue
            pred_text = pred if isinstance(pred, str) else repr(pred)
            sections = self.sections(saved, i) + [
                ("Target", "(none)" if target is None else
                 target if isinstance(target, str) else repr(target)),
                ("Score of this sample", repr(score)),
                ("Feedback on the evaluation", "\n\n".join(said))]
            out.append(request_feedback(self.op, sections, [(role, pred_text)])[0])
        if all(t is None for t in out):
            return (None,)
        return ((feedback(out if batched else out[0], role),),)


class ExactMatchEvaluatorBackward0(_EvaluatorNode):
    op = "exact_match_evaluator"


class DeterministicEvaluatorBackward0(_EvaluatorNode):
    op = "deterministic_evaluator"


class LMJudgeEvaluatorBackward0(_EvaluatorNode):
    op = "lm_judge_evaluator"

    def sections(self, s, i):
        return super().sections(s, i) + [("The judge's conversation",
                                          show_messages(s["judge_messages"][i]))]


def _evaluate(node_cls, name, prediction, preds, targets, batched, scores, explanations,
              success_fn, reduction_fn, reduction_fn_purpose, purpose, extra=None):
    op = node_cls.op
    if reduction_fn is None:        # (afnio's "no aggregation": each sample's score)
        score = [_check_score(op, s) for s in scores] if batched else _check_score(op, scores[0])
        if reduction_fn_purpose == "summation":         # (the default's word would be wrong)
            reduction_fn_purpose = "one score per sample"
    else:
        score = _check_score(op, reduction_fn(scores))
    score_v = Variable(score, f"score of the {name} ({reduction_fn_purpose})")
    expl_v = Variable(explanations if batched else explanations[0], f"explanation of the {name}")

    def saved():
        d = {"predictions": preds, "targets": targets, "scores": scores, "score": score,
             "batched": batched, "role": prediction.role, "purpose": purpose,
             "reduction": reduction_fn_purpose, "success_fn": success_fn}
        d.update(extra or {})
        return d
    node = record(node_cls, (prediction,), (score_v, expl_v), saved)
    if node is not None:
        node.seed = (expl_v._data, expl_v.role)
    return score_v, expl_v


def deterministic_evaluator(prediction, target, eval_fn, eval_fn_purpose, success_fn=None,
                            reduction_fn=builtins.sum, reduction_fn_purpose="summation"):
    """Score each sample with ``eval_fn(prediction_item, target_item)`` (described
    by ``eval_fn_purpose``), reduce the scores with ``reduction_fn``; returns
    ``(score, explanation)``.  ``success_fn(score)`` true: backward sends no
    feedback."""
    op = DeterministicEvaluatorBackward0.op
    if not callable(eval_fn):
        raise TypeError(f"{op}: eval_fn must be callable")
    preds, targets, batched = _targets(op, prediction, target)
    scores = [_check_score(op, eval_fn(p, t)) for p, t in zip(preds, targets)]
    explanations = [f"{eval_fn_purpose}: the prediction {p!r} scored {s!r} against the target "
                    f"{t!r}." for p, t, s in zip(preds, targets, scores)]
    return _evaluate(DeterministicEvaluatorBackward0, "deterministic evaluator", prediction,
                     preds, targets, batched, scores, explanations, success_fn, reduction_fn,
                     reduction_fn_purpose, f"A deterministic evaluator ({eval_fn_purpose}) "
                                           f"scored the prediction against the target")


def exact_match_evaluator(prediction, target, reduction_fn=builtins.sum,
                          reduction_fn_purpose="summation"):
    """1 for each sample whose prediction equals its target, else 0, reduced by
    ``reduction_fn``; returns ``(score, explanation)``.

        >>> import tensorplay.text as tt
        >>> pred = tt.Variable(["yes", "no"], requires_grad=True)
        >>> score, explanation = tt.functional.exact_match_evaluator(pred, ["yes", "yes"])
        >>> score.data, explanation.grad_fn.name()
        (1, 'ExactMatchEvaluatorBackward0')
    """
    op = ExactMatchEvaluatorBackward0.op
    preds, targets, batched = _targets(op, prediction, target)
    scores = [1 if p == t else 0 for p, t in zip(preds, targets)]
    explanations = [f"The prediction {p!r} {'matches' if s else 'does not match'} the target "
                    f"{t!r}." for p, t, s in zip(preds, targets, scores)]
    return _evaluate(ExactMatchEvaluatorBackward0, "exact match evaluator", prediction, preds,
                     targets, batched, scores, explanations, None, reduction_fn,
                     reduction_fn_purpose, "An exact-match evaluator scored the prediction 1 if "
                                           "it equals the target exactly, else 0")


def _parse_judgement(obj):
    score, expl = obj.get("score"), obj.get("explanation")
    if not isinstance(score, (int, float)):
        raise ValueError('"score" must be a number')
    if not isinstance(expl, str):
        raise ValueError('"explanation" must be a string')
    return score, expl


def lm_judge_evaluator(model, messages, prediction, target=None, inputs=None, success_fn=None,
                       reduction_fn=builtins.sum, reduction_fn_purpose="summation",
                       **completion_args):
    """A language model judges each sample: ``messages`` (as for
    ``chat_completion``) with ``{prediction}``, ``{target}`` and the names in
    ``inputs`` filled in, answered with JSON ``{"score": ..., "explanation":
    ...}`` (retried like every JSON reply).  Scores are reduced by
    ``reduction_fn``; returns ``(score, explanation)``."""
    op = LMJudgeEvaluatorBackward0.op
    if not callable(model):
        raise TypeError(f"{op}: model must be callable, got {type(model).__name__}")
    preds, targets, batched = _targets(op, prediction, target)
    inputs = dict(inputs or {})
    for k in ("prediction", "target"):
        if k in inputs:
            raise ValueError(f"{op}: inputs may not be named {k!r} (it is filled in by the "
                             f"evaluator)")
    inputs["prediction"] = [p if isinstance(p, str) else repr(p) for p in preds]
    if target is not None:
        inputs["target"] = [t if isinstance(t, str) else repr(t) for t in targets]
    prompt = Prompt(op, messages, inputs)
    judged = [prompt.sample(i) for i in range(len(preds))]
    form = '{"score": <number>, "explanation": "<why>"}'
    results = [ask_json(model, msgs, _parse_judgement, op, form, **completion_args)
               for msgs in judged]
    return _evaluate(LMJudgeEvaluatorBackward0, "language-model judge", prediction, preds,
                     targets, batched, [s for s, _ in results], [e for _, e in results],
                     success_fn, reduction_fn, reduction_fn_purpose,
                     "A language model judged the prediction", {"judge_messages": judged})
