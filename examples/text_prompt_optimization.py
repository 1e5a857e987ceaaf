"""Prompt optimisation with textual gradients (tensorplay.text).

A system prompt for sentiment classification is a Parameter.  Each step
classifies a batch of messages with a chat model, scores the answers with an
exact-match evaluator, sends the evaluator's explanation back through the
graph as feedback (written by the backward model), and lets TGD rewrite the
prompt from the feedback that reached it.

Offline (the default) a small scripted stand-in plays the language model, so
the run is deterministic and needs no network:

    python examples/text_prompt_optimization.py

Against any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, Ollama, LM Studio):

    TENSORPLAY_LLM_BASE_URL=http://127.0.0.1:8080/v1 \\
    TENSORPLAY_LLM_MODEL=qwen2.5-7b-instruct \\
    python examples/text_prompt_optimization.py

(``TENSORPLAY_LLM_API_KEY`` is sent as a bearer token when set.)
"""
import json
import os
import re

import tensorplay.text as tt
from tensorplay.text.models import OpenAICompatibleChatModel, ScriptedModel

DATA = [
    ("I loved every minute of it.", "positive"),
    ("The food was cold and the service was rude.", "negative"),
    ("What a wonderful surprise, thank you!", "positive"),
    ("This is the worst update so far.", "negative"),
    ("Great value, I would buy it again.", "positive"),
    ("The battery died after an hour. Terrible.", "negative"),
    ("Our guide was friendly and the views were amazing.", "positive"),
    ("I regret wasting my evening on this film.", "negative"),
]
BATCH = 4
STEPS = 3

_POSITIVE = {"loved", "wonderful", "great", "friendly", "amazing", "thank"}


def scripted_llm():
    """A stand-in for a language model, just clever enough to show the loop:
    it answers verbosely unless the system prompt asks for one lowercase word,
    its feedback says so, and as the optimizer it adds that instruction."""
    def reply(messages):
        last = messages[-1]["content"]
        if '{"feedback": [' in last:                      # backward: feedback on n variables
            n = int(re.search(r"## Variables to give feedback on \((\d+)\)", last).group(1))
            return json.dumps({"feedback": [
                "The evaluator wants exactly one lowercase word, 'positive' or 'negative', and "
                "nothing else; the instructions should demand that."] * n})
        if '{"value": ' in last:                          # optimizer: rewrite the prompt
            value = last.split("Current value:\n", 1)[1].split("\n\n## Feedback", 1)[0]
            if "one lowercase word" not in value:
                value += " Answer with exactly one lowercase word: positive or negative."
            return json.dumps({"value": value})
        words = set(re.findall(r"[a-z]+", last.lower()))    # forward: classify the message
        label = "positive" if words & _POSITIVE else "negative"
        if "one lowercase word" in messages[0]["content"]:
            return label
        return f"The sentiment of this message is {label}."
    return ScriptedModel(reply)


def make_llm():
    base_url = os.environ.get("TENSORPLAY_LLM_BASE_URL")
    if not base_url:
        print("(offline: a scripted model plays the language model; set "
              "TENSORPLAY_LLM_BASE_URL to use a real server)")
        return scripted_llm()
    model = os.environ.get("TENSORPLAY_LLM_MODEL", "qwen2.5-7b-instruct")
    print(f"(using {model} at {base_url})")
    return OpenAICompatibleChatModel(base_url, model=model,
                                     api_key=os.environ.get("TENSORPLAY_LLM_API_KEY"),
                                     temperature=0)


def classify(llm, system, messages):
    return tt.functional.chat_completion(
        llm, [{"role": "system", "content": [system]},
              {"role": "user", "content": [tt.Variable("Message: {message}")]}],
        inputs={"message": messages})


def main():
    llm = make_llm()
    tt.set_backward_model(llm)
    system = tt.Parameter("Classify the sentiment of the message.",
                          role="system prompt for sentiment classification")
    opt = tt.optim.TGD([system], model=llm, constraints=["Answer with one word."])
    for step in range(STEPS):
        start = (step * BATCH) % len(DATA)
        batch = DATA[start:start + BATCH]
        messages, labels = [m for m, _ in batch], [y for _, y in batch]
        opt.zero_grad()
        pred = classify(llm, system, messages)
        score, explanation = tt.functional.exact_match_evaluator(pred, labels)
        print(f"step {step}: score {score.data}/{len(batch)}  prompt: {system.data!r}")
        explanation.backward()          # feedback flows back to the system prompt
        opt.step()                      # and the prompt is rewritten from it
    with tt.no_grad():
        pred = classify(llm, system, [m for m, _ in DATA])
        score, _ = tt.functional.exact_match_evaluator(pred, [y for _, y in DATA])
    print(f"final: score {score.data}/{len(DATA)}  prompt: {system.data!r}")


if __name__ == "__main__":
    main()
