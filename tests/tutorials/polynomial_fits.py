import tensorplay as torch
# The "learning PyTorch with examples" polynomial fits of sin(x) on [-pi, pi], one after
# another: bare tensors with autograd, a custom autograd Function (the Legendre polynomial
# P3), nn.Sequential with Flatten and a summed MSELoss, the same with optim.RMSprop, and a
# module whose forward pass picks its own depth at random (dynamic graph, shared weight).
# Starting values come from NumPy (and the random depth from Python's `random`), so every
# library that runs this script walks the same path; each fit keeps its loss history.
import math
import random

import numpy as np

init = np.random.default_rng(3)
histories = {}

dtype = torch.float
device = torch.device("cpu")

x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)

# -------------------------------------------------- tensors and autograd: y = a + bx + cx^2 + dx^3
a, b, c, d = (torch.tensor(float(v), device=device, dtype=dtype, requires_grad=True)
              for v in init.standard_normal(4))

learning_rate = 1e-6
histories["autograd"] = []
for t in range(400):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3

    # the summed squared error, as a 0-d tensor
    loss = (y_pred - y).pow(2).sum()
    histories["autograd"].append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())

    loss.backward()

    # the update itself must not be recorded
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad

        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item()} + {b.item()} x + {c.item()} x^2 + {d.item()} x^3")
autograd_coefficients = [a.item(), b.item(), c.item(), d.item()]


# ------------------------------------------------- a new autograd Function: y = a + b P3(c + dx)
class LegendrePolynomial3(torch.autograd.Function):
    """P3(x) = (5x^3 - 3x) / 2, with its derivative 3(5x^2 - 1) / 2 written by hand."""

    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


# the hand-written derivative agrees with finite differences of forward (in float64)
x64 = torch.linspace(-1.5, 1.5, 7, dtype=torch.float64, requires_grad=True)
p3_gradcheck = torch.autograd.gradcheck(LegendrePolynomial3.apply, (x64,))
LegendrePolynomial3.apply(x64).sum().backward()
p3_grad = x64.grad

# starting close enough to the answer for plain gradient descent to find it
a = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, device=device, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, device=device, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, device=device, dtype=dtype, requires_grad=True)

learning_rate = 5e-6
histories["function"] = []
for t in range(400):
    P3 = LegendrePolynomial3.apply

    y_pred = a + b * P3(c + d * x)

    loss = (y_pred - y).pow(2).sum()
    histories["function"].append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())

    loss.backward()

    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad

        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(f"Result: y = {a.item()} + {b.item()} * P3({c.item()} + {d.item()} x)")

# ----------------------------------------------------------------------------- nn
# y is linear in (x, x^2, x^3): broadcasting a (2000, 1) column against the powers (3,)
# gives the (2000, 3) input of one Linear layer.
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)


def polynomial_model():
    model = torch.nn.Sequential(
        torch.nn.Linear(3, 1),
        torch.nn.Flatten(0, 1),          # (2000, 1) -> (2000,), the shape of y
    )
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor(init.uniform(-0.5, 0.5, size=(1, 3)), dtype=dtype))
        model[0].bias.copy_(torch.tensor(init.uniform(-0.5, 0.5, size=(1,)), dtype=dtype))
    return model


model = polynomial_model()
loss_fn = torch.nn.MSELoss(reduction='sum')

learning_rate = 1e-6
histories["nn"] = []
for t in range(400):
    y_pred = model(xx)

    loss = loss_fn(y_pred, y)
    histories["nn"].append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())

    model.zero_grad()
    loss.backward()

    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad

linear_layer = model[0]
print(f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + "
      f"{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3")

# -------------------------------------------------------------------------- optim
model = polynomial_model()
loss_fn = torch.nn.MSELoss(reduction='sum')

learning_rate = 1e-3
optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate)
histories["optim"] = []
for t in range(400):
    y_pred = model(xx)

    loss = loss_fn(y_pred, y)
    histories["optim"].append(loss.item())
    if t % 100 == 99:
        print(t, loss.item())

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

linear_layer = model[0]
optim_coefficients = [linear_layer.bias.item()] + linear_layer.weight[0].tolist()
print(f"Result: y = {linear_layer.bias.item()} + {linear_layer.weight[:, 0].item()} x + "
      f"{linear_layer.weight[:, 1].item()} x^2 + {linear_layer.weight[:, 2].item()} x^3")


# ------------------------------------------------------- control flow and weight sharing
class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(float(init.standard_normal()), dtype=dtype))
        self.b = torch.nn.Parameter(torch.tensor(float(init.standard_normal()), dtype=dtype))
        self.c = torch.nn.Parameter(torch.tensor(float(init.standard_normal()), dtype=dtype))
        self.d = torch.nn.Parameter(torch.tensor(float(init.standard_normal()), dtype=dtype))
        self.e = torch.nn.Parameter(torch.tensor(float(init.standard_normal()), dtype=dtype))

    def forward(self, x):
        # a cubic, plus a fourth and maybe a fifth order term that reuse the weight e:
        # each call draws its own depth, and autograd follows whichever graph was built
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return (f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + "
                f"{self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?")


random.seed(0)
model = DynamicNet()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
histories["dynamic"] = []
for t in range(400):
    y_pred = model(x)

    loss = criterion(y_pred, y)
    histories["dynamic"].append(loss.item())
    if t % 200 == 199:
        print(t, loss.item())

    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f"Result: {model.string()}")
