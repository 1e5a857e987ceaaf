import tensorplay as torch
# "Optimizing model parameters": train_loop / test_loop around the "build the model"
# network, with CrossEntropyLoss and SGD. The data are a synthetic stand-in for
# FashionMNIST (no download): a Dataset of 28x28 images whose class is the band where
# their brightest blob sits, and the initial weights come from a seeded NumPy generator,
# so the run is the same on any library that takes this script.
import numpy as np
from tensorplay import nn
from tensorplay.utils.data import DataLoader, Dataset


class BlobImages(Dataset):
    """Images with one bright Gaussian blob on a noisy background; the label (0-9) is
    which of ten horizontal bands the blob is centred in. Items come back as
    (1x28x28 float tensor, int label), the way a vision dataset with ToTensor does."""

    def __init__(self, count, seed):
        g = np.random.default_rng(seed)
        self.labels = g.integers(0, 10, size=count)
        rows = (self.labels + g.random(count)) * 2.8                 # blob centre row
        cols = g.random(count) * 28
        r, c = np.mgrid[0:28, 0:28]
        blob = np.exp(-((r[None] - rows[:, None, None]) ** 2
                        + (c[None] - cols[:, None, None]) ** 2) / 8.0)
        noise = 0.2 * g.random((count, 28, 28))
        self.images = (blob + noise).astype(np.float32)[:, None]    # (count, 1, 28, 28)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, idx):
        return torch.from_numpy(self.images[idx]), int(self.labels[idx])


training_data = BlobImages(960, seed=1)
test_data = BlobImages(320, seed=2)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(28 * 28, 512),
            nn.ReLU(),
            nn.Linear(512, 512),
            nn.ReLU(),
            nn.Linear(512, 10),
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits


model = NeuralNetwork()
# the same starting point everywhere: PyTorch's default bound 1/sqrt(fan_in), NumPy's numbers
init = np.random.default_rng(0)
with torch.no_grad():
    for name, p in model.named_parameters():
        bound = 1.0 / np.sqrt(model.get_submodule(name.rsplit(".", 1)[0]).in_features)
        p.copy_(torch.tensor(init.uniform(-bound, bound, size=tuple(p.shape)).astype(np.float32)))

# ------------------------------------------------------------------- hyperparameters
learning_rate = 0.5
batch_size = 64
epochs = 4

train_dataloader = DataLoader(training_data, batch_size=batch_size)
test_dataloader = DataLoader(test_data, batch_size=batch_size)

step_losses = []          # every batch's training loss, in order
test_results = []         # (accuracy, average loss) after each epoch


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    # training mode: matters for dropout and batch norm, harmless here
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        step_losses.append(loss.item())
        if batch % 5 == 0:
            loss, current = loss.item(), batch * batch_size + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0

    # no graph is needed to evaluate
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()

    test_loss /= num_batches
    correct /= size
    test_results.append((correct, test_loss))
    print(f"Test Error: \n Accuracy: {(100 * correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=learning_rate)

test_loop(test_dataloader, model, loss_fn)          # before any training
for t in range(epochs):
    print(f"Epoch {t + 1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")

# ------------------------------------------------------- saving and loading the weights
# (as the next tutorial does: the state dict to a file, then into a fresh model)
import os  # noqa: E402
import tempfile  # noqa: E402

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "model_weights.pth")
    torch.save(model.state_dict(), path)
    reloaded = NeuralNetwork()
    reloaded.load_state_dict(torch.load(path, weights_only=True))
reloaded.eval()
X, y = next(iter(test_dataloader))
with torch.no_grad():
    reloaded_matches = torch.equal(reloaded(X), model(X))
print("reloaded model gives the same predictions:", reloaded_matches)
