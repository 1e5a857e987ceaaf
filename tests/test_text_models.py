"""tensorplay.text.models.  The HTTP model talks to a local ``http.server`` on
127.0.0.1 run in a thread: no test touches the network."""
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

import tensorplay.text as tt
from tensorplay.text.models import (CallableModel, EchoModel, ModelConnectionError, ModelError,
                                    ModelHTTPError, ModelResponseError, ModelTimeoutError,
                                    OpenAICompatibleChatModel, ScriptedModel)

MSGS = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}]


def completion(content):
    return json.dumps({"id": "x", "object": "chat.completion",
                       "choices": [{"index": 0, "message": {"role": "assistant",
                                                            "content": content}}]}).encode()


class Server:
    """A local server; ``reply(handler)`` answers each request, which is recorded
    in ``requests`` as (method, path, headers, body)."""

    def __init__(self, reply):
        self.requests = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                server.requests.append(("POST", self.path, dict(self.headers), body))
                reply(self)

            def log_message(self, *args):
                pass
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join()


def send(handler, status, body, content_type="application/json"):
    handler.send_response(status)
    handler.send_header("Content-Type", content_type)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.fixture
def serve():
    servers = []

    def start(reply):
        s = Server(reply)
        servers.append(s)
        return s
    yield start
    for s in servers:
        s.close()


@pytest.fixture(autouse=True)
def _proxies_pointing_nowhere(monkeypatch):
    # a proxy that does not exist: local addresses must not go through it
    for var in ("no_proxy", "NO_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")


# -- the OpenAI-compatible model ----------------------------------------------------------
def test_request_body_headers_and_reply(serve):
    s = serve(lambda h: send(h, 200, completion("Hello!")))
    llm = OpenAICompatibleChatModel(s.url + "/v1/", model="qwen2.5-7b-instruct", api_key="sk-test",
                                    temperature=0.2, max_tokens=50)
    assert llm(MSGS, temperature=0) == "Hello!"
    ((method, path, headers, body),) = s.requests
    assert method == "POST" and path == "/v1/chat/completions"
    assert json.loads(body) == {"model": "qwen2.5-7b-instruct", "messages": MSGS,
                                "temperature": 0, "max_tokens": 50}
    assert headers["Authorization"] == "Bearer sk-test"
    assert headers["Content-Type"] == "application/json"
    OpenAICompatibleChatModel(s.url + "/v1", model="m")(MSGS)
    assert "Authorization" not in s.requests[1][2] and s.requests[1][1] == "/v1/chat/completions"


def test_http_error_shows_status_and_body(serve):
    s = serve(lambda h: send(h, 500, b'{"error": "model not loaded"}'))
    llm = OpenAICompatibleChatModel(s.url + "/v1", model="m")
    with pytest.raises(ModelHTTPError) as e:
        llm(MSGS)
    assert isinstance(e.value, RuntimeError) and isinstance(e.value, ModelError)
    assert e.value.status == 500 and e.value.body == '{"error": "model not loaded"}'
    assert "HTTP 500" in str(e.value) and "model not loaded" in str(e.value)


def test_reply_slower_than_the_timeout(serve):
    release = threading.Event()

    def slow(h):
        release.wait(5)                         # longer than the model's timeout
        send(h, 200, completion("late"))
    s = serve(slow)
    llm = OpenAICompatibleChatModel(s.url, model="m", timeout=0.3)
    try:
        with pytest.raises(ModelTimeoutError) as e:
            llm(MSGS)
    finally:
        release.set()
    assert isinstance(e.value, TimeoutError) and isinstance(e.value, RuntimeError)
    assert "within 0.3 s" in str(e.value)


def test_body_dripping_past_the_deadline(serve):
    body = completion("x" * 40)

    def drip(h):
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        for i in range(0, len(body), 8):        # each piece well within the timeout
            h.wfile.write(body[i:i + 8])
            h.wfile.flush()
            time.sleep(0.1)
    s = serve(drip)
    with pytest.raises(ModelTimeoutError):
        OpenAICompatibleChatModel(s.url, model="m", timeout=0.4)(MSGS)


@pytest.mark.parametrize("body,match", [
    (b"<html>busy</html>", "not JSON"),
    (b'{"choices": []}', "without choices"),
    (b'{"error": "x"}', "without choices"),
    (json.dumps({"choices": [{"message": {"content": None}}]}).encode(), "not text"),
])
def test_malformed_replies(serve, body, match):
    s = serve(lambda h: send(h, 200, body))
    with pytest.raises(ModelResponseError, match=match):
        OpenAICompatibleChatModel(s.url, model="m")(MSGS)


def test_unreachable_server():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()                                # nothing listens there now
    with pytest.raises(ModelConnectionError, match="cannot reach"):
        OpenAICompatibleChatModel(f"http://127.0.0.1:{port}", model="m", timeout=5)(MSGS)


def test_a_remote_address_goes_through_the_proxy(serve, monkeypatch):
    proxy = serve(lambda h: send(h, 200, completion("via proxy")))
    monkeypatch.setenv("http_proxy", proxy.url)
    monkeypatch.setenv("HTTP_PROXY", proxy.url)
    llm = OpenAICompatibleChatModel("http://llm.example.invalid/v1", model="m")
    assert llm(MSGS) == "via proxy"
    # a proxy is asked for the absolute URL
    assert proxy.requests[0][1] == "http://llm.example.invalid/v1/chat/completions"


def test_constructor_checks():
    with pytest.raises(ValueError, match="http:// or https://"):
        OpenAICompatibleChatModel("127.0.0.1:8080", model="m")
    with pytest.raises(ValueError, match="positive number"):
        OpenAICompatibleChatModel("http://127.0.0.1", model="m", timeout=0)
    with pytest.raises(TypeError, match="model must be a str"):
        OpenAICompatibleChatModel("http://127.0.0.1", model=None)
    with pytest.raises(TypeError, match="list of"):
        OpenAICompatibleChatModel("http://127.0.0.1", model="m")("hi")


def test_http_model_in_a_graph(serve):
    def answer(h):
        msgs = json.loads(s.requests[-1][3])["messages"]
        if '"feedback"' in msgs[-1]["content"]:
            send(h, 200, completion(json.dumps({"feedback": ["Ask for a haiku."]})))
        else:
            send(h, 200, completion("A poem about " + msgs[-1]["content"]))
    s = serve(answer)
    llm = OpenAICompatibleChatModel(s.url + "/v1", model="m")
    prompt = tt.Parameter("Write a poem.", role="instruction")
    out = tt.functional.chat_completion(llm, [{"role": "system", "content": [prompt]},
                                              {"role": "user", "content": ["{topic}"]}],
                                        inputs={"topic": "rain"})
    assert out.data == "A poem about rain"
    with tt.backward_model(llm):
        out.backward(tt.Variable("Too long."))
    assert [g.data for g in prompt.grad] == ["Ask for a haiku."] and len(s.requests) == 2


# -- the offline models -----------------------------------------------------------------------
def test_scripted_model():
    m = ScriptedModel(["a", "b"])
    msgs = [{"role": "user", "content": "x"}]
    assert m(msgs) == "a"
    msgs[0]["content"] = "changed"              # calls keeps what was sent
    assert m(msgs, temperature=0) == "b"
    assert m.calls == [[{"role": "user", "content": "x"}], [{"role": "user", "content": "changed"}]]
    assert m.call_kwargs == [{}, {"temperature": 0}]
    with pytest.raises(RuntimeError, match="no reply left for call 3"):
        m(msgs)
    f = ScriptedModel(lambda messages: str(len(messages)))
    assert f(MSGS) == "2" and f.calls == [MSGS]
    with pytest.raises(TypeError, match="list of"):
        f([{"role": "user"}])


def test_echo_and_callable_models():
    assert EchoModel()(MSGS) == "Hi"
    seen = []
    m = CallableModel(lambda messages, **kw: seen.append(kw) or "ok")
    assert m(MSGS, top_p=1) == "ok" and seen == [{"top_p": 1}]
    with pytest.raises(TypeError, match="returned int, expected str"):
        CallableModel(lambda messages: 3)(MSGS)
    with pytest.raises(TypeError, match="needs a callable"):
        CallableModel("m")
