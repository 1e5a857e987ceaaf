"""In-place ops on views while gradients are recorded.

Rebasing a view's history onto its base (PyTorch's CopySlices) is not built
yet; until it is, such an op raises instead of risking a wrong gradient.
"""


def rebase_inplace_view(self, f, args, kwargs, name):
    raise RuntimeError(
        f"{name}_(): in-place modification of a view while gradients are recorded is not "
        "supported yet by tensorplay. Apply the op out of place (e.g. `y = x.clone(); "
        "y[idx] = ...` on a tensor that is not a view), or do it under tensorplay.no_grad().")
