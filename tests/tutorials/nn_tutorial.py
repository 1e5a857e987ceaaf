import tensorplay as torch
# "What is torch.nn really?", retold on a synthetic digits-like data set (no download):
# a linear classifier written with bare tensors, then refactored one step at a time onto
# nn.functional, nn.Module, nn.Linear, optim, Dataset, DataLoader, and finally a small CNN
# built as a class and as nn.Sequential. Each stage leaves its numbers in `stages`.
import math

import numpy as np

# ----------------------------------------------------------------------------- the data
# Ten classes of striped 28x28 images (five orientations, two spacings); a sample is its
# class's stripes plus pixel noise, stored flattened (784 values in [0, 1]) like the
# pickled MNIST arrays.
rng = np.random.default_rng(7)
rows, cols = np.mgrid[0:28, 0:28] / 28.0
patterns = np.stack([
    np.sin(2 * np.pi * (3.0 if k < 5 else 6.0)
           * (cols * np.cos(np.pi * (k % 5) / 5) + rows * np.sin(np.pi * (k % 5) / 5))) > 0.5
    for k in range(10)]).astype(np.float64)

def make_split(count):
    labels = rng.integers(0, 10, size=count)
    images = patterns[labels] + 0.3 * rng.standard_normal((count, 28, 28))
    return np.clip(images, 0.0, 1.0).reshape(count, 784).astype(np.float32), labels


x_train, y_train = make_split(640)
x_valid, y_valid = make_split(256)

x_train, y_train, x_valid, y_valid = map(torch.tensor, (x_train, y_train, x_valid, y_valid))
n, c = x_train.shape
print(x_train.shape, y_train.min(), y_train.max())

stages = {}
torch.manual_seed(0)

# ------------------------------------------------------------- from scratch (no torch.nn)
# The initialisation is not part of what we differentiate, so requires_grad comes after it.
weights = torch.randn(784, 10) / math.sqrt(784)
weights.requires_grad_()
bias = torch.zeros(10, requires_grad=True)


def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)


def model(xb):
    return log_softmax(xb @ weights + bias)


def nll(input, target):
    # pick each row's log-probability of its target class
    return -input[range(target.shape[0]), target].mean()


loss_func = nll


def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()


bs = 16  # batch size
xb, yb = x_train[0:bs], y_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)
before = (loss_func(preds, yb).item(), accuracy(preds, yb).item())

lr = 0.5
epochs = 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()

after = (loss_func(model(xb), yb).item(), accuracy(model(xb), yb).item())
stages["scratch"] = (before, after)
print("from scratch:", before, "->", after)

# --------------------------------------------------------------- torch.nn.functional
import tensorplay.nn.functional as F  # noqa: E402

hand_written = loss_func(model(xb), yb).item()
loss_func = F.cross_entropy


def model(xb):  # noqa: F811  (the tutorial redefines the model at every step)
    return xb @ weights + bias


stages["functional"] = (hand_written, loss_func(model(xb), yb).item(),
                        accuracy(model(xb), yb).item())
print("cross_entropy:", stages["functional"])

# ---------------------------------------------------------------------- nn.Module
from tensorplay import nn  # noqa: E402


class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = nn.Parameter(torch.randn(784, 10) / math.sqrt(784))
        self.bias = nn.Parameter(torch.zeros(10))

    def forward(self, xb):
        return xb @ self.weights + self.bias


def fit():
    for epoch in range(epochs):
        for i in range((n - 1) // bs + 1):
            start_i = i * bs
            end_i = start_i + bs
            xb = x_train[start_i:end_i]
            yb = y_train[start_i:end_i]
            pred = model(xb)
            loss = loss_func(pred, yb)

            loss.backward()
            with torch.no_grad():
                for p in model.parameters():
                    p -= p.grad * lr
                model.zero_grad()


model = Mnist_Logistic()
before = loss_func(model(xb), yb).item()
fit()
stages["module"] = (before, loss_func(model(xb), yb).item())
print("nn.Module:", stages["module"])

# ---------------------------------------------------------------------- nn.Linear


class Mnist_Logistic(nn.Module):  # noqa: F811
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(784, 10)

    def forward(self, xb):
        return self.lin(xb)


model = Mnist_Logistic()
before = loss_func(model(xb), yb).item()
fit()
stages["linear"] = (before, loss_func(model(xb), yb).item())
print("nn.Linear:", stages["linear"])

# -------------------------------------------------------------------------- optim
from tensorplay import optim  # noqa: E402


def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=lr)


model, opt = get_model()
before = loss_func(model(xb), yb).item()
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        opt.step()
        opt.zero_grad()
stages["optim"] = (before, loss_func(model(xb), yb).item())
print("optim.SGD:", stages["optim"])

# ------------------------------------------------------------------------ Dataset
from tensorplay.utils.data import TensorDataset  # noqa: E402

train_ds = TensorDataset(x_train, y_train)
model, opt = get_model()
before = loss_func(model(xb), yb).item()
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        xb, yb = train_ds[i * bs: i * bs + bs]      # one slice gives both tensors
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        opt.step()
        opt.zero_grad()
stages["dataset"] = (before, loss_func(model(xb), yb).item())
print("TensorDataset:", stages["dataset"])

# --------------------------------------------------------------------- DataLoader
from tensorplay.utils.data import DataLoader  # noqa: E402

train_dl = DataLoader(train_ds, batch_size=bs)
model, opt = get_model()
before = loss_func(model(xb), yb).item()
for epoch in range(epochs):
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        opt.step()
        opt.zero_grad()
stages["dataloader"] = (before, loss_func(model(xb), yb).item())
print("DataLoader:", stages["dataloader"])

# --------------------------------------------------------------------- validation
train_dl = DataLoader(train_ds, batch_size=bs, shuffle=True)
valid_ds = TensorDataset(x_valid, y_valid)
valid_dl = DataLoader(valid_ds, batch_size=bs * 2)

model, opt = get_model()
valid_curve = []
for epoch in range(epochs):
    model.train()
    for xb, yb in train_dl:
        pred = model(xb)
        loss = loss_func(pred, yb)

        loss.backward()
        opt.step()
        opt.zero_grad()

    model.eval()
    with torch.no_grad():
        valid_loss = sum(loss_func(model(xb), yb) for xb, yb in valid_dl)
    valid_curve.append((valid_loss / len(valid_dl)).item())
    print(epoch, valid_loss / len(valid_dl))
stages["validation"] = valid_curve

# ---------------------------------------------------------------- fit() and get_data()


def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)

    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()

    return loss.item(), len(xb)


def valid_accuracy(model, valid_dl):
    with torch.no_grad():
        hits = sum((model(xb).argmax(1) == yb).sum().item() for xb, yb in valid_dl)
    return hits / len(valid_dl.dataset)


def fit(epochs, model, loss_func, opt, train_dl, valid_dl):  # noqa: F811
    curve = []
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)

        model.eval()
        with torch.no_grad():
            losses, nums = zip(
                *[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl]
            )
        val_loss = np.sum(np.multiply(losses, nums)) / np.sum(nums)
        curve.append(float(val_loss))
        print(epoch, val_loss)
    return curve


def get_data(train_ds, valid_ds, bs):
    return (
        DataLoader(train_ds, batch_size=bs, shuffle=True),
        DataLoader(valid_ds, batch_size=bs * 2),
    )


train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
model, opt = get_model()
stages["fit"] = fit(epochs, model, loss_func, opt, train_dl, valid_dl)
stages["fit_accuracy"] = valid_accuracy(model, valid_dl)
print("fit: accuracy", stages["fit_accuracy"])

# ------------------------------------------------------------------------------ a CNN


class Mnist_CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1)
        self.conv2 = nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1)

    def forward(self, xb):
        xb = xb.view(-1, 1, 28, 28)
        xb = F.relu(self.conv1(xb))
        xb = F.relu(self.conv2(xb))
        xb = F.relu(self.conv3(xb))
        xb = F.avg_pool2d(xb, 4)
        return xb.view(-1, xb.size(1))


lr = 0.1
cnn_epochs = 2
model = Mnist_CNN()
opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
stages["cnn"] = fit(cnn_epochs, model, loss_func, opt, train_dl, valid_dl)
stages["cnn_accuracy"] = valid_accuracy(model, valid_dl)
print("CNN: accuracy", stages["cnn_accuracy"])

# -------------------------------------------------------------------- nn.Sequential


class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func

    def forward(self, x):
        return self.func(x)


def preprocess(x):
    return x.view(-1, 1, 28, 28)


model = nn.Sequential(
    Lambda(preprocess),
    nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AvgPool2d(4),
    Lambda(lambda x: x.view(x.size(0), -1)),
)
opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
stages["sequential"] = fit(cnn_epochs, model, loss_func, opt, train_dl, valid_dl)
stages["sequential_accuracy"] = valid_accuracy(model, valid_dl)
print("Sequential: accuracy", stages["sequential_accuracy"])

# ------------------------------------------------ wrapping the DataLoader, adaptive pooling


def preprocess(x, y):  # noqa: F811
    return x.view(-1, 1, 28, 28), y


class WrappedDataLoader:
    def __init__(self, dl, func):
        self.dl = dl
        self.func = func

    def __len__(self):
        return len(self.dl)

    def __iter__(self):
        for b in self.dl:
            yield self.func(*b)


train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
train_dl = WrappedDataLoader(train_dl, preprocess)
valid_dl = WrappedDataLoader(valid_dl, preprocess)

# the pooling now names the size of its output, so any image size works
model = nn.Sequential(
    nn.Conv2d(1, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 16, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(16, 10, kernel_size=3, stride=2, padding=1),
    nn.ReLU(),
    nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)),
)

# ------------------------------------------------------------------- choosing a device
dev = torch.device("cuda") if torch.cuda.is_available() else torch.device("cpu")


def preprocess(x, y):  # noqa: F811
    return x.view(-1, 1, 28, 28).to(dev), y.to(dev)


train_dl, valid_dl = get_data(train_ds, valid_ds, bs)
train_dl = WrappedDataLoader(train_dl, preprocess)
valid_dl = WrappedDataLoader(valid_dl, preprocess)
valid_dl.dataset = valid_ds          # for valid_accuracy's count

model.to(dev)
opt = optim.SGD(model.parameters(), lr=lr, momentum=0.9)
stages["adaptive"] = fit(cnn_epochs, model, loss_func, opt, train_dl, valid_dl)
stages["adaptive_accuracy"] = valid_accuracy(model, valid_dl)
print("AdaptiveAvgPool2d on", dev, ": accuracy", stages["adaptive_accuracy"])
# the same network takes a larger image unchanged
stages["adaptive_big_input"] = tuple(model(torch.rand(2, 1, 40, 36)).shape)
