"""Grad modes: thread-local switches read once per op.

Each mode is a small class usable as ``with mode():``, ``@mode()`` and (for the
ones without arguments) bare ``@mode``.  A decorated generator function runs
every resumption under the mode, as PyTorch does.
"""
import functools
import inspect
import threading
import warnings


class _GradState(threading.local):
    enabled = True       # class attributes are each new thread's defaults
    inference = False
    # Recording is ``enabled``.  In inference mode it stays off whatever the grad
    # mode (PyTorch makes inference tensors there even under enable_grad): the grad
    # modes then set only ``inference_grad``, what ``is_grad_enabled`` reports.
    inference_grad = False


state = _GradState()

# How many threads are in inference mode now.  While none is, the per-op hot paths
# skip reading the thread-local flag (a thread-local read costs ~55 ns, twice a
# list's): they test ``INFERENCE_THREADS[0] and state.inference``.
INFERENCE_THREADS = [0]
_inference_lock = threading.Lock()


def _set_inference(flag):
    """Set this thread's inference flag, keeping ``INFERENCE_THREADS`` true."""
    if flag != state.inference:
        with _inference_lock:
            INFERENCE_THREADS[0] += 1 if flag else -1
        state.inference = flag


def is_grad_enabled():
    """True if grad mode is on in this thread (in inference mode nothing is recorded
    even then)."""
    return state.enabled or (state.inference and state.inference_grad)


def _set_grad_mode(mode):
    """Set this thread's grad mode; returns the one before (for ``_restore_grad_mode``)."""
    prev = is_grad_enabled()
    _restore_grad_mode(mode)
    return prev


def _restore_grad_mode(mode):
    """Set the grad mode where it lives now: inside inference mode only what is
    reported (a mode saved outside and restored inside never starts recording)."""
    if state.inference:
        state.inference_grad = mode
    else:
        state.enabled = mode


def is_inference_mode_enabled():
    return state.inference


def _wrap_generator(ctx_factory, gen_fn):
    @functools.wraps(gen_fn)
    def wrapper(*args, **kwargs):
        gen = gen_fn(*args, **kwargs)
        try:
            with ctx_factory():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with ctx_factory():
                        gen.close()
                    raise
                except BaseException as e:       # forward throw() into the generator
                    with ctx_factory():
                        response = gen.throw(e)
                else:
                    with ctx_factory():
                        response = gen.send(request)
        except StopIteration as e:
            return e.value
    return wrapper


class _DecoratorContextManager:
    """Base: ``__enter__``/``__exit__`` from the subclass; decorating clones the
    manager per call so a decorated function is reentrant."""

    def __call__(self, func):
        if inspect.isclass(func):
            warnings.warn("Decorating classes is deprecated and will be disabled in future "
                          "versions. You should only decorate functions or methods. To preserve "
                          "the current behavior of class decoration, you can directly decorate "
                          "the `__init__` method and nothing else.", FutureWarning, stacklevel=2)
            cls = func

            def func(*args, **kwargs):          # constructing the class runs under the mode
                return cls(*args, **kwargs)
        if inspect.isgeneratorfunction(func):
            return _wrap_generator(self.clone, func)

        @functools.wraps(func)
        def decorate_context(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return decorate_context

    def clone(self):
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable bare: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Context manager and decorator that turns off gradient recording.

    Results of ops computed inside have ``requires_grad=False`` even when their
    inputs require grad.  Factory functions that take ``requires_grad=`` are
    not affected.  Thread-local.

        >>> x = tensorplay.tensor([1.], requires_grad=True)
        >>> with tensorplay.no_grad():
        ...     y = x * 2
        >>> y.requires_grad
        False
    """

    def __init__(self, orig_func=None):
        self.prev = None

    def __enter__(self):
        self.prev = _set_grad_mode(False)

    def __exit__(self, *exc):
        _restore_grad_mode(self.prev)


class enable_grad(_NoParamDecoratorContextManager):
    """Context manager and decorator that turns gradient recording back on
    inside ``no_grad`` or ``set_grad_enabled(False)``.  Thread-local.

        >>> x = tensorplay.tensor([1.], requires_grad=True)
        >>> with tensorplay.no_grad():
        ...     with tensorplay.enable_grad():
        ...         y = x * 2
        >>> y.requires_grad
        True
    """

    def __init__(self, orig_func=None):
        self.prev = None

    def __enter__(self):
        self.prev = _set_grad_mode(True)

    def __exit__(self, *exc):
        _restore_grad_mode(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """Turn gradient recording on or off.  Takes effect at once when called as
    a function; as a context manager it restores the previous mode on exit.

        >>> _ = tensorplay.set_grad_enabled(False)
        >>> tensorplay.is_grad_enabled()
        False
        >>> _ = tensorplay.set_grad_enabled(True)
    """

    def __init__(self, mode):
        if not isinstance(mode, bool):
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}")
        self.mode = mode
        self.prev = _set_grad_mode(mode)

    def __call__(self, func):
        _restore_grad_mode(self.prev)    # decorating must not change the mode now
        return super().__call__(func)

    def __enter__(self):
        _set_grad_mode(self.mode)

    def __exit__(self, *exc):
        _restore_grad_mode(self.prev)

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad``, and tensors created inside are inference tensors: they
    can never be recorded for backward later.  ``inference_mode(False)`` turns
    inference mode off and grad mode on (as PyTorch's ``InferenceMode(false)``
    guard does), so it can switch it off conditionally or locally."""

    def __new__(cls, mode=True):
        if not isinstance(mode, bool):        # bare @inference_mode
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self.prev = (state.enabled, state.inference, state.inference_grad)
        state.enabled = not self.mode
        state.inference_grad = False
        _set_inference(self.mode)

    def __exit__(self, *exc):
        state.enabled, _, state.inference_grad = self.prev
        _set_inference(self.prev[1])

    def clone(self):
        return self.__class__(self.mode)
