"""tensorplay.text: automatic differentiation over text, on tensorplay's engine.

A ``Variable`` holds text (or a number, or a batch of them); ops on Variables
record nodes on the same graph tensors use, under the same grad mode, and the
same engine runs their backward.  A gradient is natural-language *feedback*
(TextGrad: Yuksekgonul et al., 2024; the API is afnio's): a language model
(the backward model) writes it, feedback meeting at a Variable is kept side by
side, and an optimizer (``optim.TGD``) rewrites a prompt from it.

    >>> import tensorplay.text as tt
    >>> from tensorplay.text.models import ScriptedModel
    >>> prompt = tt.Parameter("Classify the sentiment.", role="system prompt")
    >>> llm = ScriptedModel(["Positive!",                                  # the answer
    ...                      '{"feedback": ["Say positive, in lowercase."]}',  # on the answer
    ...                      '{"feedback": ["Ask for one lowercase word."]}'])  # on the prompt
    >>> pred = tt.functional.chat_completion(
    ...     llm, [{"role": "system", "content": [prompt]},
    ...           {"role": "user", "content": ["I love it"]}])
    >>> score, explanation = tt.functional.exact_match_evaluator(pred, "positive")
    >>> with tt.backward_model(llm):
    ...     explanation.backward()
    >>> score.data, prompt.grad[0].data
    (0, 'Ask for one lowercase word.')
"""
from .._autograd.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ._variable import Parameter, Variable
from ._llm import backward_model, get_backward_model, set_backward_model
from . import autodiff, functional, models, optim, cognitive

__all__ = ["Parameter", "Variable", "autodiff", "backward_model", "cognitive", "enable_grad",
           "functional", "get_backward_model", "is_grad_enabled", "models", "no_grad", "optim",
           "set_backward_model", "set_grad_enabled"]
