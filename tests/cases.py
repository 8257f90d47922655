"""``subcases``: a parametrization that is one collected test, each case a subtest.

``@subcases("p", [0.1, 0.5])`` reads like ``@pytest.mark.parametrize("p", [0.1, 0.5])`` and runs
the same body on the same values, but pytest collects one test and reports each value as a
subtest (pytest's built-in ``subtests`` fixture): a failing case is still named (``SUBFAILED``)
and fails the test, the other cases still run. Use it for a handful of chosen values of one
property, where a collected case per value would only add collection and report lines.
Other fixtures of the test are requested as usual; stacked ``subcases`` run every combination.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any

SUBTESTS = "subtests"


def _label(ids: Sequence[str] | Callable[[Any], str] | None, index: int, value: Any) -> str:
    if ids is None:
        return repr(value)[:80]
    return ids(value) if callable(ids) else ids[index]


def subcases(
    argnames: str | Sequence[str],
    argvalues: Iterable[Any],
    ids: Sequence[str] | Callable[[Any], str] | None = None,
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Run the decorated test once per value of ``argnames`` (``"a, b"`` takes tuples)."""
    names = [n.strip() for n in argnames.split(",")] if isinstance(argnames, str) else [*argnames]
    values = list(argvalues)
    if ids is not None and not callable(ids) and len(ids) != len(values):
        raise ValueError(f"subcases: {len(ids)} ids for {len(values)} values")

    def decorate(test: Callable[..., None]) -> Callable[..., None]:
        inner: list[tuple[str, dict[str, Any]]] = getattr(test, "__subcases__", [("", {})])
        body: Callable[..., None] = getattr(test, "__subcases_body__", test)
        cases = [
            (
                " ".join(filter(None, (_label(ids, index, value), label))),
                {**_arguments(names, value), **args},
            )
            for index, value in enumerate(values)
            for label, args in inner
        ]
        signature = inspect.signature(body)
        absent = [name for name in names if name not in signature.parameters]
        if absent:
            raise TypeError(f"{body.__name__} has no parameter {absent}")
        passes_subtests = SUBTESTS in signature.parameters
        taken = {name for _, args in cases for name in args}
        fixtures = [p for p in signature.parameters.values() if p.name not in (*taken, SUBTESTS)]

        @functools.wraps(body)
        def run_each(subtests: Any, **requested: Any) -> None:
            if passes_subtests:
                requested[SUBTESTS] = subtests
            for label, args in cases:
                with subtests.test(msg=label):
                    body(**requested, **args)

        subtests_parameter = inspect.Parameter(SUBTESTS, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        run_each.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[subtests_parameter, *fixtures]
        )
        run_each.__subcases__ = cases  # type: ignore[attr-defined]
        run_each.__subcases_body__ = body  # type: ignore[attr-defined]
        return run_each

    return decorate


def _arguments(names: list[str], value: Any) -> dict[str, Any]:
    """``{name: value}`` for one name, ``dict(zip(names, value))`` for several."""
    return dict(zip(names, value, strict=True)) if len(names) > 1 else {names[0]: value}
