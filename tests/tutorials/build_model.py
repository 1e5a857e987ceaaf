import tensorplay as torch
# "Build the neural network": a classifier for 28x28 images as an nn.Module subclass,
# then its layers one at a time (Flatten, Linear, ReLU, Sequential, Softmax) on a
# mini-batch of random images, and a walk over its named parameters.
from tensorplay import nn

# use an accelerator when there is one, the CPU otherwise
device = (torch.accelerator.current_accelerator().type
          if torch.accelerator.is_available() else "cpu")
print(f"Using {device} device")


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


torch.manual_seed(0)
model = NeuralNetwork().to(device)
model_repr = str(model)
print(model)

# calling the model runs forward(); the logits become probabilities through Softmax
X = torch.rand(1, 28, 28, device=device)
logits = model(X)
pred_probab = nn.Softmax(dim=1)(logits)
y_pred = pred_probab.argmax(1)
print(f"Predicted class: {y_pred}")

# ------------------------------------------------------------ the layers, one at a time
input_image = torch.rand(3, 28, 28)
print(input_image.size())

flatten = nn.Flatten()
flat_image = flatten(input_image)                 # the batch dimension stays
print(flat_image.size())

layer1 = nn.Linear(in_features=28 * 28, out_features=20)
hidden1 = layer1(flat_image)
print(hidden1.size())

print(f"Before ReLU: {hidden1}\n\n")
pre_relu = hidden1
hidden1 = nn.ReLU()(hidden1)
print(f"After ReLU: {hidden1}")

seq_modules = nn.Sequential(
    flatten,
    layer1,
    nn.ReLU(),
    nn.Linear(20, 10),
)
input_image = torch.rand(3, 28, 28)
logits = seq_modules(input_image)

softmax = nn.Softmax(dim=1)
pred_probab = softmax(logits)

# ------------------------------------------------------------------ the parameters
print(f"Model structure: {model}\n\n")
param_summary = []
for name, param in model.named_parameters():
    print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")
    param_summary.append((name, tuple(param.size()), tuple(param[:2].shape),
                          param.requires_grad))
