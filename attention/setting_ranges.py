"""The Train and Backward settings' ranges and defaults, without torch: every run's link reads
them, and a page that trains nothing never imports the training code.
"""

from __future__ import annotations

from dataclasses import dataclass

TASK_NAMES = ("copy", "reverse", "sort", "induction", "text")  # attention.tasks makes each
LOSS_NAMES = ("sum", "squared_distance")  # attention.gradients.LOSS_BUILDERS builds each
MAX_DESCENT_STEPS = 200  # learning steps the backward page takes at most

# (low, high) of every whole-number setting: one place for the checks, the page's widgets and docs
LIMITS: dict[str, tuple[int, int]] = {
    "layers": (1, 4),
    "heads": (1, 8),
    "width": (4, 256),
    "steps": (1, 20_000),
    "batch_size": (1, 512),
    "log_every": (1, 20_000),
    "length": (2, 32),
    "context_length": (8, 128),
}


@dataclass(frozen=True)
class TaskDefaults:
    """The settings a task trains with unless the config says otherwise (see TrainConfig)."""

    layers: int
    heads: int
    width: int
    dropout: float
    steps: int
    batch_size: int
    learning_rate: float
    layer_norm: bool
    feed_forward: bool
    log_every: int
    length: int | None = None  # digit tasks only
    context_length: int | None = None  # induction and text only


# Per-task defaults: each reaches its task's accuracy target quickly on a small CPU
# (``benchmarks/README.md``, "Time and accuracy at the defaults").
TASK_DEFAULTS: dict[str, TaskDefaults] = {
    "copy": TaskDefaults(
        layers=1, heads=1, width=64, dropout=0.0, steps=300, batch_size=64,
        learning_rate=3e-3, layer_norm=True, feed_forward=False, log_every=25, length=8,
    ),
    "reverse": TaskDefaults(
        layers=1, heads=1, width=64, dropout=0.0, steps=300, batch_size=64,
        learning_rate=3e-3, layer_norm=True, feed_forward=False, log_every=25, length=8,
    ),
    "sort": TaskDefaults(
        layers=2, heads=2, width=64, dropout=0.0, steps=400, batch_size=64,
        learning_rate=3e-3, layer_norm=True, feed_forward=True, log_every=50, length=8,
    ),
    "induction": TaskDefaults(
        layers=2, heads=2, width=64, dropout=0.0, steps=1200, batch_size=64,
        learning_rate=5e-3, layer_norm=True, feed_forward=False, log_every=50,
        context_length=32,
    ),
    "text": TaskDefaults(
        layers=2, heads=4, width=64, dropout=0.5, steps=1000, batch_size=32,
        learning_rate=3e-3, layer_norm=True, feed_forward=True, log_every=50,
        context_length=32,
    ),
}  # fmt: skip
