"""Check a learner's attention class against the book's, by behaviour, and name likely bugs.

::

    from attention.check import check_attention
    report = check_attention(MyCausalAttention)   # or "my_attention.py:MyCausalAttention"
    report.passed, report.first_difference, report.findings, report.likely_bugs
    print(report)            # what to look at, in plain words

The source is never read. On a small grid of cases (batch 1 and 2, several token counts,
dropout 0 and 0.5, training and eval mode, several seeds) the book's weights are copied into the
learner's module by the book's names and both run right after ``torch.manual_seed(seed)``, so a
class that calls dropout as the book does draws the same masks. Gallery bugs
(:mod:`attention.bugs`) that reproduce the learner's outputs are the likely bugs (the KV-cache slip
cannot show on a full pass: :attr:`CheckReport.unchecked`). A *probe* with one-hot values makes
the output equal the attention weights, which name bugs written another way (:class:`Finding`).

The class runs in a process of its own with a time limit (:mod:`attention.check_process`,
:mod:`attention.check_harness`): it only makes the calls sent to it and sends back numbers; the
verdict is decided here, so nothing the class writes can say "passed". The app never runs a
learner's class.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import inspect
import json
import math
import os
import reprlib
import secrets
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
import torch.nn as nn

from . import check_harness
from .bugs import BUGS
from .check_harness import construct, copy_weights, seeded_forward, shortened
from .check_process import CAN_FORK, Finished, printable, run_file, run_forked
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

DEFAULT_TIMEOUT = 60.0  # seconds for the class: its file's import, building, every forward pass
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
    printed: str = ""  # what the class printed (bounded, control characters as escapes)

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
        if self.printed:
            notes.append(f"What {self.class_name} printed:\n{self.printed}")
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


# --- torch's global settings: guarded for the book's side, restored after a class ran here ---


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
    """torch's defaults for the book's side (float32 on the CPU), whatever was set before, on
    one thread: its tensors are tiny, and idle threads waiting for work would cost more."""
    with _restored_globals():
        torch.set_num_threads(1)
        torch.set_default_dtype(torch.float32)
        if torch.get_default_device() != torch.device("cpu"):
            torch.set_default_device(None)
        torch.use_deterministic_algorithms(False)
        torch.set_anomaly_enabled(False)
        yield


def _settings_note(changed: list[str]) -> tuple[str, ...]:
    if not changed:
        return ()
    return (
        f"the class changed torch's global settings ({'; '.join(changed)}). A layer should "
        "leave them alone: they change everything that runs after it. The checker computed "
        "the book's side with torch's defaults.",
    )


# --- the book's side: references, gallery outputs and the probe -------------------------------


def _is_multi_head(cls: type) -> bool:
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False
    return "num_heads" in parameters


def _arguments(multi_head: bool, dropout: float) -> dict[str, Any]:
    """The book's constructor arguments for the grid, as the harness builds a class."""
    d_out = MULTI_HEAD_D_OUT if multi_head else D_OUT
    return {
        "d_in": D_IN,
        "d_out": d_out,
        "context_length": CONTEXT_LENGTH,
        "dropout": dropout,
        "num_heads": NUM_HEADS,
    }


def _book_module(multi_head: bool, dropout: float, seed: int, draw: int) -> nn.Module:
    """The book's class, its weights drawn from a private generator seeded by the check's
    ``draw`` and the case's seed."""
    cfg = AttentionConfig(
        d_out=MULTI_HEAD_D_OUT if multi_head else D_OUT,
        dropout=dropout,
        seed=seed,
        context_length=CONTEXT_LENGTH,
        num_heads=NUM_HEADS if multi_head else 1,
    )
    return build_module(D_IN, cfg, generator=private_generator(draw * 16 + seed))


def _weights(book: nn.Module, multi_head: bool, double_values: bool = False) -> dict[str, Any]:
    """The book's layers by the book's names, as the harness copies them into a module."""
    names = BOOK_NAMES + (("out_proj",) if multi_head else ())
    weights = {}
    for name in names:
        layer: nn.Linear = getattr(book, name)
        weight = layer.weight.detach().clone()
        if double_values and name == "W_value":
            weight = 2.0 * weight
        bias = None if layer.bias is None else layer.bias.detach().clone()
        weights[name] = {"weight": weight, "bias": bias}
    return weights


def _inputs(case: Case, draw: int) -> torch.Tensor:
    generator = private_generator(draw * 16 + 1000 + case.seed)
    shape = (case.batch, case.num_tokens, D_IN)
    return torch.randn(shape, generator=generator, dtype=torch.float32)  # (b, T, d_in)


def _changed(x: torch.Tensor) -> torch.Tensor:
    """``x`` with its last token replaced (:func:`attention.bugs.earlier_outputs_moved`'s way)."""
    changed = x.clone()
    changed[:, -1] = 1.0 - 2.0 * x[:, -1]
    return changed


def _describe(output: torch.Tensor, expected: torch.Tensor) -> str | None:
    """What differs between the learner's usable output and the book's, or None."""
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


def _same(a: torch.Tensor | None, b: torch.Tensor) -> bool:
    return a is not None and torch.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True)


@dataclass(frozen=True)
class _CaseReference:
    """One case: the book's module (whose weights the learner's gets), input, output, and the
    output of every gallery bug of this kind."""

    case: Case
    book: nn.Module
    x: torch.Tensor  # (b, T, d_in)
    expected: torch.Tensor  # (b, T, d_out)
    gallery: dict[str, torch.Tensor]


def _references(multi_head: bool, draw: int) -> list[_CaseReference]:
    gallery = [  # a KV-cache bug is the book's on a full pass: see CheckReport.unchecked
        bug for bug in BUGS.values() if bug.multi_head == multi_head and not bug.cached
    ]
    variants: dict[float, list[nn.Module]] = {}
    references = []
    for case in _grid():
        book = _book_module(multi_head, case.dropout, case.seed, draw)
        book.train(case.training)
        x = _inputs(case, draw)
        if case.dropout not in variants:
            arguments = _arguments(multi_head, case.dropout)
            variants[case.dropout] = [construct(bug.cls, arguments, multi_head) for bug in gallery]
        outputs = {}
        weights = _weights(book, multi_head)
        for bug, variant in zip(gallery, variants[case.dropout], strict=True):
            copy_weights(weights, variant)
            variant.train(case.training)
            outputs[bug.name] = seeded_forward(variant, x, case.seed)
        expected = seeded_forward(book, x, case.seed)
        references.append(_CaseReference(case, book, x, expected, outputs))
    return references


@dataclass(frozen=True)
class _Probe:
    """A layer whose output is its attention weights: each token's input is ``PROBE_CONTENT`` random
    features and its one-hot position, which ``W_value`` copies into every head, and ``out_proj``
    is the identity.
    """

    book: nn.Module
    x: torch.Tensor  # (1, T, d_in)
    weights: torch.Tensor  # (heads, T, T) the book's attention weights, float64
    scores: torch.Tensor  # (heads, T, T) queries @ keys.T, before scaling, float64
    d_in: int
    d_out: int
    heads: int


def _book_side(multi_head: bool, draw: int) -> tuple[list[_CaseReference], _Probe]:
    """The grid's references and the probe, with torch's defaults, in this process."""
    with _book_settings(), torch.no_grad():
        return _references(multi_head, draw), _probe(multi_head)


_fixed_book_side = functools.cache(_book_side)  # the in-process check's: draw 0, once


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
    weights = _as_weights(seeded_forward(book, x, 0), heads)
    return _Probe(book, x, weights, scores, d_in, d_out, heads)


# --- the calls the harness makes, and what came back -------------------------------------------


@dataclass(frozen=True)
class _Plan:
    """Every call the learner's class gets, for one kind (one head or several): builds 0 (dropout
    0), 1 (dropout 0.5) and 2 (the probe's sizes); calls: the grid, each eval case without
    dropout with its last token changed, the probe, and the probe with ``W_value`` doubled.
    """

    multi_head: bool
    references: list[_CaseReference]
    probe: _Probe
    leak_calls: dict[int, int]  # grid call -> its changed-input call
    probe_call: int
    request: dict[str, Any]  # builds and calls, as the harness reads them

    @property
    def calls(self) -> int:
        return len(self.request["calls"])


def _plan(multi_head: bool, draw: int | None) -> _Plan:
    """``draw`` None: the in-process check's fixed draw, computed once; else drawn afresh."""
    references, probe = (
        _fixed_book_side(multi_head, 0) if draw is None else _book_side(multi_head, draw)
    )
    builds = [_arguments(multi_head, 0.0), _arguments(multi_head, 0.5)]
    builds.append({**builds[0], "d_in": probe.d_in, "d_out": probe.d_out})
    calls = [
        {
            "build": 0 if ref.case.dropout == 0 else 1,
            "weights": _weights(ref.book, multi_head),
            "training": ref.case.training,
            "x": ref.x,
            "seed": ref.case.seed,
        }
        for ref in references
    ]
    leak_calls = {}
    for index, ref in enumerate(references):
        if not ref.case.training and ref.case.dropout == 0 and ref.case.num_tokens > 2:
            leak_calls[index] = len(calls)
            calls.append({**calls[index], "x": _changed(ref.x)})
    probe_call = len(calls)
    for doubled in (False, True):
        weights = _weights(probe.book, multi_head, double_values=doubled)
        calls.append({"build": 2, "weights": weights, "training": False, "x": probe.x, "seed": 0})
    request = {"builds": builds, "calls": calls}
    return _Plan(multi_head, references, probe, leak_calls, probe_call, request)


class _Tampered(Exception):
    """The result pipe held what the harness does not write: the class wrote there."""


@dataclass
class _Results:
    """The records of one run, checked line by line."""

    kind: str | None = None
    builds: dict[int, dict[str, Any]] = field(default_factory=dict)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    stages: list[str] = field(default_factory=list)
    end: dict[str, Any] = field(default_factory=dict)  # done, exit, crash or load_error
    tampered: bool = False


def _collect(lines: list[bytes], calls: dict[str, int]) -> _Results:
    """Parse the harness's records; anything it does not write, a record twice, or a record after
    the last, marks the run tampered with. ``calls`` is each kind's number of calls."""
    results = _Results()
    try:
        for line in lines:
            record = json.loads(line)
            if not isinstance(record, dict) or results.end:
                raise _Tampered
            _take(record, results, calls)
    except (_Tampered, ValueError, TypeError, KeyError, RecursionError):
        results.tampered = True
    return results


def _take(record: dict[str, Any], results: _Results, calls: dict[str, int]) -> None:
    if "stage" in record:
        if record["stage"] not in ("import", "build", "forward"):
            raise _Tampered
        results.stages.append(record["stage"])
    elif "kind" in record:
        if results.kind is not None or record["kind"] not in calls:
            raise _Tampered
        results.kind = record["kind"]
    elif "build" in record or "call" in record:
        key = "build" if "build" in record else "call"
        index, limit = record[key], 3 if key == "build" else calls.get(results.kind or "", 0)
        store = results.builds if key == "build" else results.calls
        if type(index) is not int or not 0 <= index < limit or index in store:
            raise _Tampered
        store[index] = record
    elif {"done", "exit", "crash", "load_error"} & set(record):
        results.end = record
    else:
        raise _Tampered


def _text(value: Any, limit: int = 300) -> str:
    """A string the class's process sent, made safe to print and short."""
    return shortened(printable(str(value).encode("utf-8", "backslashreplace")), limit)


def _output(record: dict[str, Any], expected: torch.Tensor) -> tuple[torch.Tensor | None, str]:
    """The output a call sent, as a float32 tensor of ``expected``'s shape; or None and why not."""
    out = record["output"]
    if not isinstance(out, dict) or out.get("kind") not in ("object", "subclass", "tensor"):
        raise _Tampered
    if out["kind"] == "object":
        return None, f"the output is a {_text(out['type'], 80)}, expected a tensor"
    if out["kind"] == "subclass":
        return None, (
            f"the output is a {_text(out['type'], 80)} (a tensor subclass); return a plain tensor"
        )
    if out["device"] != "cpu":
        return None, (
            f"the output is on device '{_text(out['device'], 40)}', expected 'cpu' "
            "(the input's device)"
        )
    if out["dtype"] != "torch.float32":
        return None, (
            f"the output has dtype {_text(out['dtype'], 40)}, expected torch.float32 "
            "(the input's dtype)"
        )
    shape = out["shape"]
    if not isinstance(shape, list) or any(type(n) is not int for n in shape):
        raise _Tampered
    if tuple(shape) != tuple(expected.shape):
        return None, f"the output has shape {tuple(shape)}, expected {tuple(expected.shape)}"
    values = out.get("values")
    if not isinstance(values, list) or len(values) != expected.numel():
        raise _Tampered
    if any(type(v) not in (float, int) for v in values):
        raise _Tampered
    return torch.tensor(values, dtype=torch.float32).reshape(expected.shape), ""


# --- the verdict, decided here from the numbers that came back ---------------------------------


@dataclass(frozen=True)
class _Run:
    """The learner's output on one case, and what differs from the book's (None: nothing)."""

    reference: _CaseReference
    output: torch.Tensor | None  # a usable tensor, or None when it raised or gave no tensor
    what: str | None
    raised: bool = False

    @property
    def nan(self) -> bool:
        return self.output is not None and bool(torch.isnan(self.output).any())


def _call_result(
    record: dict[str, Any] | None, expected: torch.Tensor
) -> tuple[torch.Tensor | None, str | None, bool]:
    """(output or None, what differs or None, raised) of one call's record."""
    if record is None:
        return None, "no output came back", True
    if "weights" in record:
        return None, f"cannot take the book's weights: {_text(record['weights'])}", True
    if "raised" in record:
        return None, f"forward raised {_text(record['raised'], 400)}", True
    output, problem = _output(record, expected)
    if output is None:
        return None, problem, False
    return output, _describe(output, expected), False


def _judge(name: str, plan: _Plan, results: _Results) -> CheckReport:
    """Pass, or the first difference, the exact gallery matches and the behaviour found."""
    book_name = "MultiHeadAttention" if plan.multi_head else "CausalAttention"
    references = plan.references
    notes = _settings_note([_text(c, 200) for c in results.end.get("changed", [])][:8])

    def failed(what: str) -> CheckReport:
        return CheckReport(
            name, book_name, False, len(references), Difference(None, what), notes=notes
        )

    for index in (0, 1):  # the grid's two modules: built, on the CPU, taking the weights
        build = results.builds.get(index)
        if build is None:
            raise _Tampered
        if "error" in build:
            if build.get("device"):
                return failed(f"{name} cannot take the book's weights: {_text(build['error'])}")
            return failed(f"{name}(…) could not be built: {_text(build['error'], 400)}")
        first = next(i for i, ref in enumerate(references) if (ref.case.dropout > 0) == index)
        if "weights" in results.calls.get(first, {}):
            return failed(
                f"{name} cannot take the book's weights: {_text(results.calls[first]['weights'])}"
            )
    runs = []
    for index, ref in enumerate(references):
        output, what, raised = _call_result(results.calls.get(index), ref.expected)
        runs.append(_Run(ref, output, what, raised))
    differing = [run for run in runs if run.what is not None]
    if not differing:
        return CheckReport(name, book_name, True, len(runs), None, notes=notes)
    leaked = _leaked(plan, results, runs)
    first = Difference(differing[0].reference.case, differing[0].what or "")
    names = list(references[0].gallery)
    matches = {n: sum(_same(r.output, r.reference.gallery[n]) for r in runs) for n in names}
    where_differs = {
        n: sum(_same(r.output, r.reference.gallery[n]) for r in differing) for n in names
    }
    exact = sorted(
        (n for n in names if where_differs[n] * 2 > len(differing)),
        key=lambda n: (-where_differs[n], -matches[n]),
    )
    probe = plan.probe
    findings = _weight_findings(_probe_weights(plan, results), probe, plan.multi_head)
    findings += _grid_findings(runs)
    if leaked and not any(f.leak for f in findings):
        findings.append(_leak_finding(plan.multi_head))
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
        notes,
    )


def _leaked(plan: _Plan, results: _Results, runs: list[_Run]) -> tuple[int, ...]:
    """The earlier tokens whose output moved when the last token changed, on the first eval
    case without dropout that gave outputs both times (none for a causal layer)."""
    for index, changed in plan.leak_calls.items():
        before = runs[index].output
        record = results.calls.get(changed)
        if before is None or record is None or "output" not in record:
            continue
        after, _ = _output(record, before)
        if after is None:
            continue
        position = before.shape[1] - 1
        same = torch.isclose(
            before[:, :position], after[:, :position], rtol=1e-4, atol=1e-6, equal_nan=True
        )
        moved = ~same.all(dim=-1).all(dim=0)  # (position,)
        return tuple(int(i) for i in torch.nonzero(moved).flatten())
    return ()


def _probe_weights(plan: _Plan, results: _Results) -> torch.Tensor | None:
    """The learner's attention weights ``(heads, T, T)`` on the probe (eval, no dropout), or None
    when its class cannot run at the probe's sizes or its output is not weights @ values (it
    must double with ``W_value`` and hold no negative weight)."""
    probe = plan.probe
    expected = torch.empty((1, probe.x.shape[1], probe.d_out), dtype=torch.float32)
    outputs = []
    for index in (plan.probe_call, plan.probe_call + 1):
        record = results.calls.get(index)
        if record is None or "output" not in record:
            return None
        output, _ = _output(record, expected)
        if output is None:
            return None
        outputs.append(output)
    output, doubled = outputs
    if not torch.allclose(doubled, 2 * output, rtol=1e-4, atol=1e-6, equal_nan=True):
        return None
    weights = _as_weights(output, probe.heads)
    return None if bool((weights < -ZERO).any()) else weights


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
    why = (
        "mask_not_applied registers the mask and never applies it; mask_after_softmax "
        "applies it too late, so every later token still counts in each row's softmax"
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
    # √d_out is the book's √d_k with one head
    candidates = [n for n in values if abs(math.log(values[n] / head_dim**0.5)) > 0.01]
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


# --- running the check: the class in a process of its own, the verdict here -------------------


def check_attention(
    target: Any,
    *,
    multi_head: bool | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    isolated: bool = True,
) -> CheckReport:
    """Compare a learner's class with the book's ``CausalAttention`` (or ``MultiHeadAttention``).

    ``target``: the class, or ``"path/to/file.py:ClassName"``; it takes the book's arguments
    (``num_heads`` before ``qkv_bias`` for multi-head; ``multi_head=None`` decides by whether the
    constructor has ``num_heads``). A file runs in a fresh interpreter (``python -I``), a class
    object in a forked copy of this process, each killed with its children when the check returns or
    ``timeout`` seconds after it is ready; an exit, a crash or a hang is a failed report.
    ``isolated=False`` runs the class in this process, without a time limit.

    Raises :class:`AttentionInputError` for a bad target, a file that fails to import or lacks the
    class, and a bad ``timeout``; what the class itself does wrong is in the report.
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
        target = os.fspath(target)
        _parse_target(target)  # a malformed target or missing file: no process
    elif not isinstance(target, type) or not issubclass(target, nn.Module):
        raise AttentionInputError(
            f"check_attention needs a class derived from torch.nn.Module, such as the book's "
            f"CausalAttention, or 'FILE.py:ClassName'; got {reprlib.repr(target)}.",
            field="cls",
        )
    if multi_head is None and isinstance(target, type):
        multi_head = _is_multi_head(target)
    if not isolated or (isinstance(target, type) and not CAN_FORK):
        return _in_this_process(target, multi_head)
    return _isolated(target, multi_head, float(timeout))


def _plans(multi_head: bool | None, draw: int | None) -> tuple[dict[str, _Plan], dict[str, Any]]:
    """The plan of each kind the class may be, and the request the harness reads."""
    kinds = (False, True) if multi_head is None else (multi_head,)
    plans = {("multi" if kind else "single"): _plan(kind, draw) for kind in kinds}
    return plans, {"multi_head": multi_head, **{k: p.request for k, p in plans.items()}}


def _in_this_process(target: type | str, multi_head: bool | None) -> CheckReport:
    """The harness here (a file is imported here too): outputs still copied at each call."""
    plans, request = _plans(multi_head, None)
    lines: list[bytes] = []
    with _restored_globals():
        torch.set_num_threads(1)  # tiny tensors: one thread is fastest (benchmarks/README.md)
        check_harness.run(target, request, lambda r: lines.append(json.dumps(r).encode()))
    return _verdict(target, plans, lines, None, "")


def _isolated(target: type | str, multi_head: bool | None, timeout: float) -> CheckReport:
    with _ctrl_c_noted() as interrupted:
        # this check's weights and inputs: never seen before
        plans, request = _plans(multi_head, secrets.randbelow(2**40))
        if isinstance(target, str):
            finished = run_file(target, request, timeout, interrupted)
        else:
            finished = run_forked(target, request, timeout, interrupted)
    return _verdict(target, plans, finished.lines, finished, printed_text(finished))


def printed_text(finished: Finished) -> str:
    """What the class printed, harmless for a terminal, and how much more there was."""
    if not finished.printed_total:
        return ""
    text = printable(finished.printed)
    if finished.printed_total > len(finished.printed):
        text += (
            f"\n… {finished.printed_total - len(finished.printed):,} more bytes of printing "
            "not shown"
        )
    return text


def _verdict(
    target: type | str,
    plans: dict[str, _Plan],
    lines: list[bytes],
    finished: Finished | None,
    printed: str,
) -> CheckReport:
    """The report, decided here from the records that came back and how the process ended."""
    name = _text(target.__name__ if isinstance(target, type) else target.rpartition(":")[2], 80)
    results = _collect(lines, {kind: plan.calls for kind, plan in plans.items()})
    end = results.end
    if "load_error" in end and not results.tampered:
        raise AttentionInputError(_load_message(str(target), end), field="target")
    kind = results.kind or next(iter(plans))
    plan = plans[kind]
    if finished is not None and finished.overflow:
        results.tampered = True
    report = None
    if "done" in end and not results.tampered:
        try:
            report = _judge(name, plan, results)
        except (_Tampered, ValueError, TypeError, KeyError):
            results.tampered = True
    if report is None:
        what = _how_it_ended(name, target, results, finished)
        book = "MultiHeadAttention" if plan.multi_head else "CausalAttention"
        report = CheckReport(name, book, False, len(plan.references), Difference(None, what))
    return replace(report, printed=printed)


def _how_it_ended(
    name: str, target: type | str, results: _Results, finished: Finished | None
) -> str:
    """Why no verdict: the class's process wrote to the checker's pipe, ran out of time, exited
    or crashed."""
    end = results.end
    stage = end.get("at") if end.get("at") in ("import", "build", "forward") else None
    stage = stage or (results.stages[-1] if results.stages else "start")
    file = _text(target.rpartition(":")[0], 200) if isinstance(target, str) else name
    where = {
        "import": f"while importing {file}",
        "build": f"in {name}.__init__",
        "forward": f"in {name}.forward",
    }.get(stage, "while the checker ran")
    if results.tampered:
        return (
            f"the process running {name} sent the checker what it did not ask for ({where}): "
            "something in the class wrote to the checker's own pipe, so its results cannot be "
            "trusted. A layer must only compute its output"
        )
    if finished is not None and finished.timed_out:
        return (
            f"{name} did not finish in {finished.timeout:g} s (stopped {where}): look for "
            "a loop that never ends or a sleep; give it longer with --timeout SECONDS "
            "(timeout= in check_attention)"
        )
    if "exit" in end:
        code = end["exit"]
        shown = "" if code is None else repr(code if type(code) is int else _text(code, 80))
        return (
            f"sys.exit({shown}) was called {where}: the program ends there, so the check could "
            "not finish. A layer must not end the program; raise an exception instead"
        )
    if "crash" in end:
        return f"the checker failed {where}: {_text(end['crash'])}"
    exitcode = None if finished is None else finished.exitcode
    ended = f"ended with exit code {exitcode}"
    if exitcode is not None and exitcode < 0:
        with contextlib.suppress(ValueError):
            ended = f"was killed by signal {signal.Signals(-exitcode).name}"
    return (
        f"the process running {name} {ended} {where}, before the check finished "
        "(os._exit, or a crash in native code): a layer must not end the program"
    )


def _load_message(target: str, end: dict[str, Any]) -> str:
    """Why the file gave no class, in words written here (the child sends only the facts)."""
    path, class_name = _parse_target(target)
    kind = end["load_error"]
    if kind == "import":
        return f"Importing {path} raised {_text(end.get('error'), 400)}"
    if kind == "no_class":
        listed = end.get("classes")
        classes = [_text(c, 80) for c in listed[:20]] if isinstance(listed, list) else []
        return f"{path} has no {class_name}" + (
            f"; its classes: {', '.join(classes)}." if classes else "."
        )
    if kind == "not_module":
        return (
            f"{path}:{class_name} is a class but not a torch.nn.Module: the checker builds it "
            "and calls it as a layer, so derive it from nn.Module, as the book's "
            "CausalAttention(nn.Module) does."
        )
    return f"Cannot import {path} as Python."


def _short_path(text: str, limit: int = 80) -> str:
    """A long path keeps its end, where the file's name is: ``…/folder/my_attention.py``."""
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


@contextlib.contextmanager
def _ctrl_c_noted() -> Iterator[list[bool]]:
    """While the check waits, Ctrl-C is also written down, not only raised.

    A ``KeyboardInterrupt`` raised inside a finalizer is printed as "ignored" and lost, and the
    check would wait out its time limit; the yielded list turns ``[True]`` so the wait raises it
    again. Only the default handler is replaced (an ignored Ctrl-C stays ignored).
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
