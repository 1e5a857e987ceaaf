import tensorplay as torch
# "Word embeddings: encoding lexical semantics": an embedding lookup, then an N-gram
# language model (nn.Embedding -> Linear -> ReLU -> Linear -> log_softmax) trained with
# NLLLoss and plain SGD, one trigram at a time, on the opening of Sonnet 18.
import tensorplay.nn as nn
import tensorplay.nn.functional as F
import tensorplay.optim as optim

torch.manual_seed(1)

word_to_ix = {"hello": 0, "world": 1}
embeds = nn.Embedding(2, 5)  # a vocabulary of 2 words, 5 numbers each
lookup_tensor = torch.tensor([word_to_ix["hello"]], dtype=torch.long)
hello_embed = embeds(lookup_tensor)
print(hello_embed)

CONTEXT_SIZE = 2
EMBEDDING_DIM = 10
test_sentence = """Shall I compare thee to a summer's day?
Thou art more lovely and more temperate:
Rough winds do shake the darling buds of May,
And summer's lease hath all too short a date;
Sometime too hot the eye of heaven shines,
And often is his gold complexion dimm'd;
And every fair from fair sometime declines,
By chance or nature's changing course untrimm'd;
But thy eternal summer shall not fade,
Nor lose possession of that fair thou ow'st;
Nor shall death brag thou wander'st in his shade,
When in eternal lines to time thou grow'st:
So long as men can breathe or eyes can see,
So long lives this, and this gives life to thee.""".split()
# each item: ([the word before, the word two back], the word that follows)
ngrams = [
    (
        [test_sentence[i - j - 1] for j in range(CONTEXT_SIZE)],
        test_sentence[i]
    )
    for i in range(CONTEXT_SIZE, len(test_sentence))
]
print(ngrams[:3])

vocab = sorted(set(test_sentence))  # sorted: the same indices in every process
word_to_ix = {word: i for i, word in enumerate(vocab)}


class NGramLanguageModeler(nn.Module):

    def __init__(self, vocab_size, embedding_dim, context_size):
        super(NGramLanguageModeler, self).__init__()
        self.embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.linear1 = nn.Linear(context_size * embedding_dim, 128)
        self.linear2 = nn.Linear(128, vocab_size)

    def forward(self, inputs):
        embeds = self.embeddings(inputs).view((1, -1))
        out = F.relu(self.linear1(embeds))
        out = self.linear2(out)
        log_probs = F.log_softmax(out, dim=1)
        return log_probs


losses = []
loss_function = nn.NLLLoss()
model = NGramLanguageModeler(len(vocab), EMBEDDING_DIM, CONTEXT_SIZE)
optimizer = optim.SGD(model.parameters(), lr=0.001)
summers_before = model.embeddings.weight[word_to_ix["summer's"]].detach().clone()

for epoch in range(6):
    total_loss = 0
    for context, target in ngrams:

        # the context words as a tensor of their indices
        context_idxs = torch.tensor([word_to_ix[w] for w in context], dtype=torch.long)

        # gradients accumulate: clear the last example's before this one
        model.zero_grad()

        log_probs = model(context_idxs)

        loss = loss_function(log_probs, torch.tensor([word_to_ix[target]], dtype=torch.long))

        loss.backward()
        optimizer.step()

        total_loss += loss.item()
    losses.append(total_loss)
print(losses)  # falls with every pass over the sonnet

# a learned word vector: one row of the embedding table
summers_embedding = model.embeddings.weight[word_to_ix["summer's"]]
print(summers_embedding)

