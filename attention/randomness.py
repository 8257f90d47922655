"""Private randomness: the book's numbers without touching torch's global generator.

The book seeds torch's process-wide generator, then ``nn.Linear`` draws the weights and
``nn.Dropout`` the keep-mask from it. Streamlit runs every session in a thread of one process:
a trace using the global generator would be changed by other threads' draws, and would rewind
theirs. So the package never touches it:

- :func:`private_generator`: a CPU generator seeded with ``s`` gives exactly the stream of
  ``torch.manual_seed(s)``, so the numbers are the book's.
- :func:`draws_from`: a ``TorchFunctionMode`` (per thread) that adds ``generator=`` to every
  random torch call, so the book's own ``__init__`` draws from a private generator.
- :func:`dropout_noise`: what ``nn.Dropout(p)`` multiplies by on the CPU, privately drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

__all__ = ["private_generator", "draws_from", "dropout_noise", "UnroutedRandomDrawError"]

T = TypeVar("T")

# Torch functions and tensor methods that draw random numbers and take ``generator=``. Functions
# of torch.nn.init arrive with an explicit ``generator=None`` keyword and are caught by that.
_RANDOM_FUNCTIONS: frozenset[Any] = frozenset(
    {
        torch.rand,
        torch.rand_like,
        torch.randn,
        torch.randn_like,
        torch.randint,
        torch.randint_like,
        torch.randperm,
        torch.bernoulli,
        torch.multinomial,
        torch.normal,
        torch.poisson,
        torch.Tensor.uniform_,
        torch.Tensor.normal_,
        torch.Tensor.bernoulli_,
        torch.Tensor.random_,
        torch.Tensor.exponential_,
        torch.Tensor.cauchy_,
        torch.Tensor.log_normal_,
        torch.Tensor.geometric_,
    }
)
# Random functions that cannot take a generator: inside draws_from they would silently read the
# global one, so they are refused (use dropout_noise instead).
_UNROUTABLE_FUNCTIONS: frozenset[Any] = frozenset(
    {F.dropout, F.dropout1d, F.dropout2d, F.dropout3d, F.alpha_dropout, torch.dropout}
)


class UnroutedRandomDrawError(RuntimeError):
    """Raised when code inside :func:`draws_from` calls a random function without a generator."""


def private_generator(seed: int) -> torch.Generator:
    """A CPU generator seeded with ``seed``: the same stream as after
    ``torch.manual_seed(seed)``.
    """
    generator = torch.Generator(device="cpu")
    generator.manual_seed(int(seed))
    return generator


class _RouteRandomDraws(TorchFunctionMode):
    """Add ``generator=`` to every random torch call that does not name a generator itself."""

    def __init__(self, generator: torch.Generator) -> None:
        super().__init__()
        self.generator = generator

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: Any,
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        kwargs = dict(kwargs or {})
        if func in _UNROUTABLE_FUNCTIONS:
            raise UnroutedRandomDrawError(
                f"{getattr(func, '__name__', func)} draws from torch's global generator and "
                "cannot take a private one; use attention.randomness.dropout_noise."
            )
        if ("generator" in kwargs or func in _RANDOM_FUNCTIONS) and kwargs.get("generator") is None:
            kwargs["generator"] = self.generator
        return func(*args, **kwargs)


@contextmanager
def draws_from(generator: torch.Generator) -> Iterator[torch.Generator]:
    """Within this block, this thread's random torch draws come from ``generator``.

    >>> with draws_from(private_generator(123)):
    ...     module = CausalAttention(3, 2, 6, 0.0)   # the weights of torch.manual_seed(123)
    """
    with _RouteRandomDraws(generator):
        yield generator


def build_seeded(seed: int, build: Callable[[], T]) -> T:
    """``build()`` as if right after ``torch.manual_seed(seed)``, with a private generator."""
    with draws_from(private_generator(seed)):
        return build()


def dropout_noise(like: torch.Tensor, p: float, generator: torch.Generator | None) -> torch.Tensor:
    """What ``nn.Dropout(p)`` multiplies ``like`` by in training mode: ``1/(1−p)`` where kept, 0
    where dropped, by PyTorch's CPU operations: ``like * dropout_noise(like, p, g)`` is bitwise
    ``nn.Dropout(p)(like)`` after ``torch.manual_seed`` (``generator=None``: the global one).
    """
    if p >= 1.0:
        return torch.zeros_like(like)
    noise = torch.empty_like(like).bernoulli_(1.0 - p, generator=generator)  # 1 = keep
    noise.div_(1.0 - p)  # kept × 1/(1 − p)
    return noise
