import tensorplay as torch
# "Model ensembling" with function transforms: several MLPs of one architecture run
# one by one, then all at once by stacking their parameters (stack_module_state) and
# mapping functional_call over the stack with vmap, for a different minibatch per model
# (in_dims=0 everywhere) and for one minibatch shared by all (in_dims=(0, 0, None)).
import copy

import tensorplay.nn as nn
import tensorplay.nn.functional as F
from tensorplay.func import functional_call, stack_module_state, vmap

torch.manual_seed(0)


class SimpleMLP(nn.Module):
    def __init__(self):
        super(SimpleMLP, self).__init__()
        self.fc1 = nn.Linear(784, 64)
        self.fc2 = nn.Linear(64, 64)
        self.fc3 = nn.Linear(64, 10)

    def forward(self, x):
        x = x.flatten(1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.fc2(x)
        x = F.relu(x)
        x = self.fc3(x)
        return x


# pretend MNIST: minibatches of 32 images of 28x28, and five models
device = "cpu"
num_models = 5

data = torch.randn(num_models, 32, 1, 28, 28, device=device)
targets = torch.randint(10, (num_models * 32,), device=device)

models = [SimpleMLP().to(device) for _ in range(num_models)]

# one minibatch per model ...
minibatches = data[:num_models]
predictions_diff_minibatch_loop = [model(minibatch) for model, minibatch in zip(models, minibatches)]

# ... or one minibatch for all of them
minibatch = data[0]
predictions2 = [model(minibatch) for model in models]

# every parameter and buffer, stacked over the models: fc1.weight becomes (5, 64, 784)
params, buffers = stack_module_state(models)
print([p.size(0) for p in params.values()])

# a copy of one model to call with the stacked state (its own numbers are never used)
base_model = copy.deepcopy(models[0])


def fmodel(params, buffers, x):
    return functional_call(base_model, (params, buffers), (x,))


assert minibatches.shape == (num_models, 32, 1, 28, 28)

predictions1_vmap = vmap(fmodel)(params, buffers, minibatches)
assert torch.allclose(predictions1_vmap, torch.stack(predictions_diff_minibatch_loop),
                      atol=1e-3, rtol=1e-5)

# in_dims=None: the minibatch is not mapped over, every model sees all of it
predictions2_vmap = vmap(fmodel, in_dims=(0, 0, None))(params, buffers, minibatch)
assert torch.allclose(predictions2_vmap, torch.stack(predictions2), atol=1e-3, rtol=1e-5)

# the explicit spelling of the default: map over dimension 0 of all three
predictions3_vmap = vmap(fmodel, in_dims=(0, 0, 0))(params, buffers, minibatches)

# how long each takes (a few runs only: this is a demonstration, not a benchmark)
from tensorplay.utils.benchmark import Timer  # noqa: E402

without_vmap = Timer(
    stmt="[model(minibatch) for model, minibatch in zip(models, minibatches)]",
    globals=globals())
with_vmap = Timer(
    stmt="vmap(fmodel)(params, buffers, minibatches)",
    globals=globals())
print(f'Predictions without vmap {without_vmap.timeit(3)}')
print(f'Predictions with vmap {with_vmap.timeit(3)}')
