"""Check a learner's own attention class against the book's, by behaviour, and name likely bugs.

::

    from attention.check import check_attention, BUGS
    report = check_attention(MyCausalAttention)   # the book's constructor signature
    report.passed            # True when it behaves as the book's class on every case
    report.first_difference  # None, or the first case and what differed
    report.likely_bugs       # names from BUGS, most likely first
    report.future_leak       # True when a later token changes earlier outputs
    print(report)            # what to look at, in plain words

The source is never read. For every case of a small grid (batch 1 and 2, token counts below
``context_length``, dropout 0 and 0.5, training and eval mode, several seeds) the book's module
is built, its weights are copied into the learner's module by the book's names (``W_query``,
``W_key``, ``W_value``; ``out_proj`` with several heads), both get the same input and both run
right after ``torch.manual_seed(seed)`` inside ``torch.random.fork_rng``: a class that calls
dropout as the book does draws the same masks, and torch's global generator is left as it was.
Every gallery bug of :mod:`attention.bugs` runs on the same cases; those that reproduce the
learner's outputs are the likely bugs. Exceptions raised by the learner's class are reported.

The learner's class runs in the caller's process (a notebook or ``python -m attention check``);
the app never runs it.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.nn as nn

from .bugs import BUGS, earlier_outputs_moved
from .randomness import private_generator
from .trace import AttentionConfig, build_module
from .validate import AttentionInputError

__all__ = ["BUGS", "Case", "CheckReport", "Difference", "check_attention"]

D_IN = 3
D_OUT = 2  # one head
MULTI_HEAD_D_OUT = 4  # two heads of 2
NUM_HEADS = 2
CONTEXT_LENGTH = 8
SHAPES = ((1, 6), (2, 5), (2, 3))  # (batch, tokens), tokens below CONTEXT_LENGTH
SEEDS = (0, 1, 2)
RTOL, ATOL = 1e-4, 1e-5  # float32 rounding of a class written differently
BOOK_NAMES = ("W_query", "W_key", "W_value")


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

    case: Case | None  # None: the class could not even be built or given the book's weights
    what: str

    def __str__(self) -> str:
        return self.what if self.case is None else f"{self.case}: {self.what}"


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

    def __str__(self) -> str:
        if self.passed:
            return (
                f"{self.class_name} behaves as the book's {self.book_class} on all {self.cases} "
                "cases (batch 1 and 2, several token counts, dropout 0 and 0.5, training and "
                "eval mode, several seeds)."
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
        return "\n".join(lines)


def _is_multi_head(cls: type) -> bool:
    try:
        parameters = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False
    return "num_heads" in parameters


def _build(cls: type, multi_head: bool, dropout: float) -> nn.Module:
    """``cls`` built with the book's arguments; its own initial weights do not matter.

    The learner's ``nn.Linear`` layers draw their initial weights from torch's global generator
    (a class cannot be given a private one); ``fork_rng`` puts its state back. Like
    :func:`_seeded_forward`, this runs only in the learner's own process, never on the app's
    server.
    """
    with torch.random.fork_rng(devices=[]):
        if multi_head:
            return cls(D_IN, MULTI_HEAD_D_OUT, CONTEXT_LENGTH, dropout, NUM_HEADS)
        return cls(D_IN, D_OUT, CONTEXT_LENGTH, dropout)


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


def _inputs(case: Case) -> torch.Tensor:
    generator = private_generator(1000 + case.seed)
    return torch.randn(case.batch, case.num_tokens, D_IN, generator=generator)  # (b, T, d_in)


def _seeded_forward(module: nn.Module, x: torch.Tensor, seed: int) -> torch.Tensor:
    """``module(x)`` right after ``torch.manual_seed(seed)``, the global generator restored.

    A learner's class draws its dropout masks from torch's global generator (``nn.Dropout``), so
    the checker must seed that one; ``fork_rng`` puts its state back afterwards. This runs only
    in the learner's own process (notebook or CLI), never on the app's server, where sessions
    share the global generator.
    """
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        torch.default_generator.manual_seed(seed)  # the CPU generator, as torch.manual_seed
        return module(x.clone())


def _describe(output: Any, expected: torch.Tensor) -> str | None:
    """What differs between the learner's output and the book's, or None."""
    if not isinstance(output, torch.Tensor):
        return f"the output is a {type(output).__name__}, expected a tensor"
    if tuple(output.shape) != tuple(expected.shape):
        return f"the output has shape {tuple(output.shape)}, expected {tuple(expected.shape)}"
    output = output.detach().to(expected.dtype)
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
    return (
        isinstance(a, torch.Tensor)
        and a.shape == b.shape
        and torch.allclose(a.detach().to(b.dtype), b, rtol=RTOL, atol=ATOL, equal_nan=True)
    )


def check_attention(cls: Any, *, multi_head: bool | None = None) -> CheckReport:
    """Compare ``cls`` with the book's ``CausalAttention`` (or ``MultiHeadAttention``) by behaviour.

    ``cls`` takes the book's constructor arguments, ``(d_in, d_out, context_length, dropout,
    qkv_bias=False)``, with ``num_heads`` before ``qkv_bias`` for multi-head; ``multi_head=None``
    decides by whether the constructor has a ``num_heads`` parameter. Raises
    :class:`AttentionInputError` when ``cls`` is not an ``nn.Module`` class; everything the class
    itself does wrong (it cannot be built, lacks the book's layer names, raises, differs) is in
    the report.
    """
    if not isinstance(cls, type) or not issubclass(cls, nn.Module):
        raise AttentionInputError(
            f"check_attention needs a class derived from torch.nn.Module, such as the book's "
            f"CausalAttention; got {cls!r}.",
            field="cls",
        )
    if multi_head is None:
        multi_head = _is_multi_head(cls)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # tiny tensors: one thread is fastest (benchmarks/README.md)
    try:
        return _check(cls, multi_head)
    finally:
        torch.set_num_threads(threads)


def _check(cls: type, multi_head: bool) -> CheckReport:
    name = cls.__name__
    book_name = "MultiHeadAttention" if multi_head else "CausalAttention"
    gallery = [bug for bug in BUGS.values() if bug.multi_head == multi_head]
    cases = _grid()

    def failed(what: str, case: Case | None = None) -> CheckReport:
        return CheckReport(name, book_name, False, len(cases), Difference(case, what))

    first: Difference | None = None
    differing = 0
    matches = {bug.name: 0 for bug in gallery}  # cases where the bug gives the learner's output
    matches_where_differs = {bug.name: 0 for bug in gallery}
    leaked: tuple[int, ...] = ()
    raised = 0
    modules: dict[float, nn.Module] = {}
    variants: dict[float, list[nn.Module]] = {}
    for case in cases:
        book = _book_module(multi_head, case.dropout, case.seed)
        if case.dropout not in modules:
            try:
                modules[case.dropout] = _build(cls, multi_head, case.dropout)
            except Exception as error:  # the learner's constructor
                return failed(f"{name}(…) could not be built: {type(error).__name__}: {error}")
            variants[case.dropout] = [_build(bug.cls, multi_head, case.dropout) for bug in gallery]
        module = modules[case.dropout]
        problem = _copy_weights(book, module, multi_head)
        if problem is not None:
            return failed(f"{name} cannot take the book's weights: {problem}.")
        book.train(case.training)
        module.train(case.training)
        x = _inputs(case)
        expected = _seeded_forward(book, x, case.seed)
        try:
            output = _seeded_forward(module, x, case.seed)
        except Exception as error:  # the learner's forward pass
            first = first or Difference(case, f"forward raised {type(error).__name__}: {error}")
            differing += 1
            raised += 1
            continue
        what = _describe(output, expected)
        if what is not None:
            first = first or Difference(case, what)
            differing += 1
        for bug, variant in zip(gallery, variants[case.dropout], strict=True):
            _copy_weights(book, variant, multi_head)
            variant.train(case.training)
            if _same(output, _seeded_forward(variant, x, case.seed)):
                matches[bug.name] += 1
                if what is not None:
                    matches_where_differs[bug.name] += 1
        if not leaked and not case.training and case.num_tokens > 2:
            leaked = _leak(lambda data, m=module, s=case.seed: _seeded_forward(m, data, s), x)

    if first is None:
        return CheckReport(name, book_name, True, len(cases), None)
    likely = sorted(
        (bug.name for bug in gallery if matches_where_differs[bug.name] * 2 > differing),
        key=lambda n: (-matches_where_differs[n], -matches[n]),
    )
    return CheckReport(
        name,
        book_name,
        False,
        len(cases),
        first,
        tuple(likely),
        bool(leaked),
        leaked,
        raised,
    )


def _leak(forward: Callable[[torch.Tensor], torch.Tensor], x: torch.Tensor) -> tuple[int, ...]:
    """The earlier tokens whose output moves when the last token changes (none for a causal layer)."""
    try:
        moved = earlier_outputs_moved(forward, x, x.shape[1] - 1)
    except Exception:  # the forward pass raised: reported as the first difference already
        return ()
    return tuple(int(i) for i in torch.nonzero(moved).flatten())


def load_class(target: str) -> type:
    """The class named by ``"path/to/file.py:ClassName"``, imported from that file.

    Raises :class:`AttentionInputError` with a plain message for a malformed target, a missing
    file, a file that fails to import (its error named) or a missing class.
    """
    path_text, _, class_name = target.rpartition(":")
    if not path_text or not class_name:
        raise AttentionInputError(
            f"Expected FILE.py:ClassName, e.g. my_attention.py:MyCausalAttention; got {target!r}.",
            field="target",
        )
    path = Path(path_text)
    if not path.is_file():
        raise AttentionInputError(f"No such file: {path_text}.", field="target")
    spec = importlib.util.spec_from_file_location(f"_checked_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise AttentionInputError(f"Cannot import {path_text} as Python.", field="target")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # the learner's file
        raise AttentionInputError(
            f"Importing {path_text} raised {type(error).__name__}: {error}", field="target"
        ) from None
    found = getattr(module, class_name, None)
    if found is None:
        classes = sorted(
            n for n, v in vars(module).items() if isinstance(v, type) and v.__module__ == spec.name
        )
        raise AttentionInputError(
            f"{path_text} has no {class_name}"
            + (f"; its classes: {', '.join(classes)}." if classes else "."),
            field="target",
        )
    return found


def main(argv: Sequence[str]) -> int:
    """``python -m attention check FILE.py:ClassName``: print the report; 0 pass, 1 fail, 2 usage."""
    parser = argparse.ArgumentParser(
        prog="python -m attention check",
        description="Compare your attention class with the book's, by behaviour, and name "
        "likely bugs. Your class takes the book's constructor arguments.",
    )
    parser.add_argument("target", help="FILE.py:ClassName, e.g. my_attention.py:MyCausalAttention")
    parser.add_argument(
        "--multi-head",
        action="store_true",
        default=None,
        help="compare with MultiHeadAttention (default: when the constructor has num_heads)",
    )
    args = parser.parse_args(argv)  # exits with status 2 on malformed options
    try:
        report = check_attention(load_class(args.target), multi_head=args.multi_head)
    except AttentionInputError as error:
        sys.stderr.write(f"error: {error}\n")
        return 2
    sys.stdout.write(f"{report}\n")
    return 0 if report.passed else 1
