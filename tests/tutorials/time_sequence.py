import tensorplay as torch
# The PyTorch examples' time-sequence prediction, shortened: two stacked LSTMCells and a
# Linear head learn shifted sine waves in float64 with LBFGS (a closure recomputes the loss),
# then keep predicting past the end of the test waves, feeding each output back in.
# The waves and the initial weights come from NumPy, so the run is the same on any
# library that takes this script.
import numpy as np
import tensorplay.nn as nn
import tensorplay.optim as optim

HIDDEN = 24


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, HIDDEN)
        self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
        self.linear = nn.Linear(HIDDEN, 1)
        # an empty parameter that tells which device the module lives on
        self.dummy_param = nn.Parameter(torch.empty(0))

    def forward(self, input, future=0):
        outputs = []
        device = self.dummy_param.device
        h_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)
        c_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)
        h_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)
        c_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):  # run on from the model's own predictions
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


steps = 2
device = torch.device("cpu")
np.random.seed(0)
torch.manual_seed(0)

# sine waves of period 2*pi*T, each shifted by a random offset
T, L, N = 4, 32, 12
x = np.empty((N, L), "int64")
x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
data = torch.from_numpy(np.sin(x / 1.0 / T).astype("float64")).to(device)
input = data[3:, :-1]
target = data[3:, 1:]
test_input = data[:3, :-1]
test_target = data[:3, 1:]

seq = Sequence().to(device).double()
with torch.no_grad():
    for p in seq.parameters():
        p.copy_(torch.from_numpy(np.random.uniform(-0.2, 0.2, size=tuple(p.shape))))
criterion = nn.MSELoss().to(device)
# the whole data set fits in one batch, so LBFGS can take full steps
optimizer = optim.LBFGS(seq.parameters(), lr=0.8)

closure_losses = []      # every loss LBFGS asked for, in order
test_losses = []
for i in range(steps):
    print('STEP: ', i)

    def closure():
        optimizer.zero_grad()
        out = seq(input)
        loss = criterion(out, target)
        print('loss:', loss.item())
        closure_losses.append(loss.item())
        loss.backward()
        return loss
    optimizer.step(closure)
    # predict, and run on into the future; no graph needed
    with torch.no_grad():
        future = 30
        pred = seq(test_input, future=future)
        loss = criterion(pred[:, :-future], test_target)
        print('test loss:', loss.item())
        test_losses.append(loss.item())
        y = pred.cpu().detach().numpy()
