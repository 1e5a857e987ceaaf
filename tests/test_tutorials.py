"""PyTorch's tutorials and examples, retold as programs in ``tests/tutorials/`` that begin
``import tensorplay as torch``, run unchanged (issue 8). Each program trains or computes
something observable and leaves its numbers in module-level names, which these tests
check. Where torch is installed, the same program runs again with every ``tensorplay``
replaced by ``torch`` (so it must be a valid PyTorch program too), and what is comparable
is compared: the programs that start from NumPy numbers (optimization, polynomial fits,
regression, time sequence) must follow PyTorch's run step by step.

The tensorplay runs happen in one child process with single-threaded BLAS: on a machine
whose cores are all busy, OpenBLAS's worker threads make each mid-sized matrix product
(the convolutions, the 784-wide layers) wait for a core, and the programs take many times
longer without computing anything different. The torch runs happen here (PyTorch's own
thread count is already 1 in ``conftest``)."""
import functools
import importlib.util
import math
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import tensorplay
from conftest import torch

HERE = Path(__file__).resolve().parent / "tutorials"
SCRIPTS = sorted(p.stem for p in HERE.glob("*.py") if not p.name.startswith(("_", "conftest")))
needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")

_spec = importlib.util.spec_from_file_location("tutorial_runner", HERE / "_runner.py")
runner = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(runner)


class _TensorplayRuns:
    """Every program, run with tensorplay in one child process, started once and read
    once: ``get()`` gives {name: ("ok", results) or ("error", traceback)}."""

    def __init__(self):
        self.proc = self.runs = None

    def start(self):
        if self.proc is not None:
            return
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
        # the child imports the same tensorplay as this process
        package_root = str(Path(tensorplay.__file__).resolve().parent.parent)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
        self.tmp = tempfile.mkdtemp()
        self.out = os.path.join(self.tmp, "runs.pkl")
        self.err = open(os.path.join(self.tmp, "stderr.txt"), "w+")
        self.proc = subprocess.Popen([sys.executable, str(HERE / "_runner.py"), self.out, *SCRIPTS],
                                     env=env, stdout=self.err, stderr=self.err)

    def get(self):
        if self.runs is None:
            self.start()
            try:
                self.proc.wait(timeout=900)
                if self.proc.returncode != 0:
                    self.err.seek(0)
                    raise RuntimeError(f"the tutorial runner failed:\n{self.err.read()}")
                with open(self.out, "rb") as f:
                    self.runs = pickle.load(f)
            finally:
                self.close()
        return self.runs

    def close(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()                # nobody read it (a test selection), or it hung
            self.proc.wait()
        if self.proc is not None and not self.err.closed:
            self.err.close()
            shutil.rmtree(self.tmp, ignore_errors=True)


_tensorplay_runs = _TensorplayRuns()


@functools.lru_cache(maxsize=None)
def _torch_run(name):
    return runner.run(name, "torch")


def _run_both_at_once():
    """Start the tensorplay child, and run the torch programs here meanwhile: two
    processes get twice the share of a busy machine (and both cores of an idle one)."""
    if _tensorplay_runs.proc is None:
        _tensorplay_runs.start()
        if torch is not None:
            for name in SCRIPTS:
                try:
                    _torch_run(name)
                except Exception:       # the test that reads this run reports the error
                    pass


@pytest.fixture(scope="module", autouse=True)
def _stop_the_child():
    yield
    _tensorplay_runs.close()


def run(name, lib="tensorplay"):
    """What ``tests/tutorials/<name>.py`` computed with ``lib``, as plain data (see
    ``_runner.plain``), with its printed output under ``"stdout"``. Each program seeds
    every generator it draws from, so one run per library serves every test."""
    _run_both_at_once()
    if lib == "torch":
        return _torch_run(name)
    status, value = _tensorplay_runs.get()[name]
    if status != "ok":
        pytest.fail(f"tests/tutorials/{name}.py failed with tensorplay:\n{value}", pytrace=False)
    return value


def close(a, b, rtol, atol=0.0):
    np.testing.assert_allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float),
                               rtol=rtol, atol=atol)


# ------------------------------------------------------------------- the programs themselves
def test_every_program_differs_from_pytorch_only_in_its_imports():
    """Each program starts with ``import tensorplay as torch`` and names tensorplay only in
    import statements: swapping the library is the import change and nothing else."""
    assert len(SCRIPTS) == 9
    for name in SCRIPTS:
        lines = (HERE / f"{name}.py").read_text().splitlines()
        assert lines[0] == "import tensorplay as torch", name
        for line in lines:
            if "tensorplay" in line:
                assert re.match(r"(import tensorplay[\w.]*( as \w+)?"
                                r"|from tensorplay[\w.]* import [\w, ]+)(\s+#.*)?$", line), line


@pytest.mark.parametrize("name", SCRIPTS)
def test_programs_run_without_warnings(name):
    assert run(name)["warnings"] == []


# ------------------------------------------------------------------ What is torch.nn really?
def test_nn_tutorial_every_refactoring_still_learns():
    ns = run("nn_tutorial")
    st = ns["stages"]
    (loss0, acc0), (loss1, acc1) = st["scratch"]
    assert abs(loss0 - math.log(10)) < 1.0 and acc0 < 0.5        # an untrained guess
    assert loss1 < loss0 / 50 and acc1 == 1.0
    # F.cross_entropy on the raw scores is log_softmax + nll written by hand
    hand, builtin, acc = st["functional"]
    assert builtin == pytest.approx(hand, rel=1e-3, abs=1e-6) and acc == 1.0
    for stage in ("module", "linear", "optim", "dataset", "dataloader"):
        before, after = st[stage]
        assert after < before / 50, stage
    assert max(st["validation"]) < 0.05 and max(st["fit"]) < 0.05
    assert st["fit_accuracy"] >= 0.95


def test_nn_tutorial_cnns_train():
    """The three CNNs (a Module with F.avg_pool2d; nn.Sequential with Lambda layers and
    AvgPool2d; AdaptiveAvgPool2d behind a wrapped DataLoader) each take two epochs on 640
    images. This architecture can start with every output unit dead (a ReLU before the
    pooling), so the claim is: none diverges, and most of them learn."""
    st = run("nn_tutorial")["stages"]
    curves = [st["cnn"], st["sequential"], st["adaptive"]]
    accuracies = [st["cnn_accuracy"], st["sequential_accuracy"], st["adaptive_accuracy"]]
    for curve in curves:
        assert len(curve) == 2 and curve[-1] < math.log(10) + 0.05
    learned = [curve[-1] < 0.75 * math.log(10) and acc >= 0.35
               for curve, acc in zip(curves, accuracies)]
    assert sum(learned) >= 2, (curves, accuracies)
    # adaptive pooling: any image size gives one score per class
    assert st["adaptive_big_input"] == (2, 10)


@needs_torch
def test_nn_tutorial_runs_on_pytorch():
    ours, theirs = run("nn_tutorial")["stages"], run("nn_tutorial", "torch")["stages"]
    assert set(ours) == set(theirs)
    for stage in ("module", "linear", "optim", "dataset", "dataloader"):
        assert theirs[stage][1] < theirs[stage][0] / 50
    assert theirs["fit_accuracy"] >= 0.95
    assert theirs["adaptive_big_input"] == (2, 10)


# ------------------------------------------------------------------------- build the model
def test_build_model_layers():
    ns = run("build_model")
    assert ns["device"] == "cpu"
    assert tuple(ns["logits"].shape) == (3, 10)
    probs = ns["pred_probab"]
    close(probs.sum(1), np.ones(3), 1e-6)
    assert (probs > 0).all()
    assert tuple(ns["y_pred"].shape) == (1,)
    assert tuple(ns["flat_image"].shape) == (3, 784)
    close(ns["hidden1"], np.maximum(ns["pre_relu"], 0), 0)
    assert ns["param_summary"] == [
        ("linear_relu_stack.0.weight", (512, 784), (2, 784), True),
        ("linear_relu_stack.0.bias", (512,), (2,), True),
        ("linear_relu_stack.2.weight", (512, 512), (2, 512), True),
        ("linear_relu_stack.2.bias", (512,), (2,), True),
        ("linear_relu_stack.4.weight", (10, 512), (2, 512), True),
        ("linear_relu_stack.4.bias", (10,), (2,), True),
    ]
    assert "Layer: linear_relu_stack.4.bias | Size: tensorplay.Size([10])" in ns["stdout"]


@needs_torch
def test_build_model_prints_like_pytorch():
    ours, theirs = run("build_model"), run("build_model", "torch")
    assert ours["model_repr"] == theirs["model_repr"]
    assert ours["param_summary"] == theirs["param_summary"]
    assert ours["stdout"].count("\n") == theirs["stdout"].count("\n")


# ---------------------------------------------------------------- optimizing model parameters
def test_optimization_loop_learns():
    ns = run("optimization")
    results = ns["test_results"]
    assert len(results) == 5 and len(ns["step_losses"]) == 4 * 15
    (acc0, loss0), (acc_end, loss_end) = results[0], results[-1]
    assert acc0 <= 0.2 and acc_end >= 0.7
    assert loss_end < loss0 / 2
    assert "Accuracy: " in ns["stdout"] and "Done!" in ns["stdout"]
    # the state dict saved to a file and loaded into a fresh model gives the same answers
    assert ns["reloaded_matches"] is True
    assert set(ns["reloaded"]) == set(ns["model"])
    for key in ns["model"]:
        close(ns["reloaded"][key], ns["model"][key], 0)


@needs_torch
def test_optimization_loop_matches_pytorch_step_by_step():
    """float32 training with two libraries' matrix kernels: the losses agree to 1e-4
    until rounding differences grow through the updates; when that begins depends on
    the host's kernels (step 42 of 60 on an AMD EPYC host; another host agreed to the
    end), so the later steps and the test results get a looser bound."""
    ours, theirs = run("optimization"), run("optimization", "torch")
    close(ours["step_losses"][:30], theirs["step_losses"][:30], 1e-4)
    close(ours["step_losses"], theirs["step_losses"], 2e-2)
    res, ref = np.asarray(ours["test_results"], float), np.asarray(theirs["test_results"], float)
    close(res[:, 0], ref[:, 0], 0, atol=3 / 320)          # accuracy: within 3 of 320 samples
    close(res[:, 1], ref[:, 1], 2e-2)


# ------------------------------------------------------------------------- polynomial fits
def test_polynomial_fits_converge():
    hist = run("polynomial_fits")["histories"]
    assert set(hist) == {"autograd", "function", "nn", "optim", "dynamic"}
    need = {"autograd": 50, "function": 5, "nn": 10, "optim": 25, "dynamic": 100}
    for name, history in hist.items():
        assert len(history) == 400
        assert history[-1] < history[0] / need[name], name
        assert all(np.isfinite(history))


def test_polynomial_custom_function_gradient():
    """The hand-written P3' of LegendrePolynomial3 passes gradcheck, and backward uses it."""
    ns = run("polynomial_fits")
    assert ns["p3_gradcheck"] is True
    x = ns["x64"]
    assert x.dtype == np.float64 and ns["p3_grad"].dtype == np.float64
    close(ns["p3_grad"], 1.5 * (5 * x ** 2 - 1), 1e-12)


@needs_torch
def test_polynomial_fits_match_pytorch_step_by_step():
    ours, theirs = run("polynomial_fits"), run("polynomial_fits", "torch")
    for name in ours["histories"]:
        close(ours["histories"][name], theirs["histories"][name], 1e-4, atol=1e-6)
    close(ours["autograd_coefficients"], theirs["autograd_coefficients"], 1e-4, atol=1e-6)
    close(ours["optim_coefficients"], theirs["optim_coefficients"], 1e-3, atol=1e-5)


# ------------------------------------------------------------------------------------ NLP
def test_word_embeddings_ngram_model_learns():
    ns = run("word_embeddings")
    assert tuple(ns["hello_embed"].shape) == (1, 5)
    losses = ns["losses"]
    assert len(losses) == 6
    assert all(b < a for a, b in zip(losses, losses[1:]))      # down with every pass
    assert losses[-1] < 0.985 * losses[0]
    # the embeddings are parameters: training moved them
    assert np.abs(ns["summers_embedding"] - ns["summers_before"]).max() > 2e-4


@needs_torch
def test_word_embeddings_runs_on_pytorch():
    ours, theirs = run("word_embeddings"), run("word_embeddings", "torch")
    assert len(theirs["losses"]) == len(ours["losses"])
    assert all(b < a for a, b in zip(theirs["losses"], theirs["losses"][1:]))
    # the same data and model size: the untrained losses agree to within the spread of inits
    assert ours["losses"][0] == pytest.approx(theirs["losses"][0], rel=0.05)


def test_lstm_stepping_equals_one_call():
    ns = run("lstm_tagger")
    stepped = np.concatenate([o for o in ns["step_outputs"]])
    whole = ns["whole_out"]
    assert whole.shape == (5, 1, 3)
    close(stepped, whole, 1e-6, atol=1e-7)
    h, c = ns["whole_hidden"]
    assert tuple(h.shape) == tuple(c.shape) == (1, 1, 3)
    close(whole[-1], h[0], 0)        # the last output is the last h
    for a, b in zip(ns["stepped_hidden"], ns["whole_hidden"]):
        close(a, b, 1e-6, atol=1e-7)


def test_lstm_tagger_learns_the_tags():
    ns = run("lstm_tagger")
    losses = ns["epoch_losses"]
    assert losses[-1] < losses[0] / 2
    assert ns["predicted_tags"] == [0, 1, 2, 0, 1]          # DET NN V DET NN
    scores = ns["tag_scores"]
    assert scores.shape == (5, 3)
    close(np.exp(scores).sum(1), np.ones(5), 1e-5)          # log-probabilities over tags


@needs_torch
def test_lstm_tagger_runs_on_pytorch():
    theirs = run("lstm_tagger", "torch")
    assert theirs["predicted_tags"] == [0, 1, 2, 0, 1]
    assert theirs["epoch_losses"][-1] < theirs["epoch_losses"][0] / 2


# --------------------------------------------------------------------- regression examples
def test_regression_finds_the_polynomial():
    ns = run("regression")
    losses = ns["losses"]
    assert losses[-1] < 1e-3 and len(losses) < 2000
    close(ns["fc"]["weight"].ravel(), ns["W_target"].ravel(), 0, atol=0.15)
    close(ns["fc"]["bias"], ns["b_target"], 0, atol=0.1)
    assert re.fullmatch(r"y = ([+-]\d+\.\d\d x\^\d ){4}[+-]\d+\.\d\d", ns["learned"])


@needs_torch
def test_regression_matches_pytorch():
    """The same batches from the same start. Steps of 0.1 on features up to x^4 amplify
    float32 rounding as the fit tightens, so the early losses must match closely, the end
    point only to the fit's own precision."""
    ours, theirs = run("regression"), run("regression", "torch")
    close(ours["losses"][:100], theirs["losses"][:100], 1e-4)
    assert abs(len(ours["losses"]) - len(theirs["losses"])) <= 0.25 * len(theirs["losses"])
    close(ours["fc"]["weight"], theirs["fc"]["weight"], 0, atol=0.05)
    assert ours["actual"] == theirs["actual"]


def test_time_sequence_lbfgs_and_future():
    ns = run("time_sequence")
    losses, tests = ns["closure_losses"], ns["test_losses"]
    assert len(losses) <= 2 * 20 and len(losses) > 2     # max_iter evaluations per step at most
    assert losses[-1] < losses[0] / 50
    assert tests[-1] < tests[0]
    y = ns["y"]
    assert isinstance(y, np.ndarray) and y.dtype == np.float64
    assert y.shape == (3, ns["L"] - 1 + ns["future"])
    assert np.isfinite(y).all() and np.abs(y).max() < 1.5


@needs_torch
def test_time_sequence_matches_pytorch_step_by_step():
    ours, theirs = run("time_sequence"), run("time_sequence", "torch")
    close(ours["closure_losses"], theirs["closure_losses"], 1e-8)
    close(ours["test_losses"], theirs["test_losses"], 1e-8)
    close(ours["y"], theirs["y"], 1e-7, atol=1e-9)


# ------------------------------------------------------------------------- model ensembling
def test_ensembling_vmap_equals_the_loop():
    ns = run("ensembling")
    loop1 = np.stack(ns["predictions_diff_minibatch_loop"])
    loop2 = np.stack(ns["predictions2"])
    assert tuple(ns["predictions1_vmap"].shape) == tuple(loop1.shape) == (5, 32, 10)
    close(ns["predictions1_vmap"], loop1, 1e-5, atol=1e-6)
    close(ns["predictions2_vmap"], loop2, 1e-5, atol=1e-6)
    close(ns["predictions3_vmap"], ns["predictions1_vmap"], 0)
    # different minibatches really give different answers than the shared one
    assert np.abs(ns["predictions1_vmap"] - ns["predictions2_vmap"])[1:].max() > 1e-3
    params, buffers = ns["params"], ns["buffers"]
    assert tuple(params["fc1.weight"].shape) == (5, 64, 784) and buffers == {}
    # the base copy keeps its own values: functional_call lent it the stacked ones only
    close(ns["base_model"]["fc1.weight"], ns["models"][0]["fc1.weight"], 0)


@needs_torch
def test_ensembling_runs_on_pytorch():
    ours, theirs = run("ensembling"), run("ensembling", "torch")
    for key in ("predictions1_vmap", "predictions2_vmap", "predictions3_vmap"):
        assert tuple(ours[key].shape) == tuple(theirs[key].shape)
    assert list(ours["params"]) == list(theirs["params"])


def test_top_level_vmap():
    # the ensembling tutorial imports it as `from torch import vmap`
    assert tensorplay.vmap is tensorplay.func.vmap


@pytest.mark.xfail(strict=True, reason="no 'meta' device: the ensembling tutorial makes its "
                   "stateless base copy with copy.deepcopy(model).to('meta'); tensorplay's "
                   "Module.to and Tensor.to refuse it (RuntimeError: CPU only)")
def test_ensembling_base_copy_on_meta_device():
    import copy
    tp = tensorplay
    from tensorplay.func import functional_call, stack_module_state, vmap
    tp.manual_seed(0)
    models = [tp.nn.Linear(4, 3) for _ in range(3)]
    params, buffers = stack_module_state(models)
    base = copy.deepcopy(models[0]).to("meta")
    assert base.weight.device.type == "meta"
    x = tp.randn(3, 2, 4)
    out = vmap(lambda p, b, x: functional_call(base, (p, b), (x,)))(params, buffers, x)
    close(out.numpy(), tp.stack([m(xi) for m, xi in zip(models, x)]).detach().numpy(), 1e-6)


@pytest.mark.parametrize("loss, name", [
    ("mse_loss", "MseLossBackward0"),
    ("smooth_l1_loss", "SmoothL1LossBackward0"),
    ("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0"),
])
@pytest.mark.xfail(strict=True, reason="the losses are compositions, so a printed loss shows "
                   "grad_fn=<MeanBackward0> (SumBackward0 for reduction='sum') where PyTorch "
                   "shows its own node (<MseLossBackward0> etc., as the autograd tutorial prints)")
def test_loss_nodes_are_named_as_in_pytorch(loss, name):
    F = tensorplay.nn.functional
    x = tensorplay.randn(4, 3, requires_grad=True)
    assert type(getattr(F, loss)(x, tensorplay.rand(4, 3)).grad_fn).__name__ == name
