"""The autograd graph of a forward pass: PyTorch's backward functions, linked to the steps they
serve.

Each tensor made with autograd on has a ``grad_fn`` (``SoftmaxBackward0`` for ``torch.softmax``)
whose ``next_functions`` lead back to ``AccumulateGrad`` nodes that fill a leaf's ``.grad``.
:func:`build_graph` names every node and its step; :meth:`AutogradGraph.to_dot` draws it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

from .validate import AttentionInputError

__all__ = ["AutogradGraph", "GraphNode", "build_graph", "walk"]


@dataclass(frozen=True)
class GraphNode:
    """One backward function, as PyTorch names it, and the step it serves (a trace field, a weight,
    ``"inputs"`` for a leaf, or ``"loss"``); ``head``: the wrapper's head, or None.
    """

    id: str
    name: str
    step: str
    head: int | None = None


@dataclass(frozen=True)
class AutogradGraph:
    """The autograd graph of the forward pass, loss first: an edge ``(a, b)`` means the gradient
    flows from ``a`` to ``b`` (``b`` is in ``a.next_functions``).
    """

    nodes: tuple[GraphNode, ...]
    edges: tuple[tuple[str, str], ...]

    def names(self) -> list[str]:
        """The backward functions' names, loss first (``['SumBackward0', 'UnsafeViewBackward0', …]``)."""
        return [node.name for node in self.nodes]

    def first_of(self, step: str) -> GraphNode | None:
        """The first node of ``step`` met from the loss: the ``grad_fn`` of that step's tensor."""
        return next((node for node in self.nodes if node.step == step), None)

    def step_of(self, name: str) -> set[str]:
        """The steps whose nodes are called ``name`` (``step_of("SoftmaxBackward0")``)."""
        return {node.step for node in self.nodes if node.name == name}

    def to_dot(
        self,
        step_labels: Mapping[str, str] | None = None,
        step_colors: Mapping[str, str] | None = None,
        direction: str = "TB",
    ) -> str:
        """The graph as Graphviz DOT text (``step_labels`` rename steps, ``step_colors`` fill their
        nodes); arrows follow the gradient, ``"TB"`` or ``"LR"``.
        """
        if direction not in ("TB", "LR"):
            raise AttentionInputError(f"direction must be 'TB' or 'LR', got {direction!r}")
        labels = dict(step_labels or {})
        colors = dict(step_colors or {})
        lines = [
            "digraph autograd {",
            f'  graph [rankdir={direction}, nodesep=0.25, ranksep=0.35, fontname="Helvetica"];',
            '  node [shape=box, style="rounded,filled", fillcolor="white", '
            'fontname="Helvetica", fontsize=11];',
            '  edge [color="#666666", arrowsize=0.7];',
        ]
        for node in self.nodes:
            step = labels.get(node.step, node.step)
            if node.head is not None:
                step = f"{step} · h{node.head + 1}"
            label = f"{node.name}\\n{_dot_text(step)}"
            color = colors.get(node.step, "white")
            lines.append(f'  {node.id} [label="{label}", fillcolor="{_dot_text(color)}"];')
        lines.extend(f"  {a} -> {b};" for a, b in self.edges)
        lines.append("}")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "nodes": [
                {"id": n.id, "name": n.name, "step": n.step, "head": n.head} for n in self.nodes
            ],
            "edges": [list(edge) for edge in self.edges],
        }


def _dot_text(text: str) -> str:
    """Text safe inside a DOT double-quoted string."""
    return str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def walk(root: Any) -> list[Any]:
    """Every backward node reachable from ``root``, in breadth-first order."""
    order: list[Any] = []
    seen: set[int] = set()
    queue = [root]
    while queue:
        node = queue.pop(0)
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        queue.extend(child for child, _ in node.next_functions)
    return order


def build_graph(
    loss: torch.Tensor,
    steps: Mapping[str, Any],
    leaf_steps: Mapping[int, tuple[str, int | None]],
) -> AutogradGraph:
    """Name every node of the loss's graph and link it to its step: leaves by the tensor they fill,
    then, in forward order, every node reachable from a step's tensor and not yet claimed.
    """
    order = walk(loss.grad_fn)
    in_graph = {id(node) for node in order}
    step_of: dict[int, tuple[str, int | None]] = {}
    for node in order:
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) in leaf_steps:
            step_of[id(node)] = leaf_steps[id(variable)]
    for step, tensor in steps.items():
        if not isinstance(tensor, torch.Tensor) or tensor.grad_fn is None:
            continue
        for node in _walk_unclaimed(tensor.grad_fn, step_of):
            if id(node) in in_graph:  # the wrapper's stacked views are not on the loss's path
                step_of[id(node)] = (step, None)
    ids = {id(node): f"n{index}" for index, node in enumerate(order)}
    nodes = tuple(
        GraphNode(ids[id(node)], type(node).__name__, *step_of.get(id(node), ("loss", None)))
        for node in order
    )
    edges = tuple(
        (ids[id(node)], ids[id(child)])
        for node in order
        for child, _ in node.next_functions
        if child is not None
    )
    return AutogradGraph(nodes=nodes, edges=edges)


def _walk_unclaimed(root: Any, claimed: Mapping[int, Any]) -> list[Any]:
    """The nodes reachable from ``root`` without passing a node already claimed by a step."""
    found: list[Any] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen or id(node) in claimed:
            continue
        seen.add(id(node))
        found.append(node)
        stack.extend(child for child, _ in node.next_functions)
    return found
