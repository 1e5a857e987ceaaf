"""Table entries for ops/ctc.py (``ctc_loss`` and its backward), spelled as
``nn.functional.ctc_loss`` calls (the same code calls torch as the oracle).

The main row differentiates the logits ``x`` of ``log_probs = log_softmax(x)``,
where tensorplay's and PyTorch's gradients agree.  With respect to
``log_probs`` themselves tensorplay's is the loss's derivative, ``-occupancy``;
PyTorch's is ``exp(log_probs) - occupancy`` (the logits', which fails
gradcheck): the ``ctc_loss_log_probs`` row compares with torch's less that
term."""
import numpy as np

from . import E, OpCase, Sample, arr

T_, N_, C_ = 6, 3, 5
X = arr(T_, N_, C_, seed=301)
TG = np.array([[1, 2, 2], [3, 3, 4], [1, 4, 2]])            # repeated labels in the first two
IL = np.array([6, 5, 6])
TL = np.array([3, 2, 1])
TGC = np.array([1, 2, 2, 3, 3, 1])                          # the same targets, concatenated
IL_SHORT = np.array([4, 6, 2])                              # frames past a sample's length
TG_B = np.array([[1, 3, 4], [0, 0, 0], [4, 4, 1]])          # blank 2; an empty target
TL_B = np.array([2, 0, 3])
TG_I = np.array([[1, 1, 1], [2, 3, 0], [4, 0, 0]])          # [1, 1, 1] needs 5 frames: 4 given
IL_I = np.array([4, 6, 3])
TL_I = np.array([3, 2, 1])
X1 = arr(T_, C_, seed=302)                                  # unbatched
X7 = arr(7, 2, 4, seed=303)
TG7 = np.array([[3, 1, 1, 2], [2, 2, 2, 0]])
IL7 = np.array([7, 7])
TL7 = np.array([4, 3])
LP = np.log(np.exp(X) / np.exp(X).sum(-1, keepdims=True))  # normalized log-probabilities

_WHERE = " (while checking arguments for ctc_loss_allocate_outputs)"


def _ctc(T, x, targets, input_lengths, target_lengths, **kw):
    return T.nn.functional.ctc_loss(x.log_softmax(-1), targets, input_lengths, target_lengths, **kw)


def _ctc_lists(T, x, targets, **kw):
    """Lengths as Python lists (PyTorch's int[] overload)."""
    return T.nn.functional.ctc_loss(x.log_softmax(-1), targets, [6, 5, 6], (3, 2, 1), **kw)


def _ctc_raw(T, lp, targets, input_lengths, target_lengths, **kw):
    return T.nn.functional.ctc_loss(lp, targets, input_lengths, target_lengths, **kw)


def _ctc_raw_torch(T, lp, targets, input_lengths, target_lengths, reduction="none", **kw):
    """torch's loss with the derivative with respect to log_probs: its gradient
    less exp(log_probs) on each sample's frames (the value unchanged)."""
    loss = T.nn.functional.ctc_loss(lp, targets, input_lengths, target_lengths, reduction=reduction, **kw)
    live = T.arange(lp.shape[0])[:, None] < input_lengths[None, :]
    s = (lp.exp() * live[..., None]).sum((0, 2))
    if reduction == "sum":
        s = s.sum()
    return loss - (s - s.detach())


def _ctc_half(T, x, targets, input_lengths, target_lengths):
    return T.nn.functional.ctc_loss(x.log_softmax(-1).half(), targets, input_lengths, target_lengths)


CASES = [
    OpCase("ctc_loss", _ctc,
           [Sample([X, TG, IL, TL]),
            Sample([X, TG, IL, TL], {"reduction": "sum"}, desc="sum"),
            Sample([X, TG, IL, TL], {"reduction": "none"}, desc="none"),
            Sample([X, TGC, IL, TL], {"reduction": "none"}, desc="concatenated"),
            Sample([X, TG, IL_SHORT, TL], {"reduction": "none"}, desc="short inputs"),
            Sample([X, TG_B, IL, TL_B], {"blank": 2}, desc="blank 2, empty target"),
            Sample([X, TG_I, IL_I, TL_I], {"reduction": "none", "zero_infinity": True},
                   desc="impossible, zero_infinity"),
            Sample([X, TG_I, IL_I, TL_I], {"zero_infinity": True}, desc="impossible, zero_infinity mean"),
            Sample([X7, TG7, IL7, TL7], {"blank": 0, "reduction": "sum"}, desc="long repeats"),
            Sample([X1, TG[0], np.array(6), np.array(3)], {"reduction": "none"}, desc="unbatched"),
            Sample([X1, TG[0], np.array(6), np.array(3)], desc="unbatched mean")],
           covers=("ctc_loss", "ctc_loss_backward"), complex=False, low_precision=False,
           # the derivative of the gradient is PyTorch's error
           gradgrad=False,
           errors=[E(RuntimeError, "blank must be in label range", X, TG, IL, TL, blank=5),
                   E(RuntimeError, "blank must be in label range", X, TG, IL, TL, blank=-1, desc="negative"),
                   E(RuntimeError, "Expected input_lengths to have value at most 6, but got value 7" + _WHERE,
                     X, TG, np.array([6, 7, 6]), TL, desc="input too long"),
                   E(RuntimeError, "Expected input_lengths to have value at least 0, but got value -1" + _WHERE,
                     X, TG, np.array([6, -1, 6]), TL, desc="negative input length"),
                   E(RuntimeError, "Expected target_lengths to have value at least 0, but got value -2" + _WHERE,
                     X, TG, IL, np.array([3, -2, 1]), desc="negative target length"),
                   E(RuntimeError, "Expected tensor to have size at least 4 at dimension 1, but got size 3 for "
                                   "argument #2 'targets'" + _WHERE, X, TG, IL, np.array([4, 2, 1]),
                     desc="target too long"),
                   E(RuntimeError, "Expected tensor to have size 6 at dimension 0, but got size 5 for "
                                   "argument #2 'targets'" + _WHERE, X, TGC[:5], IL, TL,
                     desc="concatenated too short"),
                   E(RuntimeError, "Expected tensor to have size 3 at dimension 0, but got size 2 for "
                                   "argument #2 'targets'" + _WHERE, X, TG[:2], IL, TL, desc="targets batch"),
                   E(RuntimeError, "Expected 1 to 2 dimensions, but got 3-dimensional tensor for argument #2 "
                                   "'targets'" + _WHERE, X, TG[None], IL, TL, desc="3-d targets"),
                   E(RuntimeError, "Expected 3-dimensional tensor, but got 5-dimensional tensor for argument #1 "
                                   "'log_probs'" + _WHERE, X[None], TG, IL, TL, desc="4-d log_probs"),
                   E(RuntimeError, "input_lengths must be of size batch_size", X, TG, IL[:2], TL,
                     desc="input_lengths size"),
                   E(RuntimeError, "target_lengths must be of size batch_size", X, TG, IL, TL[:2],
                     desc="target_lengths size"),
                   E(RuntimeError, "input_lengths must be integral", X, TG, IL.astype(np.float64), TL,
                     desc="float lengths"),
                   E(RuntimeError, "target_lengths must be integral", X, TG, IL, TL.astype(bool),
                     desc="bool lengths"),
                   E(RuntimeError, "log_probs tensor must not be empty", X[:, :0], TG[:0], IL[:0], TL[:0],
                     desc="empty batch"),
                   E(NotImplementedError, "\"ctc_loss_cpu\" not implemented for 'Half'", X, TG, IL, TL,
                     fn=_ctc_half, desc="half"),
                   E(ValueError, "avg is not a valid value for reduction", X, TG, IL, TL, reduction="avg",
                     desc="reduction"),
                   E(TypeError, r"^ctc_loss\(\) received an invalid combination of arguments - got \(Tensor, "
                                r"Tensor, Tensor, list, int, int, bool\), but expected one of:\n",
                     X, TG, IL, fn=lambda T, x, tg, il: T.nn.functional.ctc_loss(x, tg, il, [3, 2, 1]),
                     regex=True, desc="mixed lengths")]),
    OpCase("ctc_loss_lists", _ctc_lists,
           [Sample([X, TG]), Sample([X, TGC], {"reduction": "none", "blank": 0}, desc="concatenated")],
           covers=("ctc_loss", "ctc_loss_backward"), complex=False, low_precision=False, gradgrad=False),
    # the derivative with respect to log_probs (-occupancy); PyTorch's (exp(log_probs) -
    # occupancy, the logits' gradient) less exp(log_probs) is the oracle
    OpCase("ctc_loss_log_probs", _ctc_raw,
           [Sample([LP, TG, IL, TL], {"reduction": "none"}),
            Sample([LP, TG_B, np.array([4, 6, 6]), TL_B], {"blank": 2, "reduction": "sum"}, desc="blank 2, short")],
           covers=("ctc_loss", "ctc_loss_backward"), complex=False, low_precision=False, gradgrad=False,
           torch_fn=_ctc_raw_torch),
]
