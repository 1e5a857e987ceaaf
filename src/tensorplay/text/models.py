"""Language models for tensorplay.text.

A model is any callable ``model(messages, **kwargs) -> str``, where
``messages`` is a list of ``{"role": str, "content": str}``.  Here are a few:
``ScriptedModel`` and ``EchoModel`` for tests and offline runs,
``CallableModel`` around a function, and ``OpenAICompatibleChatModel`` for
any server that speaks the OpenAI chat-completions protocol (OpenAI, vLLM,
llama.cpp's server, Ollama, LM Studio, ...), with the standard library only.
"""
import copy
import json
import socket
import time
from urllib.parse import urlsplit

__all__ = ["CallableModel", "EchoModel", "ModelConnectionError", "ModelError", "ModelHTTPError",
           "ModelResponseError", "ModelTimeoutError", "OpenAICompatibleChatModel",
           "ScriptedModel"]


def _check_messages(messages):
    if not isinstance(messages, list) or not all(
            isinstance(m, dict) and isinstance(m.get("role"), str)
            and isinstance(m.get("content"), str) for m in messages):
        raise TypeError("messages must be a list of {'role': str, 'content': str} dicts")


class ScriptedModel:
    """Replies from ``responses``: a list, one reply per call in order, or a
    function ``responses(messages) -> str``.  ``calls`` holds a copy of the
    ``messages`` of every call (and ``call_kwargs`` the keyword arguments).

        >>> m = ScriptedModel(["first", "second"])
        >>> m([{"role": "user", "content": "hi"}]), len(m.calls)
        ('first', 1)
    """

    def __init__(self, responses):
        if not callable(responses):
            responses = list(responses)
        self.responses = responses
        self.calls = []
        self.call_kwargs = []

    def __call__(self, messages, **kwargs):
        _check_messages(messages)
        n = len(self.calls)
        self.calls.append(copy.deepcopy(messages))
        self.call_kwargs.append(dict(kwargs))
        if callable(self.responses):
            return self.responses(messages)
        if n >= len(self.responses):
            raise RuntimeError(f"ScriptedModel has no reply left for call {n + 1} (it was given "
                               f"{len(self.responses)})")
        return self.responses[n]


class EchoModel:
    """Replies with the content of the last message."""

    def __call__(self, messages, **kwargs):
        _check_messages(messages)
        return messages[-1]["content"] if messages else ""


class CallableModel:
    """``fn(messages, **kwargs)`` as a model; its reply must be a str."""

    def __init__(self, fn):
        if not callable(fn):
            raise TypeError(f"CallableModel needs a callable, got {type(fn).__name__}")
        self.fn = fn

    def __call__(self, messages, **kwargs):
        _check_messages(messages)
        reply = self.fn(messages, **kwargs)
        if not isinstance(reply, str):
            raise TypeError(f"the model function returned {type(reply).__name__}, expected str")
        return reply


# -- HTTP ----------------------------------------------------------------------------
class ModelError(RuntimeError):
    """A model could not give a reply."""


class ModelHTTPError(ModelError):
    """The server answered with an HTTP error (``status``, ``body``)."""

    def __init__(self, message, status, body):
        super().__init__(message)
        self.status, self.body = status, body


class ModelTimeoutError(ModelError, TimeoutError):
    """No complete reply within the model's ``timeout``."""


class ModelConnectionError(ModelError):
    """The server could not be reached."""


class ModelResponseError(ModelError):
    """The server's reply is not a chat completion."""


def _is_local(host):
    if not host:
        return False
    if host == "localhost" or host.endswith(".localhost"):
        return True
    import ipaddress
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class OpenAICompatibleChatModel:
    """A chat model behind ``{base_url}/chat/completions``.

    Each call POSTs ``{"model": model, "messages": messages, **defaults,
    **kwargs}`` as JSON (with ``Authorization: Bearer <api_key>`` when an
    ``api_key`` is given) and returns ``choices[0].message.content``.  An HTTP
    error, a reply not complete within ``timeout`` seconds, an unreachable
    server and a malformed reply are raised as ``ModelHTTPError``,
    ``ModelTimeoutError`` (also a ``TimeoutError``), ``ModelConnectionError``
    and ``ModelResponseError``, all ``RuntimeError``s.  The proxy environment
    variables are honoured, except for local addresses (localhost, loopback).
    """

    def __init__(self, base_url, model, api_key=None, timeout=60.0, **defaults):
        if not isinstance(base_url, str) or urlsplit(base_url).scheme not in ("http", "https"):
            raise ValueError(f"base_url must be an http:// or https:// URL, got {base_url!r}")
        if not isinstance(model, str):
            raise TypeError(f"model must be a str, got {type(model).__name__}")
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
            raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.model, self.api_key, self.timeout = model, api_key, float(timeout)
        self.defaults = defaults

    def __repr__(self):
        return f"OpenAICompatibleChatModel({self.base_url!r}, model={self.model!r})"

    def _opener(self):
        import urllib.request
        if _is_local(urlsplit(self.url).hostname):
            return urllib.request.build_opener(urllib.request.ProxyHandler({}))
        return urllib.request.build_opener()        # proxies from the environment

    def __call__(self, messages, **kwargs):
        import http.client
        import urllib.error
        import urllib.request
        _check_messages(messages)
        body = dict(self.defaults)
        body.update(kwargs)
        body["model"], body["messages"] = self.model, messages
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=json.dumps(body).encode("utf-8"),
                                     headers=headers, method="POST")
        deadline = time.monotonic() + self.timeout
        try:
            try:
                with self._opener().open(req, timeout=self.timeout) as resp:
                    raw = self._read(resp, deadline)
            except urllib.error.HTTPError as e:
                try:
                    text = self._read(e, deadline).decode("utf-8", "replace")
                finally:
                    e.close()
                raise ModelHTTPError(f"{self.url} answered HTTP {e.code} {e.reason}: {text}",
                                     e.code, text) from None
        except urllib.error.URLError as e:
            if isinstance(e.reason, (socket.timeout, TimeoutError)):
                raise self._timeout() from None
            raise ModelConnectionError(f"cannot reach {self.url}: {e.reason}") from None
        except (socket.timeout, TimeoutError):
            raise self._timeout() from None
        except OSError as e:                        # reset, refused, ... once connected
            raise ModelConnectionError(f"connection to {self.url} failed: {e}") from None
        except http.client.HTTPException as e:      # not HTTP at all
            raise ModelResponseError(f"{self.url} sent a malformed HTTP reply: {e!r}") from None
        return self._content(raw)

    def _timeout(self):
        return ModelTimeoutError(f"{self.url} gave no complete reply within {self.timeout:g} s "
                                 f"(timeout=)")

    def _read(self, resp, deadline):
        """The body, read in chunks, so that a server sending it slowly cannot
        keep us past the deadline (each read waits at most ``timeout``)."""
        read = getattr(resp, "read1", resp.read)     # read1: what has arrived, not 64 KiB
        chunks = []
        while True:
            chunk = read(65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            if time.monotonic() > deadline:
                raise socket.timeout("deadline passed while reading the reply")

    def _content(self, raw):
        try:
            reply = json.loads(raw.decode("utf-8"))
        except ValueError:
            raise ModelResponseError(f"{self.url} replied with something that is not JSON: "
                                     f"{raw[:500]!r}") from None
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ModelResponseError(f"{self.url} replied without choices[0].message.content: "
                                     f"{json.dumps(reply)[:500]}") from None
        if not isinstance(content, str):
            raise ModelResponseError(f"{self.url} replied with a choices[0].message.content that "
                                     f"is not text: {content!r}")
        return content
