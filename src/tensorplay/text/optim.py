"""tensorplay.text.optim: optimizers that rewrite Variables from their feedback."""
from .._autograd.grad_mode import enable_grad
from ._llm import ask_json
from ._node import texts
from ._variable import Variable

__all__ = ["TGD"]

TGD_SYSTEM = (
    "You are the optimizer of a system that improves text by automatic differentiation: you "
    "rewrite a variable so that it addresses the feedback it received (its gradient), keeps "
    "what works, and satisfies every constraint. Reply with only a JSON object.")

_FORM = '{"value": "<the new value>"}'


class TGD:
    """Textual gradient descent: ``step()`` asks ``model`` to rewrite each
    parameter that has feedback, once per parameter, showing its role, its
    value, its feedback, the ``constraints`` (a list of sentences) and the last
    ``momentum`` (value, feedback) pairs of its earlier steps; the reply is the
    JSON ``{"value": "..."}`` (retried like every JSON reply) and replaces the
    parameter's ``data``.

        >>> import tensorplay.text as tt
        >>> from tensorplay.text.models import ScriptedModel
        >>> p = tt.Parameter("Be brief.", role="instruction")
        >>> p.grad = [tt.Variable("Too vague.", role="feedback to instruction")]
        >>> opt = tt.optim.TGD([p], model=ScriptedModel(['{"value": "Answer in one word."}']))
        >>> opt.step(); p.data
        'Answer in one word.'
    """

    def __init__(self, params, model, constraints=None, momentum=0):
        if isinstance(params, Variable):
            raise TypeError(f"params argument given to the optimizer should be an iterable of "
                            f"Variables, but got {type(params).__name__}")
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        for p in params:
            if not isinstance(p, Variable):
                raise TypeError(f"TGD can only optimize Variables, but one of the params is "
                                f"{type(p).__name__}")
            if not p.is_leaf or not p.requires_grad:
                raise ValueError("TGD can only optimize leaf Variables that require grad")
            if isinstance(p.data, list):
                raise TypeError(f"TGD optimizes Variables holding one value, but {p.role!r} "
                                f"holds a batch")
        if len({id(p) for p in params}) != len(params):
            raise ValueError("some parameters appear more than once")
        if not callable(model):
            raise TypeError(f"model must be callable, got {type(model).__name__}")
        constraints = [] if constraints is None else list(constraints)
        if not all(isinstance(c, str) for c in constraints):
            raise TypeError("constraints must be a list of str")
        if not isinstance(momentum, int) or isinstance(momentum, bool) or momentum < 0:
            raise ValueError(f"Invalid momentum value: {momentum!r} (a count of past steps >= 0)")
        self.model = model
        self.param_groups = [{"params": params, "constraints": constraints,
                              "momentum": momentum}]
        self.state = {p: {"history": []} for p in params}

    def zero_grad(self):
        """Every parameter's ``grad`` back to ``[]``."""
        for group in self.param_groups:
            for p in group["params"]:
                p.grad = []

    clear_grad = zero_grad

    def step(self, closure=None):
        """Rewrite every parameter that has feedback (``closure``, if given, is
        called first with grad enabled and its result returned)."""
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                said = texts(p.grad)
                if not said:
                    continue
                history = self.state[p]["history"]
                value = ask_json(self.model, self._messages(p, said, group, history),
                                 self._parser(p), "TGD.step", _FORM)
                if group["momentum"]:
                    history.append([p.data, said])
                    del history[:-group["momentum"]]
                p.data = value
        return loss

    @staticmethod
    def _parser(p):
        want = str if isinstance(p.data, str) else (int, float)

        def parse(obj):
            v = obj.get("value")
            if not isinstance(v, want) or isinstance(v, bool) and want is not str:
                raise ValueError('"value" must be ' + ("a string" if want is str else "a number"))
            return v
        return parse

    @staticmethod
    def _messages(p, said, group, history):
        show = (lambda v: v if isinstance(v, str) else repr(v))
        parts = [f"## Variable\nRole: {p.role or 'unnamed variable'}\nCurrent value:\n"
                 f"{show(p.data)}",
                 "## Feedback on the current value\n" + "\n\n".join(
                     f"{k + 1}. {t}" for k, t in enumerate(said))]
        if group["constraints"]:
            parts.append("## Constraints the new value must satisfy\n" +
                         "\n".join(f"- {c}" for c in group["constraints"]))
        if history:
            parts.append("## Earlier values and the feedback they received (oldest first)\n" +
                         "\n\n".join(f"### Value {k + 1}\n{show(v)}\n### Feedback on value "
                                     f"{k + 1}\n" + "\n\n".join(fb)
                                     for k, (v, fb) in enumerate(history)))
        parts.append(f"Reply with only a JSON object of the form {_FORM}.")
        return [{"role": "system", "content": TGD_SYSTEM},
                {"role": "user", "content": "\n\n".join(parts)}]

    def state_dict(self):
        """The optimizer's state: per parameter (by position) its history, and the
        hyperparameters (the parameters themselves are not in it, as in PyTorch)."""
        params = [p for g in self.param_groups for p in g["params"]]
        return {"state": {i: {"history": [[v, list(fb)] for v, fb in self.state[p]["history"]]}
                          for i, p in enumerate(params)},
                "param_groups": [{"params": list(range(len(params))),
                                  "constraints": list(g["constraints"]),
                                  "momentum": g["momentum"]} for g in self.param_groups]}

    def load_state_dict(self, state_dict):
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        params = [p for g in self.param_groups for p in g["params"]]
        for g, saved in zip(self.param_groups, groups):
            if len(saved["params"]) != len(g["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 "match the size of optimizer's group")
        for g, saved in zip(self.param_groups, groups):
            g["constraints"] = list(saved["constraints"])
            g["momentum"] = saved["momentum"]
        for i, p in enumerate(params):
            s = state_dict["state"].get(i, state_dict["state"].get(str(i), {"history": []}))
            self.state[p] = {"history": [[v, list(fb)] for v, fb in s["history"]]}

    def __repr__(self):
        g = self.param_groups[0]
        return (f"TGD(params={len(g['params'])}, constraints={g['constraints']!r}, "
                f"momentum={g['momentum']})")
