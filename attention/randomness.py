"""Private randomness: the book's numbers without touching torch's global generator.

The book seeds torch's *default* generator (``torch.manual_seed(123)``) and then builds a layer:
``nn.Linear`` draws its initial weights from that generator, and ``nn.Dropout`` draws its keep-mask
from it in every forward pass. That generator is process-wide. A Streamlit server runs every
browser session in a thread of one process, and a notebook may have a data-loader thread: if a
trace seeded and read the global generator, another thread's draws would change the trace, and
the trace's seeding would rewind that thread's stream.

So the package never reads or writes the global generator. Instead:

- :func:`private_generator` makes a CPU ``torch.Generator`` seeded like ``torch.manual_seed``. A CPU
  generator seeded with ``s`` produces exactly the stream the default generator produces after
  ``torch.manual_seed(s)``, so the draws, and therefore the numbers, are the book's.
- :func:`draws_from` runs code, such as the book's constructor ``CausalAttention(3, 2, 6, 0.0)``,
  with every random draw it makes sent to a private generator. It is a ``TorchFunctionMode``:
  torch calls it for each torch function, and it adds ``generator=`` to the random ones
  (``nn.init.kaiming_uniform_``, ``nn.init.uniform_``, ``torch.rand`` …). The class is still the
  book's class, built by the book's own ``__init__``; only the source of its random numbers
  changes. Torch keeps the stack of such modes per thread, so other threads are not affected.
- :func:`dropout_noise` draws what ``nn.Dropout(p)`` multiplies its input by on the CPU,
  ``bernoulli_(1 − p)`` then ``÷ (1 − p)``, from a private generator.
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
    """A CPU generator seeded with ``seed``: the same stream as after ``torch.manual_seed(seed)``.

    Seeding it changes nothing anywhere else, so two traces in two threads never meet.
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

    The global generator is neither read nor advanced.
    """
    with _RouteRandomDraws(generator):
        yield generator


def build_seeded(seed: int, build: Callable[[], T]) -> T:
    """``build()`` as if right after ``torch.manual_seed(seed)``, with a private generator."""
    with draws_from(private_generator(seed)):
        return build()


def dropout_noise(like: torch.Tensor, p: float, generator: torch.Generator | None) -> torch.Tensor:
    """What ``nn.Dropout(p)`` multiplies ``like`` by in training mode on the CPU: the scaled keep-mask.

    ``1/(1−p)`` where a weight is kept (probability ``1 − p``), ``0`` where it is dropped; the same
    operations as PyTorch's CPU dropout (``bernoulli_(1 − p)``, then ``div_(1 − p)``; with
    ``p = 1`` everything is multiplied by zero and nothing is drawn), so
    ``like * dropout_noise(like, p, g)`` is bitwise ``nn.Dropout(p)(like)`` after
    ``torch.manual_seed`` with ``g``'s seed and state. ``generator=None`` draws from torch's
    global generator, as ``nn.Dropout`` itself does (a class's own ``forward`` pass).
    """
    if p >= 1.0:
        return torch.zeros_like(like)
    noise = torch.empty_like(like).bernoulli_(1.0 - p, generator=generator)  # 1 = keep
    noise.div_(1.0 - p)  # kept × 1/(1 − p)
    return noise
