import tensorplay as torch
# "Sequence models and LSTM networks": an nn.LSTM stepped one element at a time and run
# over a whole sequence at once, then a part-of-speech tagger (embedding -> LSTM ->
# linear -> log_softmax over the tags) trained with NLLLoss and SGD on two sentences.
import tensorplay.nn as nn
import tensorplay.nn.functional as F
import tensorplay.optim as optim

torch.manual_seed(1)

lstm = nn.LSTM(3, 3)  # 3 numbers in, 3 out
inputs = [torch.randn(1, 3) for _ in range(5)]  # a sequence of five

# the state (h, c), each (layers, batch, hidden)
hidden = (torch.randn(1, 1, 3),
          torch.randn(1, 1, 3))
first_hidden = hidden
step_outputs = []
for i in inputs:
    # one element at a time; `hidden` carries the state on
    out, hidden = lstm(i.view(1, 1, -1), hidden)
    step_outputs.append(out)
stepped_hidden = hidden

# the same sequence in one call, with the batch as the middle dimension; `out` holds the
# hidden state after every element, `hidden` the last (h, c)
inputs = torch.cat(inputs).view(len(inputs), 1, -1)
out, hidden = lstm(inputs, first_hidden)
print(out)
print(hidden)
whole_out, whole_hidden = out, hidden


def prepare_sequence(seq, to_ix):
    idxs = [to_ix[w] for w in seq]
    return torch.tensor(idxs, dtype=torch.long)


training_data = [
    # tags: DET - determiner; NN - noun; V - verb
    ("The dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]),
    ("Everybody read that book".split(), ["NN", "V", "DET", "NN"])
]
word_to_ix = {}
for sent, tags in training_data:
    for word in sent:
        if word not in word_to_ix:  # a new word gets the next index
            word_to_ix[word] = len(word_to_ix)
print(word_to_ix)
tag_to_ix = {"DET": 0, "NN": 1, "V": 2}

# tiny on purpose, so the weights can be watched as they train
EMBEDDING_DIM = 6
HIDDEN_DIM = 6


class LSTMTagger(nn.Module):

    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super(LSTMTagger, self).__init__()
        self.hidden_dim = hidden_dim

        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)

        # word vectors in, hidden states of size hidden_dim out
        self.lstm = nn.LSTM(embedding_dim, hidden_dim)

        # from a hidden state to one score per tag
        self.hidden2tag = nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        tag_scores = F.log_softmax(tag_space, dim=1)
        return tag_scores


model = LSTMTagger(EMBEDDING_DIM, HIDDEN_DIM, len(word_to_ix), len(tag_to_ix))
loss_function = nn.NLLLoss()
optimizer = optim.SGD(model.parameters(), lr=0.1)

# scores before training: row i, column j is word i's score for tag j
with torch.no_grad():
    inputs = prepare_sequence(training_data[0][0], word_to_ix)
    tag_scores = model(inputs)
    print(tag_scores)
    scores_before = tag_scores

epoch_losses = []
for epoch in range(150):  # far more passes than real data would need: this is a toy
    epoch_loss = 0.0
    for sentence, tags in training_data:
        # gradients accumulate: clear them for each sentence
        model.zero_grad()

        sentence_in = prepare_sequence(sentence, word_to_ix)
        targets = prepare_sequence(tags, tag_to_ix)

        tag_scores = model(sentence_in)

        loss = loss_function(tag_scores, targets)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
    epoch_losses.append(epoch_loss)

# after training, the best tag of each word of "The dog ate the apple" should be
# DET NN V DET NN, that is 0 1 2 0 1
with torch.no_grad():
    inputs = prepare_sequence(training_data[0][0], word_to_ix)
    tag_scores = model(inputs)
    print(tag_scores)
    predicted_tags = tag_scores.argmax(dim=1).tolist()
print(predicted_tags)
