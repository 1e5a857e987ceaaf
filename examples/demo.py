"""tensorplay in one screen: gradients, a second derivative, a gradient check.

    python examples/demo.py
"""
import tensorplay as tp

tp.manual_seed(0)

# 1. Reverse mode: gradients of a scalar loss w.r.t. leaves
x = tp.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = tp.randn(3, 4, requires_grad=True)
loss = (x @ w).tanh().sum()
loss.backward()
print("loss       =", loss)
print("dloss/dx   =", x.grad)
print("dloss/dw   =", w.grad)

# 2. Higher order: the gradient is itself differentiable
y = tp.tensor([0.5, 1.0, 2.0], requires_grad=True)
(dy,) = tp.autograd.grad((y ** 3).sum(), y, create_graph=True)   # 3 y^2
(d2y,) = tp.autograd.grad(dy.sum(), y)                            # 6 y
print("d/dy  y^3  =", dy)
print("d2/dy2 y^3 =", d2y)

# 3. Check analytical gradients against finite differences (float64)
z = tp.randn(4, 3, dtype=tp.float64, requires_grad=True)
ok = tp.autograd.gradcheck(lambda t: (t.sin() * t.exp()).sum(dim=0).log1p(), [z])
print("gradcheck  :", ok)

# 4. No grad mode: nothing is recorded
with tp.no_grad():
    v = x * 2
print("no_grad    : requires_grad =", v.requires_grad)
