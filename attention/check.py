"""Check a learner's own attention class against the book's, by behaviour, and name likely bugs.

::

    from attention.check import check_attention, BUGS
    report = check_attention(MyCausalAttention)   # the book's constructor signature
    report = check_attention("my_attention.py:MyCausalAttention", timeout=30)  # or a file
    report.passed            # True when it behaves as the book's class on every case
    report.first_difference  # None, or the first case and what differed
    report.findings          # what the checker measured, and the gallery bugs each points to
    report.likely_bugs       # names from BUGS, most likely first
    report.future_leak       # True when a later token changes earlier outputs
    print(report)            # what to look at, in plain words

The source is never read. For every case of a small grid (batch 1 and 2, token counts below
``context_length``, dropout 0 and 0.5, training and eval mode, several seeds) the book's module
is built, its weights are copied into the learner's module by the book's names (``W_query``,
``W_key``, ``W_value``; ``out_proj`` with several heads), both get the same input and both run
right after ``torch.manual_seed(seed)``: a class that calls dropout as the book does draws the
same masks. Every gallery bug of :mod:`attention.bugs` runs on the same cases; those that
reproduce the learner's outputs exactly are the likely bugs. The KV-cache slip is the one
exception: a full pass cannot show it, and the report says so (:attr:`CheckReport.unchecked`).
Bugs written another way are named by behaviour (:class:`Finding`): a *probe* gives the layer
one-hot values, so its output is its attention weights, which show a mask that hides the past or
nothing, rows that do not sum to 1, a hidden diagonal or another softmax temperature; the grid
shows NaN only in training with dropout, or eval mode that still drops.

The learner's class runs in a child process (forked where the system allows it, on Linux) with a
time limit: an exit, a crash or a hang there is a failure in words, and nothing the class does to
torch's global settings reaches the caller. The book's side is computed with torch's defaults
(float32 on the CPU) whatever the class sets. The app never runs a learner's class.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import inspect
import json
import math
import multiprocessing
import os
import reprlib
import signal
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
import torch.nn as nn

from .bugs import BUGS, earlier_outputs_moved
from .randomness import private_generator
from .trace import AttentionConfig, build_module
from .validate import AttentionInputError

__all__ = [
    "BUGS",
    "DEFAULT_TIMEOUT",
    "Case",
    "CheckReport",
    "Difference",
    "Finding",
    "check_attention",
]

DEFAULT_TIMEOUT = 60.0  # seconds for the whole check: import, build and every forward pass
MAX_TIMEOUT = 86_400.0
D_IN = 3
D_OUT = 2  # one head
MULTI_HEAD_D_OUT = 4  # two heads of 2
NUM_HEADS = 2
CONTEXT_LENGTH = 8
SHAPES = ((1, 6), (2, 5), (2, 3))  # (batch, tokens), tokens below CONTEXT_LENGTH
SEEDS = (0, 1, 2)
RTOL, ATOL = 1e-4, 1e-5  # float32 rounding of a class written differently
BOOK_NAMES = ("W_query", "W_key", "W_value")
PROBE_TOKENS = 6  # the probe's sequence; each head's values are the token's one-hot position
PROBE_PAD = 1  # a head is this much wider than the tokens: a scale by the token count
# (``keys.shape[1]`` for ``keys.shape[-1]``) is then not the book's √d_k
PROBE_CONTENT = 3  # input features the queries and keys read
ZERO = 1e-6  # a weight below this is "no weight" (a hidden score gives exactly 0)
# Linux forks the checking process (the class object and the imported torch come along);
# elsewhere a file is checked in a fresh ``spawn`` process and a class object in this one.
FORK = sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()


@dataclass(frozen=True)
class Case:
    """One run of the grid: the module's settings and the input's shape."""

    batch: int
    num_tokens: int
    dropout: float
    training: bool
    seed: int

    def __str__(self) -> str:
        mode = "training" if self.training else "eval"
        return (
            f"batch {self.batch}, {self.num_tokens} tokens, dropout {self.dropout:g}, "
            f"{mode} mode, seed {self.seed}"
        )


@dataclass(frozen=True)
class Difference:
    """Where the learner's class first differs from the book's: the case and what differed."""

    case: Case | None  # None: the class could not be built, given the weights, or run to the end
    what: str

    def __str__(self) -> str:
        return self.what if self.case is None else f"{self.case}: {self.what}"


@dataclass(frozen=True)
class Finding:
    """A behaviour the checker measured, the gallery bugs it points to and why."""

    saw: str  # what was measured, in plain words
    bugs: tuple[str, ...]  # names in BUGS, closest first
    why: str  # why those bugs

    def __str__(self) -> str:
        named = f" -> {', '.join(self.bugs)}" if self.bugs else ""
        return f"{self.saw}{named}: {self.why}"


@dataclass(frozen=True)
class CheckReport:
    """The result of :func:`check_attention`; ``str(report)`` says it in plain words."""

    class_name: str
    book_class: str
    passed: bool
    cases: int
    first_difference: Difference | None
    likely_bugs: tuple[str, ...] = ()
    future_leak: bool = False
    leaked_tokens: tuple[int, ...] = field(default=())  # earlier tokens whose output moved
    raised: int = 0  # cases where the learner's forward pass raised an exception
    findings: tuple[Finding, ...] = ()
    notes: tuple[str, ...] = ()  # e.g. torch settings the class changed

    @property
    def unchecked(self) -> tuple[str, ...]:
        """Gallery bugs this check cannot see: a KV-cache slip is the book's on a full pass."""
        return tuple(
            bug.name
            for bug in BUGS.values()
            if bug.cached and bug.book_class.__name__ == self.book_class
        )

    def __str__(self) -> str:
        notes = [f"Note: {note}" for note in self.notes]
        notes += [
            f"Not checked: {name} ({BUGS[name].title}). It shows only when tokens go through a "
            "KV cache, and the checker runs full passes; see attention.kv_cache.through_cache."
            for name in self.unchecked
        ]
        if self.passed:
            return "\n".join(
                [
                    f"{self.class_name} behaves as the book's {self.book_class} on all "
                    f"{self.cases} cases (batch 1 and 2, several token counts, dropout 0 and "
                    "0.5, training and eval mode, several seeds).",
                    *notes,
                ]
            )
        lines = [f"{self.class_name} does not behave as the book's {self.book_class}."]
        if self.first_difference is not None:
            lines.append(f"First difference: {self.first_difference}.")
        if self.future_leak:
            shown = ", ".join(str(i + 1) for i in self.leaked_tokens)
            lines.append(
                "Future leak: changing a later token changes earlier outputs "
                f"(tokens {shown}); a causal layer must not let a token see what follows it."
            )
        if self.findings:
            lines.append("What the checker saw, and the gallery bugs it points to:")
            lines.extend(f"  - {finding}" for finding in self.findings)
        if self.likely_bugs:
            lines.append("Likely bug" + ("s" if len(self.likely_bugs) > 1 else "") + ":")
            for name in self.likely_bugs:
                bug = BUGS[name]
                lines.append(f"  {name} ({bug.title}): {bug.spot}")
                lines.extend(f"    {line}" for line in bug.diff.splitlines())
        elif self.raised == self.cases:
            lines.append("Its forward pass raised an exception in every case: fix that first.")
        elif self.first_difference is not None and self.first_difference.case is not None:
            lines.append("None of the gallery's bugs gives the same outputs.")
        return "\n".join(lines + notes)

    def to_json(self) -> str:
        """The report as JSON (how the checking process hands it back)."""
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> CheckReport:
        data = json.loads(text)
        first = data["first_difference"]
        if first is not None:
            case = None if first["case"] is None else Case(**first["case"])
            first = Difference(case, first["what"])
        return cls(
            **{
                **data,
                "first_difference": first,
                "likely_bugs": tuple(data["likely_bugs"]),
                "leaked_tokens": tuple(data["leaked_tokens"]),
                "findings": tuple(
                    Finding(f["saw"], tuple(f["bugs"]), f["why"]) for f in data["findings"]
                ),
                "notes": tuple(data["notes"]),
            }
        )


# --- torch's global settings: read, guarded for the book's side, restored --------------------


def _global_settings() -> dict[str, Any]:
    """The torch settings a class can change for everything after it."""
    return {
        "default dtype": torch.get_default_dtype(),
        "default device": torch.get_default_device(),
        "gradient mode": torch.is_grad_enabled(),
        "deterministic algorithms": torch.are_deterministic_algorithms_enabled(),
        "anomaly detection": torch.is_anomaly_enabled(),
    }


@contextlib.contextmanager
def _restored_globals() -> Iterator[None]:
    """Put back every torch global a class may touch: default dtype and device, grad mode,
    deterministic algorithms, anomaly detection, the CPU random state and the thread count."""
    dtype, device = torch.get_default_dtype(), torch.get_default_device()
    grad = torch.is_grad_enabled()
    deterministic = torch.are_deterministic_algorithms_enabled()
    warn_only = torch.is_deterministic_algorithms_warn_only_enabled()
    anomaly, check_nan = torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()
    threads, rng = torch.get_num_threads(), torch.random.get_rng_state()
    try:
        yield
    finally:
        torch.set_default_dtype(dtype)
        if torch.get_default_device() != device:
            torch.set_default_device(None if device == torch.device("cpu") else device)
        torch.set_grad_enabled(grad)
        torch.use_deterministic_algorithms(deterministic, warn_only=warn_only)
        torch.set_anomaly_enabled(anomaly, check_nan)
        torch.set_num_threads(threads)
        torch.random.set_rng_state(rng)


@contextlib.contextmanager
def _book_settings() -> Iterator[None]:
    """torch's defaults for the book's side (float32 on the CPU), whatever the class set."""
    with _restored_globals():
        torch.set_default_dtype(torch.float32)
        if torch.get_default_device() != torch.device("cpu"):
            torch.set_default_device(None)
        torch.use_deterministic_algorithms(False)
        torch.set_anomaly_enabled(False)
        yield


def _changed_settings(before: dict[str, Any]) -> tuple[str, ...]:
    after = _global_settings()
    changed = [f"{k} {before[k]} -> {after[k]}" for k in before if after[k] != before[k]]
    if not changed:
        return ()
    return (
        f"the class changed torch's global settings ({'; '.join(changed)}). A layer should "
        "leave them alone: they change everything that runs after it. The checker computed "
        "the book's side with torch's defaults.",
    )


# --- building, weights, inputs ---------------------------------------------------------------


def _is_multi_head(cls: type) -> bool:
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False
    return "num_heads" in parameters


def _construct(cls: type, multi_head: bool, d_in: int, d_out: int, dropout: float) -> nn.Module:
    """``cls`` built with the book's arguments; its own initial weights do not matter.

    The learner's ``nn.Linear`` layers draw their initial weights from torch's global generator
    (a class cannot be given a private one); ``fork_rng`` puts its state back. This runs only in
    the checking process, never on the app's server.
    """
    with torch.random.fork_rng(devices=[]):
        if multi_head:
            return cls(d_in, d_out, CONTEXT_LENGTH, dropout, NUM_HEADS)
        return cls(d_in, d_out, CONTEXT_LENGTH, dropout)


def _build(cls: type, multi_head: bool, dropout: float) -> nn.Module:
    return _construct(cls, multi_head, D_IN, MULTI_HEAD_D_OUT if multi_head else D_OUT, dropout)


def _book_module(multi_head: bool, dropout: float, seed: int) -> nn.Module:
    """The book's class with the weights of ``torch.manual_seed(seed)`` (a private generator)."""
    cfg = AttentionConfig(
        d_out=MULTI_HEAD_D_OUT if multi_head else D_OUT,
        dropout=dropout,
        seed=seed,
        context_length=CONTEXT_LENGTH,
        num_heads=NUM_HEADS if multi_head else 1,
    )
    return build_module(D_IN, cfg)


def _copy_weights(book: nn.Module, module: nn.Module, multi_head: bool) -> str | None:
    """Copy the book's weights into ``module`` by the book's names; a problem as text, or None.

    A layer may be an ``nn.Linear`` (weight ``(d_out, d_in)``) or a plain parameter ``(d_in,
    d_out)`` used as ``x @ W`` (``SelfAttention_v1``'s way).
    """
    names = BOOK_NAMES + (("out_proj",) if multi_head else ())
    missing = [name for name in names if not hasattr(module, name)]
    if missing:
        return (
            f"it has no {', '.join(missing)}: the checker gives your module the book's weights "
            f"by the book's names ({', '.join(names)}), so name your layers so"
        )
    with torch.no_grad():
        for name in names:
            source: nn.Linear = getattr(book, name)
            target = getattr(module, name)
            if isinstance(target, nn.Linear) and target.weight.shape == source.weight.shape:
                target.weight.copy_(source.weight)
                if (target.bias is None) != (source.bias is None):
                    return f"{name} has {'a' if target.bias is not None else 'no'} bias, unlike the book's"
                if target.bias is not None:
                    target.bias.copy_(source.bias)
            elif isinstance(target, torch.Tensor) and target.shape == source.weight.T.shape:
                target.copy_(source.weight.T)
            else:
                shape = (
                    tuple(getattr(target, "weight", target).shape)
                    if hasattr(getattr(target, "weight", target), "shape")
                    else type(target).__name__
                )
                return (
                    f"{name} is {shape}, expected an nn.Linear({source.in_features}, "
                    f"{source.out_features}) as in the book"
                )
    return None


def _off_the_cpu(module: nn.Module) -> str | None:
    """A parameter or buffer away from the CPU, where the inputs are, as text; or None.

    A layer built while torch's default device was ``meta`` holds no numbers, and a forward pass
    that mixes it with the CPU input still returns a CPU tensor, of whatever the memory held: so
    the checker says where the tensors are instead of comparing that noise.
    """
    for name, tensor in (*module.named_parameters(), *module.named_buffers()):
        if tensor.device.type != "cpu":
            return (
                f"its {name} is on device '{tensor.device}', expected 'cpu' (the input's device; "
                "build the layers on the CPU, torch's default device)"
            )
    return None


def _inputs(case: Case) -> torch.Tensor:
    generator = private_generator(1000 + case.seed)
    shape = (case.batch, case.num_tokens, D_IN)
    return torch.randn(shape, generator=generator, dtype=torch.float32)  # (b, T, d_in)


def _seeded_forward(module: nn.Module, x: torch.Tensor, seed: int) -> Any:
    """``module(x)`` right after ``torch.manual_seed(seed)``, the global generator restored.

    A learner's class draws its dropout masks from torch's global generator (``nn.Dropout``), so
    the checker must seed that one; ``fork_rng`` puts its state back afterwards.
    """
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        torch.default_generator.manual_seed(seed)  # the CPU generator, as torch.manual_seed
        return module(x.clone())


def _unusable(output: Any, expected: torch.Tensor) -> str | None:
    """Why ``output`` cannot be compared with ``expected`` number by number, or None."""
    if not isinstance(output, torch.Tensor):
        return f"the output is a {type(output).__name__}, expected a tensor"
    if type(output) not in (torch.Tensor, nn.Parameter):
        return f"the output is a {type(output).__name__} (a tensor subclass); return a plain tensor"
    if output.device != expected.device:
        return (
            f"the output is on device '{output.device}', expected '{expected.device}' "
            "(the input's device)"
        )
    if output.dtype != expected.dtype:
        return f"the output has dtype {output.dtype}, expected {expected.dtype} (the input's dtype)"
    if tuple(output.shape) != tuple(expected.shape):
        return f"the output has shape {tuple(output.shape)}, expected {tuple(expected.shape)}"
    return None


def _describe(output: Any, expected: torch.Tensor) -> str | None:
    """What differs between the learner's output and the book's, or None."""
    problem = _unusable(output, expected)
    if problem is not None:
        return problem
    output = output.detach()
    if torch.allclose(output, expected, rtol=RTOL, atol=ATOL):
        return None
    if bool(torch.isnan(output).any()):
        where = tuple(int(i) for i in torch.nonzero(torch.isnan(output))[0])
        return f"the output has NaN (first at batch {where[0]}, token {where[1] + 1})"
    gap = (output - expected).abs()
    where = tuple(int(i) for i in torch.nonzero(gap == gap.max())[0])
    return (
        f"the outputs differ by up to {float(gap.max()):.4g} (batch {where[0]}, token "
        f"{where[1] + 1}, feature {where[2] + 1})"
    )


def _grid() -> list[Case]:
    return [
        Case(batch, num_tokens, dropout, training, seed)
        for dropout in (0.0, 0.5)
        for training in (True, False)
        for batch, num_tokens in SHAPES
        for seed in SEEDS
    ]


def _same(a: Any, b: torch.Tensor) -> bool:
    return _unusable(a, b) is None and torch.allclose(
        a.detach(), b, rtol=RTOL, atol=ATOL, equal_nan=True
    )


# --- the book's side, computed before the learner's class is built ---------------------------


@dataclass(frozen=True)
class _CaseReference:
    """One case: the book's module (whose weights the learner's gets), input, output, and the
    output of every gallery bug of this kind."""

    case: Case
    book: nn.Module
    x: torch.Tensor  # (b, T, d_in)
    expected: torch.Tensor  # (b, T, d_out)
    gallery: dict[str, torch.Tensor]


def _references(multi_head: bool) -> list[_CaseReference]:
    gallery = [  # a KV-cache bug is the book's on a full pass: see CheckReport.unchecked
        bug for bug in BUGS.values() if bug.multi_head == multi_head and not bug.cached
    ]
    variants: dict[float, list[nn.Module]] = {}
    references = []
    for case in _grid():
        book = _book_module(multi_head, case.dropout, case.seed)
        book.train(case.training)
        x = _inputs(case)
        if case.dropout not in variants:
            variants[case.dropout] = [_build(bug.cls, multi_head, case.dropout) for bug in gallery]
        outputs = {}
        for bug, variant in zip(gallery, variants[case.dropout], strict=True):
            _copy_weights(book, variant, multi_head)
            variant.train(case.training)
            outputs[bug.name] = _seeded_forward(variant, x, case.seed)
        expected = _seeded_forward(book, x, case.seed)
        references.append(_CaseReference(case, book, x, expected, outputs))
    return references


@dataclass(frozen=True)
class _Probe:
    """A layer whose output is its attention weights: one-hot values, ``out_proj`` the identity.

    Token ``t``'s input is ``PROBE_CONTENT`` random features (what queries and keys read) then
    the one-hot vector of ``t``; ``W_value`` copies the one-hot part into the first ``T`` features
    of every head (``PROBE_PAD`` more stay 0), so output row ``i`` of head ``h`` is row ``i`` of
    that head's attention weights.
    """

    book: nn.Module
    x: torch.Tensor  # (1, T, d_in)
    weights: torch.Tensor  # (heads, T, T) the book's attention weights, float64
    scores: torch.Tensor  # (heads, T, T) queries @ keys.T, before scaling, float64
    d_in: int
    d_out: int
    heads: int


@functools.cache
def _book_side(multi_head: bool) -> tuple[list[_CaseReference], _Probe]:
    """The grid's references and the probe, with torch's defaults, once per process. A forked
    child inherits them from its parent, where no learner's code has run; the learner's module
    only ever gets copies of them."""
    with _book_settings(), torch.no_grad():
        return _references(multi_head), _probe(multi_head)


def _as_weights(output: torch.Tensor, heads: int) -> torch.Tensor:
    """The probe's output ``(1, T, heads * head_dim)`` as ``(heads, T, T)`` weights, float64
    (each head's first ``T`` features: its values are one-hot positions, then zeros)."""
    t = output.shape[1]
    per_head = output[0].detach().to(torch.float64).view(t, heads, -1)  # (T, heads, head_dim)
    return per_head[..., :t].transpose(0, 1)


def _probe(multi_head: bool) -> _Probe:
    heads, t, c = (NUM_HEADS if multi_head else 1), PROBE_TOKENS, PROBE_CONTENT
    width = t + PROBE_PAD  # each head's head_dim
    d_in, d_out = c + t, heads * width
    cfg = AttentionConfig(
        d_out=d_out, seed=0, context_length=CONTEXT_LENGTH, num_heads=heads, training=False
    )
    book = build_module(d_in, cfg)
    generator = private_generator(2024)
    with torch.no_grad():
        for layer in (book.W_query, book.W_key):
            weight = torch.zeros(d_out, d_in)
            for h in range(heads):  # each head reads the content features
                weight[h * width : h * width + c, :c] = 0.6 * torch.randn(c, c, generator=generator)
            layer.weight.copy_(weight)
        book.W_value.weight.zero_()
        for h in range(heads):  # each head's values: the token's one-hot position
            book.W_value.weight[h * width : h * width + t, c:] = torch.eye(t)
        if multi_head:
            book.out_proj.weight.copy_(torch.eye(d_out))
            book.out_proj.bias.zero_()
    content = torch.randn(1, t, c, generator=generator)
    x = torch.cat([content, torch.eye(t).unsqueeze(0)], dim=-1)  # (1, T, d_in)

    def split(layer: nn.Linear) -> torch.Tensor:  # (heads, T, head_dim), float64
        return (x[0].double() @ layer.weight.double().T).view(t, heads, width).transpose(0, 1)

    scores = split(book.W_query) @ split(book.W_key).transpose(1, 2)  # (heads, T, T)
    weights = _as_weights(_seeded_forward(book, x, 0), heads)
    return _Probe(book, x, weights, scores, d_in, d_out, heads)


# --- the learner's side -----------------------------------------------------------------------

Stage = Callable[[str], None]  # told "build" or "forward" before the class's code runs


@dataclass(frozen=True)
class _Run:
    """The learner's output on one case, and what differs from the book's (None: nothing)."""

    reference: _CaseReference
    output: Any  # a usable tensor, or None when the forward pass raised or gave no tensor
    what: str | None
    raised: bool = False

    @property
    def nan(self) -> bool:
        return self.output is not None and bool(torch.isnan(self.output).any())


def _run_case(module: nn.Module, reference: _CaseReference, multi_head: bool) -> _Run:
    case = reference.case
    try:
        problem = _copy_weights(reference.book, module, multi_head)
        if problem is not None:
            return _Run(reference, None, f"cannot take the book's weights: {problem}", True)
        module.train(case.training)
        output = _seeded_forward(module, reference.x, case.seed)
    except Exception as error:  # the learner's code
        return _Run(reference, None, f"forward raised {_error(error)}", True)
    what = _describe(output, reference.expected)
    usable = _unusable(output, reference.expected) is None
    return _Run(reference, output.detach() if usable else None, what)


def _error(error: BaseException) -> str:
    return f"{type(error).__name__}: {_short(str(error), 300)}"


def _check(cls: type, multi_head: bool, stage: Stage) -> CheckReport:
    """Every case of the grid, then the probe; the book's side first, with torch's defaults."""
    name = cls.__name__
    book_name = "MultiHeadAttention" if multi_head else "CausalAttention"
    references, probe = _book_side(multi_head)

    def failed(what: str) -> CheckReport:
        return CheckReport(name, book_name, False, len(references), Difference(None, what))

    modules: dict[float, nn.Module] = {}
    runs: list[_Run] = []
    leaked: tuple[int, ...] = ()
    for reference in references:
        case = reference.case
        if case.dropout not in modules:
            stage("build")
            try:
                modules[case.dropout] = _build(cls, multi_head, case.dropout)
                problem = _off_the_cpu(modules[case.dropout]) or _copy_weights(
                    reference.book, modules[case.dropout], multi_head
                )
            except Exception as error:  # the learner's constructor
                return failed(f"{name}(…) could not be built: {_error(error)}")
            if problem is not None:
                return failed(f"{name} cannot take the book's weights: {problem}.")
        stage("forward")
        module = modules[case.dropout]
        runs.append(_run_case(module, reference, multi_head))
        if not leaked and not case.training and case.num_tokens > 2 and not runs[-1].raised:
            leaked = _leak(
                lambda data, m=module, s=case.seed: _seeded_forward(m, data, s), reference.x
            )
    return _report(cls, multi_head, runs, probe, leaked, stage)


def _report(
    cls: type,
    multi_head: bool,
    runs: list[_Run],
    probe: _Probe,
    leaked: tuple[int, ...],
    stage: Stage,
) -> CheckReport:
    """Pass, or the first difference, the exact gallery matches and the behaviour found."""
    name = cls.__name__
    book_name = "MultiHeadAttention" if multi_head else "CausalAttention"
    differing = [run for run in runs if run.what is not None]
    if not differing:
        return CheckReport(name, book_name, True, len(runs), None)
    first = Difference(differing[0].reference.case, differing[0].what or "")
    names = list(runs[0].reference.gallery)
    matches = {n: sum(_same(r.output, r.reference.gallery[n]) for r in runs) for n in names}
    where_differs = {
        n: sum(_same(r.output, r.reference.gallery[n]) for r in differing) for n in names
    }
    exact = sorted(
        (n for n in names if where_differs[n] * 2 > len(differing)),
        key=lambda n: (-where_differs[n], -matches[n]),
    )
    stage("forward")
    findings = _weight_findings(_probe_weights(cls, multi_head, probe), probe, multi_head)
    findings += _grid_findings(runs)
    if leaked and not any(f.leak for f in findings):
        findings.append(_leak_finding(multi_head))
    likely = [*exact, *(bug for f in findings for bug in f.bugs)]
    return CheckReport(
        name,
        book_name,
        False,
        len(runs),
        first,
        tuple(dict.fromkeys(likely)),  # in order, each once
        bool(leaked),
        leaked,
        sum(run.raised for run in runs),
        tuple(Finding(f.saw, f.bugs, f.why) for f in findings),
    )


def _leak(forward: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> tuple[int, ...]:
    """The earlier tokens whose output moves when the last token changes (none for a causal layer)."""
    try:
        moved = earlier_outputs_moved(forward, x, x.shape[1] - 1)
        return tuple(int(i) for i in torch.nonzero(moved).flatten())
    except Exception:  # the forward pass raised or gave no usable tensor: reported already
        return ()


# --- bug families, by behaviour ---------------------------------------------------------------


@dataclass(frozen=True)
class _Found:
    """A finding while it is made: ``leak`` says it explains a future leak."""

    saw: str
    bugs: tuple[str, ...]
    why: str
    leak: bool = False

    @classmethod
    def of(cls, saw: str, bugs: Sequence[str], why: str, leak: bool = False) -> _Found:
        return cls(saw, tuple(bug for bug in bugs if bug in BUGS), why, leak)


def _probe_weights(cls: type, multi_head: bool, probe: _Probe) -> torch.Tensor | None:
    """The learner's attention weights ``(heads, T, T)`` on the probe (eval, no dropout), or None
    when its class cannot run at the probe's sizes or its output is not weights @ values (it
    must double with ``W_value`` and hold no negative weight)."""
    try:
        module = _construct(cls, multi_head, probe.d_in, probe.d_out, 0.0)
        if _copy_weights(probe.book, module, multi_head) is not None:
            return None
        module.eval()
        expected = probe.weights.new_empty((1, probe.x.shape[1], probe.d_out), dtype=torch.float32)
        output = _seeded_forward(module, probe.x, 0)
        if _unusable(output, expected) is not None:
            return None
        with torch.no_grad():
            value = module.W_value
            (value.weight if isinstance(value, nn.Linear) else value).mul_(2.0)
        doubled = _seeded_forward(module, probe.x, 0)
        if _unusable(doubled, expected) is not None or not torch.allclose(
            doubled, 2 * output, rtol=1e-4, atol=1e-6, equal_nan=True
        ):
            return None
        weights = _as_weights(output, probe.heads)
        return None if bool((weights < -ZERO).any()) else weights
    except Exception:  # the learner's code at other sizes: the grid has said what it can
        return None


def _weight_findings(weights: torch.Tensor | None, probe: _Probe, multi_head: bool) -> list[_Found]:
    """What the learner's attention weights show: where they sit, what rows sum to, temperature."""
    if weights is None or torch.allclose(weights, probe.weights, rtol=1e-3, atol=1e-5):
        return []
    t = weights.shape[-1]
    ones = torch.ones(t, t, dtype=torch.bool)
    nan_rows = torch.isnan(weights).all(dim=-1)  # (heads, T)
    w = torch.nan_to_num(weights, nan=0.0).abs()
    on_future = bool((w[:, ones.triu(1)] > ZERO).any())
    on_past = bool((w[:, ones.tril(-1)] > ZERO).any())
    if on_future and on_past:  # a softmax over every key (maybe at another temperature)?
        divisor = _fitted_divisor(weights, probe.scores, causal=False)
        if divisor is None:
            return [_no_mask(exact=False, multi_head=multi_head)]
        return [_no_mask(exact=True, multi_head=multi_head)] + _temperature_findings(
            divisor, probe, multi_head
        )
    if on_future:
        kept = w.diagonal(dim1=-2, dim2=-1)[~nan_rows]  # each token's weight on itself
        itself = "itself and " if bool((kept > ZERO).all()) else ""
        return [
            _Found.of(
                f"each token's weights sit on {itself}later tokens, never on earlier ones: "
                "the mask hides the past instead of the future",
                ("mask_inverted", "sdpa_bool_mask"),
                "mask_inverted flips the book's mask (~mask); sdpa_bool_mask gives SDPA the "
                "book's mask, which SDPA reads the other way round",
                leak=True,
            )
        ]
    found = []
    diagonal = w.diagonal(dim1=-2, dim2=-1)[:, 1:]  # (heads, T-1): the first row has only itself
    if bool(nan_rows[:, 0].any()) or bool((diagonal <= ZERO).all()):
        found.append(
            _Found.of(
                "no token gives weight to itself (the first token's row is NaN: it has "
                "nothing left to see)",
                ("mask_diagonal",),
                "mask_diagonal builds the mask with diagonal=0, which hides each token from "
                "itself too",
            )
        )
    rows = w[~nan_rows].sum(dim=-1)
    if not found and not torch.allclose(rows, torch.ones_like(rows), atol=1e-4):
        found.append(_row_sums(w, rows))
    divisor = None if found else _fitted_divisor(weights, probe.scores, causal=True)
    return found + _temperature_findings(divisor, probe, multi_head)


def _no_mask(exact: bool, multi_head: bool) -> _Found:
    if not exact and multi_head:
        return _Found.of(
            "tokens give weight to later tokens as well as earlier ones",
            ("heads_without_transpose", "mask_not_applied", "mask_after_softmax"),
            "heads split by view alone mix pieces of neighbouring tokens, so the causal mask "
            "hides the wrong things; a mask left out, or applied after the softmax, also lets "
            "later tokens in",
            leak=True,
        )
    saw = (
        "every token's weights are a softmax over all tokens, later ones included: "
        "attention without the causal mask"
        if exact
        else "tokens give weight to later tokens as well as earlier ones: the mask hides nothing, "
        "or not the future"
    )
    if "mask_not_applied" in BUGS:
        why = (
            "mask_not_applied registers the mask and never applies it; mask_after_softmax "
            "applies it too late, so every later token still counts in each row's softmax"
        )
    else:
        why = (
            "a mask registered but never applied does this; of the gallery's bugs "
            "mask_after_softmax is the closest: every later token still counts in each row's "
            "softmax"
        )
    return _Found.of(saw, ("mask_not_applied", "mask_after_softmax"), why, leak=True)


def _row_sums(w: torch.Tensor, rows: torch.Tensor) -> _Found:
    columns = w.sum(dim=-2)  # (heads, T)
    if torch.allclose(columns, torch.ones_like(columns), atol=1e-4):
        return _Found.of(
            "each column of the weights sums to 1, not each row",
            ("softmax_wrong_dim",),
            "softmax_wrong_dim takes softmax over dim=1, the queries, instead of the keys "
            "(dim=-1); the column sums let a later token change earlier outputs",
            leak=True,
        )
    return _Found.of(
        f"rows of the weights sum to {float(rows.min()):.3g} to {float(rows.max()):.3g}, not 1, "
        "though no weight sits on a later token",
        ("mask_after_softmax",),
        "mask_after_softmax zeroes the hidden weights after the softmax and does not "
        "renormalise (a later token still counts in the softmax denominator)",
        leak=True,
    )


SCALE_FORMULAS = {  # gallery bug -> what it divides the scores by
    "no_scaling": "1 (no scaling)",
    "wrong_scaling": "√d_in",
    "scale_by_d_k": "d_k",
    "scale_by_d_out": "√d_out",
}


def _temperature_findings(divisor: float | None, probe: _Probe, multi_head: bool) -> list[_Found]:
    """The softmax's temperature: the weights are softmax(scores / ``divisor``); which bugs
    divide by about that?"""
    head_dim = probe.d_out // probe.heads
    if divisor is None or abs(math.log(divisor / head_dim**0.5)) < 0.01:
        return []
    values = {
        "no_scaling": 1.0,
        "wrong_scaling": probe.d_in**0.5,
        "scale_by_d_k": float(head_dim),
        "scale_by_d_out": probe.d_out**0.5,
    }
    candidates = [
        n for n in values if n in BUGS and abs(math.log(values[n] / head_dim**0.5)) > 0.01
    ]  # √d_out is the book's √d_k with one head
    nearest = sorted(candidates, key=lambda n: abs(math.log(divisor / values[n])))[:2]
    sizes = f"d_in = {probe.d_in}, d_k = {head_dim}" + (
        f", d_out = {probe.d_out}" if multi_head else ""
    )
    return [
        _Found.of(
            f"the weights are a softmax of the scores divided by {divisor:.3g} "
            f"instead of √d_k = {head_dim**0.5:.3g} (measured with {sizes}): the softmax "
            f"is {'sharper' if divisor < head_dim**0.5 else 'flatter'} than the book's",
            nearest,
            "; ".join(f"{n} divides by {SCALE_FORMULAS[n]} = {values[n]:.3g}" for n in nearest),
        )
    ]


def _fitted_divisor(weights: torch.Tensor, scores: torch.Tensor, causal: bool) -> float | None:
    """``D`` with ``log w = scores / D + c`` on each row's visible keys (least squares): all
    keys, or with ``causal`` the token and those before it. None when the weights are not such a
    softmax (weight on a hidden key, or a fit off by more than float32 rounding)."""
    t = weights.shape[-1]
    visible = torch.ones(t, t, dtype=torch.bool)
    visible = visible.tril() if causal else visible
    if bool((weights[:, ~visible] != 0).any()) or not bool(torch.isfinite(weights).all()):
        return None
    logs, centred = [], []
    for i in range(t):
        keys = i + 1 if causal else t
        if keys < 2:
            continue
        w, s = weights[:, i, :keys], scores[:, i, :keys]  # (heads, keys)
        if bool((w <= 0).any()):
            return None
        logs.append(w.log() - w.log().mean(dim=-1, keepdim=True))
        centred.append(s - s.mean(dim=-1, keepdim=True))
    y, z = torch.cat(logs, dim=-1), torch.cat(centred, dim=-1)
    slope = float((y * z).sum() / (z * z).sum())
    if slope <= 0 or float((y - slope * z).abs().max()) > 1e-3:
        return None
    return 1.0 / slope


def _grid_findings(runs: list[_Run]) -> list[_Found]:
    """What the grid shows about dropout: NaN only while it drops, eval mode still dropping, or
    only training with dropout differing (by how much)."""

    def differ(keep: Callable[[Case], bool]) -> bool:
        return any(run.what is not None for run in runs if keep(run.reference.case))

    dropping = [run for run in runs if run.reference.case.training and run.reference.case.dropout]
    nan = [run for run in runs if run.nan]
    without = differ(lambda c: c.dropout == 0)
    if nan and all(run in dropping for run in nan):
        return [
            _Found.of(
                f"NaN appears only in training mode with dropout ({len(nan)} of {len(dropping)} "
                "such cases), never in eval mode or without dropout",
                ("dropout_before_softmax",),
                "a dropped −∞ score gives −∞ × 0 = NaN: dropout acts before the softmax, on the "
                "masked scores; dropout_before_softmax is the gallery's dropout on the scores",
            )
        ]
    if without or nan:
        return []
    eval_dropout = differ(lambda c: not c.training and c.dropout > 0)
    if eval_dropout and not differ(lambda c: c.training):
        return [
            _Found.of(
                "in eval mode with dropout 0.5 the outputs differ from those without dropout "
                "(the book's), while training mode matches",
                ("dropout_in_eval", "sdpa_dropout_in_eval"),
                "model.eval() must switch dropout off; both of these keep dropping in eval mode",
            )
        ]
    if eval_dropout or not differ(lambda c: c.training and c.dropout > 0):
        return []
    ratio = _size_ratio(dropping)
    bugs = ("dropout_unscaled", "dropout_before_softmax")
    return [
        _Found.of(
            "only training mode with dropout differs (eval mode and dropout 0 match the book); "
            f"the outputs are {ratio:.2f} times the book's in size",
            bugs if abs(ratio - 0.5) < 0.15 else bugs[::-1],
            "dropout_unscaled keeps the kept weights without 1/(1−p), half the book's size at "
            "p = 0.5; dropout_before_softmax drops scores instead of weights",
        )
    ]


def _size_ratio(runs: list[_Run]) -> float:
    """How large the learner's outputs are next to the book's (least squares factor)."""
    pairs = [(run.output, run.reference.expected) for run in runs if run.output is not None]
    if not pairs:
        return float("nan")
    dot = sum(float((out * exp).sum()) for out, exp in pairs)
    norm = sum(float((exp * exp).sum()) for _, exp in pairs)
    return dot / norm if norm else float("nan")


def _leak_finding(multi_head: bool) -> _Found:
    leaking = [b.name for b in BUGS.values() if b.future_leak and b.multi_head == multi_head]
    return _Found.of(
        "a later token changes earlier outputs, and the weights the probe read do not say how",
        leaking[:2],
        "these gallery bugs let a later token change earlier outputs",
        leak=True,
    )


# --- running the check: in a child process with a time limit ------------------------------------


def check_attention(
    target: Any,
    *,
    multi_head: bool | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    isolated: bool = True,
) -> CheckReport:
    """Compare a learner's class with the book's ``CausalAttention`` (or ``MultiHeadAttention``).

    ``target`` is the class, or ``"path/to/file.py:ClassName"`` (imported as Python imports a
    file: its folder on ``sys.path``, its module in ``sys.modules``). The class takes the book's
    arguments, ``(d_in, d_out, context_length, dropout, qkv_bias=False)``, with ``num_heads``
    before ``qkv_bias`` for multi-head; ``multi_head=None`` decides by whether the constructor has
    a ``num_heads`` parameter.

    The class runs in a child process given ``timeout`` seconds in all: an exit, a crash or a
    hang is a failed report that says so, and the caller's torch settings stay as they were.
    ``isolated=False`` runs it in this process instead (so does a class object where processes
    cannot be forked, i.e. off Linux), without a time limit, every torch global put back after.

    Raises :class:`AttentionInputError` for a target that is not an ``nn.Module`` class or
    ``FILE.py:ClassName``, a file that fails to import or lacks the class, and a bad
    ``timeout``; everything the class itself does wrong is in the report.
    """
    if isinstance(timeout, bool) or not isinstance(timeout, int | float):
        raise AttentionInputError(
            f"timeout must be a number of seconds; got {type(timeout).__name__}.", field="timeout"
        )
    if not (0 < timeout <= MAX_TIMEOUT):  # also NaN
        raise AttentionInputError(
            f"timeout must be between 0 and {MAX_TIMEOUT:g} seconds; got {timeout!r}.",
            field="timeout",
        )
    if isinstance(target, str | os.PathLike):
        _parse_target(os.fspath(target))  # a malformed target or missing file: no process
        target = os.fspath(target)
    elif not isinstance(target, type) or not issubclass(target, nn.Module):
        raise AttentionInputError(
            f"check_attention needs a class derived from torch.nn.Module, such as the book's "
            f"CausalAttention, or 'FILE.py:ClassName'; got {reprlib.repr(target)}.",
            field="cls",
        )
    if not isolated or (isinstance(target, type) and not FORK):
        with _restored_globals():
            return _run_check(target, multi_head, lambda _stage: None)
    return _in_child(target, multi_head, float(timeout))


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _short_path(text: str, limit: int = 80) -> str:
    """A long path keeps its end, where the file's name is: ``…/folder/my_attention.py``."""
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def _run_check(target: type | str, multi_head: bool | None, stage: Stage) -> CheckReport:
    """Load the class if ``target`` names a file, then check it (wherever this runs)."""
    before = _global_settings()
    torch.set_num_threads(1)  # tiny tensors: one thread is fastest (benchmarks/README.md)
    if isinstance(target, str):
        stage("import")
        target = load_class(target)
    if multi_head is None:
        multi_head = _is_multi_head(target)
    report = _check(target, multi_head, stage)
    return replace(report, notes=report.notes + _changed_settings(before))


class _Log:
    """The child's side of the result file: one JSON line per stage, then the report."""

    def __init__(self, path: str) -> None:
        self.path, self.stage = path, "start"

    def write(self, **record: Any) -> None:
        with open(self.path, "a", encoding="utf-8") as file:
            file.write(json.dumps(record) + "\n")

    def enter(self, stage: str) -> None:
        if stage != self.stage:
            self.stage = stage
            self.write(stage=stage)


def _child(target: type | str, multi_head: bool | None, path: str) -> None:
    """The checking process: Ctrl-C is the parent's to handle; it ends with ``os._exit``, so no
    handler the class left behind runs (its exit code is the parent's signal of a clean end)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    log = _Log(path)
    try:
        report = _run_check(target, multi_head, log.enter)
        log.write(report=report.to_json())
    except AttentionInputError as error:
        log.write(input_error=str(error))
    except SystemExit as error:  # sys.exit() in the class's file, __init__ or forward
        code = error.code if error.code is None or isinstance(error.code, int) else str(error.code)
        log.write(exit=code if not isinstance(code, str) else _short(code), at=log.stage)
    except BaseException as error:  # the checker's own failure, said in words all the same
        log.write(crash=_error(error), at=log.stage)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0)


@contextlib.contextmanager
def _no_main_script(*, spawned: bool) -> Iterator[None]:
    """Start a ``spawn`` child without running this process's main script in it.

    ``spawn`` runs the parent's ``__main__`` file again in the child unless it is a module run
    with ``-m``. That file may be anything: a notebook kernel, a Streamlit script (an
    ``AppTest`` makes its script ``__main__``), the learner's own program. The child needs none
    of it, so while it starts, ``__main__`` is a bare module with no file.
    """
    main = sys.modules.get("__main__")
    if not spawned or main is None or getattr(main, "__file__", None) is None:
        yield
        return
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def _in_child(target: type | str, multi_head: bool | None, timeout: float) -> CheckReport:
    if FORK:  # computed here once; the child inherits them
        if isinstance(target, type) and multi_head is None:
            _book_side(_is_multi_head(target))
        else:
            _book_side(bool(multi_head))
    context = multiprocessing.get_context("fork" if FORK else "spawn")
    handle, path = tempfile.mkstemp(prefix="attention-check-", suffix=".jsonl")
    os.close(handle)
    process = context.Process(
        target=_child, args=(target, multi_head, path), name="attention-check", daemon=True
    )
    try:
        with _no_main_script(spawned=not FORK), _ctrl_c_noted() as interrupted:
            process.start()
            _wait(process, timeout, interrupted)
        timed_out = process.is_alive()
        if timed_out:
            process.kill()
            process.join()
    except BaseException:  # Ctrl-C while waiting: the child goes too
        if process.is_alive():
            process.kill()
            process.join()
        raise
    finally:
        records = _read_records(path)
        os.unlink(path)
    return _child_report(target, multi_head, records, timed_out, timeout, process.exitcode)


@contextlib.contextmanager
def _ctrl_c_noted() -> Iterator[list[bool]]:
    """While the check waits, Ctrl-C is also written down, not only raised.

    Python raises ``KeyboardInterrupt`` wherever the main thread happens to be when the signal
    arrives; if that is a finalizer (a ``__del__`` or a ``weakref`` callback run by the garbage
    collector), the exception is printed as "ignored" and lost, and the check would wait out its
    whole time limit. The list this yields turns ``[True]`` on Ctrl-C, so :func:`_wait` raises
    it again. Only the main thread can set a handler, and only the default one is replaced (an
    ignored Ctrl-C stays ignored).
    """
    noted = [False]
    default = signal.default_int_handler

    def note(signum: int, frame: Any) -> None:
        noted[0] = True
        default(signum, frame)

    ours = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is default
    )
    if ours:
        signal.signal(signal.SIGINT, note)
    try:
        yield noted
    finally:
        if ours:
            signal.signal(signal.SIGINT, default)


def _wait(process: multiprocessing.process.BaseProcess, timeout: float, noted: list[bool]) -> None:
    """Join ``process`` for at most ``timeout`` seconds, in slices that look at ``noted``."""
    deadline = time.monotonic() + timeout
    while process.is_alive() and not noted[0]:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        process.join(min(left, 0.25))
    if noted[0]:  # a Ctrl-C whose KeyboardInterrupt was lost
        raise KeyboardInterrupt


def _read_records(path: str) -> list[dict[str, Any]]:
    records = []
    with open(path, encoding="utf-8") as file:
        for line in file:
            try:
                records.append(json.loads(line))
            except ValueError:  # a line cut short by a kill
                break
    return records


def _child_report(
    target: type | str,
    multi_head: bool | None,
    records: list[dict[str, Any]],
    timed_out: bool,
    timeout: float,
    exitcode: int | None,
) -> CheckReport:
    """The child's report, or a failed one that says how the child ended."""
    last = records[-1] if records else {}
    if "report" in last:
        return CheckReport.from_json(last["report"])
    if "input_error" in last:
        raise AttentionInputError(last["input_error"], field="target")
    name = target.__name__ if isinstance(target, type) else target.rpartition(":")[2]
    stages = [r["stage"] for r in records if "stage" in r]
    stage = last.get("at") or (stages[-1] if stages else "start")
    file = target.rpartition(":")[0] if isinstance(target, str) else name
    where = {
        "import": f"while importing {file}",
        "build": f"in {name}.__init__",
        "forward": f"in {name}.forward",
    }.get(stage, "while the checker ran")
    if timed_out:
        what = (
            f"{name} did not finish in {timeout:g} s (stopped {where}): look for a loop that "
            "never ends, a sleep or an input(); give it longer with --timeout SECONDS "
            "(timeout= in check_attention)"
        )
    elif "exit" in last:
        code = "" if last["exit"] is None else repr(last["exit"])
        what = (
            f"sys.exit({code}) was called {where}: the program ends there, so the check could "
            "not finish. A layer must not end the program; raise an exception instead"
        )
    elif "crash" in last:
        what = f"the checker failed {where}: {last['crash']}"
    else:
        ended = f"ended with exit code {exitcode}"
        if exitcode is not None and exitcode < 0:
            with contextlib.suppress(ValueError):
                ended = f"was killed by signal {signal.Signals(-exitcode).name}"
        what = (
            f"the process running {name} {ended} {where}, before the check finished "
            "(os._exit, or a crash in native code): a layer must not end the program"
        )
    book = "MultiHeadAttention" if multi_head else "CausalAttention"
    return CheckReport(name, book, False, len(_grid()), Difference(None, what))


def _parse_target(target: str) -> tuple[Path, str]:
    path_text, _, class_name = target.rpartition(":")
    if not path_text or not class_name:
        raise AttentionInputError(
            f"Expected FILE.py:ClassName, e.g. my_attention.py:MyCausalAttention; got "
            f"{reprlib.repr(target)}.",
            field="target",
        )
    path = Path(path_text)
    if not path.is_file():
        raise AttentionInputError(f"No such file: {_short_path(path_text)}.", field="target")
    return path, class_name


def load_class(target: str) -> type:
    """The class named by ``"path/to/file.py:ClassName"``, imported as Python imports a file.

    Runs the file in this process: its folder goes first on ``sys.path`` (it may import a module
    beside it) and its module is in ``sys.modules`` under the file's name before it runs (so
    ``@dataclass`` and ``from __future__ import annotations`` work). Raises
    :class:`AttentionInputError` with a plain message for a malformed target, a missing file, a
    file that fails to import (its error named) or a missing class.
    """
    path, class_name = _parse_target(target)
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name = path.stem if path.stem not in sys.modules else f"_checked_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise AttentionInputError(f"Cannot import {path} as Python.", field="target")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # the learner's file
        del sys.modules[module_name]
        raise AttentionInputError(
            f"Importing {path} raised {type(error).__name__}: {_short(str(error), 300)}",
            field="target",
        ) from None
    found = getattr(module, class_name, None)
    if not isinstance(found, type):
        classes = sorted(
            n for n, v in vars(module).items() if isinstance(v, type) and v.__module__ == spec.name
        )
        raise AttentionInputError(
            f"{path} has no {class_name}"
            + (f"; its classes: {', '.join(classes)}." if classes else "."),
            field="target",
        )
    return found


def main(argv: Sequence[str]) -> int:
    """``python -m attention check FILE.py:ClassName``: print the report; 0 pass, 1 fail, 2 usage."""
    parser = argparse.ArgumentParser(
        prog="python -m attention check",
        description="Compare your attention class with the book's, by behaviour, and name "
        "likely bugs. Your class takes the book's constructor arguments and runs in a separate "
        "process with a time limit.",
    )
    parser.add_argument("target", help="FILE.py:ClassName, e.g. my_attention.py:MyCausalAttention")
    parser.add_argument(
        "--multi-head",
        action="store_true",
        default=None,
        help="compare with MultiHeadAttention (default: when the constructor has num_heads)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"stop your class after this long (default {DEFAULT_TIMEOUT:g})",
    )
    args = parser.parse_args(argv)  # exits with status 2 on malformed options
    try:
        report = check_attention(args.target, multi_head=args.multi_head, timeout=args.timeout)
    except AttentionInputError as error:
        sys.stderr.write(f"error: {error}\n")
        return 2
    sys.stdout.write(f"{report}\n")
    return 0 if report.passed else 1
