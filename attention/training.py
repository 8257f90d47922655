"""Train a tiny GPT built from the book's ``MultiHeadAttention`` and watch what attention learns.

    result = train(TrainConfig(task="copy", seed=0))  # per-task defaults for every other field
    result.evaluate(n=1000, seed=7)                   # accuracy on fresh held-out sequences
    result.attention(result.sample_tokens())          # (layers, heads, T, T) softmax weights

:class:`TinyGPT` is the book's chapter-4 GPT in miniature around the chapter-3 attention class.
The same config trains to bitwise the same weights even while other threads use torch's global
generator (Streamlit serves sessions from threads): private generators seeded from ``cfg.seed``
draw the data, the initial weights (the model is built on ``meta`` and initialised from its
generator) and the dropout masks (:class:`PrivateDropout`, swapped in while ``train`` runs).
Bitwise equality needs the same torch build and intra-op thread count. ``on_progress`` returning
exactly ``False`` stops early with the model as trained so far.
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

import torch
import torch.nn as nn
import torch.nn.functional as F

from .head_split import splits_evenly
from .modules import MultiHeadAttention
from .setting_ranges import LIMITS, TASK_DEFAULTS, TaskDefaults
from .tasks import (
    IGNORE,
    Task,
    TaskBatch,
    TextTask,
    check_task,
    make_task,
)
from .validate import (
    AttentionInputError,
    check_bool,
    check_dropout,
    check_instance,
    check_int,
    check_seed,
    describe,
)

__all__ = [
    "LIMITS",
    "TASK_DEFAULTS",
    "TaskDefaults",
    "DropoutComparison",
    "PrivateDropout",
    "TinyGPT",
    "TrainConfig",
    "TrainResult",
    "build_model",
    "compare_dropout",
    "private_dropout",
    "seeded_generator",
    "task_for",
    "train",
]

EVAL_SEQUENCES = 256  # held-out (and training) sequences behind each logged loss and accuracy
EVALUATE_CHUNK = 500  # evaluate() runs the model on this many sequences at a time
MAX_EVALUATE = 100_000  # evaluate(n) at most: the sequences are drawn at once
MAX_PATTERN_SEQUENCES = 2000  # pattern_scores(n) at most: all their attention weights are kept
WARMUP_FRACTION = 0.05  # learning rate rises linearly over the first 5% of the steps …
FINAL_LR_FRACTION = 0.1  # … then falls along a cosine to a tenth of its peak
GRAD_CLIP = 1.0  # the gradient's norm is clipped to this (keeps a tiny model's first steps sane)
DEFAULT_PROMPT_SEED = 0  # sample_tokens() draws this held-out sequence unless told otherwise


# --- configuration ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrainConfig:
    """Everything that decides a training run (``None``: the task's default); a good cache key.

    ``text`` (text task only) is resolved to UTF-8 ``bytes``, one key however it was given.
    """

    task: str = "copy"  # one of TASK_NAMES
    seed: int = 0  # seeds the data, the initial weights and the dropout masks
    layers: int | None = None  # transformer blocks
    heads: int | None = None  # attention heads per block
    width: int | None = None  # d_model: the embedding width, = d_in = d_out of each attention
    dropout: float | None = None  # attention dropout inside MultiHeadAttention (training only)
    steps: int | None = None  # optimiser steps
    batch_size: int | None = None  # sequences per step
    learning_rate: float | None = None  # AdamW's peak learning rate
    layer_norm: bool | None = None  # a LayerNorm before attention (and the feed-forward, the head)
    feed_forward: bool | None = None  # a Linear → GELU → Linear part after attention
    log_every: int | None = None  # evaluate and call on_progress every this many steps
    length: int | None = None  # digits per problem (copy, reverse, sort)
    context_length: int | None = None  # tokens the model sees (induction, text)
    text: str | bytes | None = None  # text task: None = the built-in corpus

    def resolved(self) -> TrainConfig:
        """A copy with every default filled in and checked once (a resolved config is trusted).

        Raises :class:`~attention.validate.AttentionInputError` naming the field at fault.
        """
        if getattr(self, "_resolved", False):
            return self
        defaults = asdict(TASK_DEFAULTS[check_task(self.task)])
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        for name, default in defaults.items():
            if values[name] is None:
                values[name] = default
        checked: dict[str, Any] = {"task": self.task, "seed": check_seed(self.seed)}
        for name in ("layers", "heads", "width", "steps", "batch_size", "log_every"):
            low, high = LIMITS[name]
            checked[name] = check_int(name, values[name], low, high, _WHAT[name])
        for name in ("length", "context_length"):  # the task's defaults fill the one it uses
            if self.task in _USES[name]:
                low, high = LIMITS[name]
                checked[name] = check_int(name, values[name], low, high, _WHAT[name])
            else:
                checked[name] = None  # not used by this task: keep the config canonical
        if not splits_evenly(checked["width"], checked["heads"]):
            raise AttentionInputError(
                f"width = {checked['width']} cannot be split evenly into {checked['heads']} heads: "
                "MultiHeadAttention gives each head width / heads features, so width must be "
                "divisible by heads.",
                field="width",
                code="width_heads_split",
                params={"width": checked["width"], "heads": checked["heads"]},
            )
        dropout = check_dropout(values["dropout"])
        if dropout >= 1.0:
            raise AttentionInputError(
                "dropout must be below 1 for training: with 1 every attention weight is dropped "
                "and attention passes nothing on.",
                field="dropout",
                code="train_dropout_one",
            )
        checked["dropout"] = dropout
        checked["learning_rate"] = _check_learning_rate(values["learning_rate"])
        checked["layer_norm"] = check_bool("layer_norm", values["layer_norm"])
        checked["feed_forward"] = check_bool("feed_forward", values["feed_forward"])
        if self.task != "text" and values["text"] is not None:
            raise AttentionInputError(
                f"text is only used by the text task, not by {self.task}.", field="text"
            )
        checked["text"] = _text_bytes(values["text"])
        resolved = TrainConfig(**checked)
        object.__setattr__(resolved, "_resolved", True)  # not a field: equality and hash ignore it
        return resolved

    def to_dict(self) -> dict[str, Any]:
        """The settings as a plain dict (``text`` replaced by its length, for logs and tables)."""
        values = asdict(self)
        if values["text"] is not None:
            values["text"] = f"<{len(values['text'])} characters or bytes>"
        return values


_WHAT = {
    "layers": "transformer blocks",
    "heads": "attention heads per block",
    "width": "the embedding width d_model",
    "steps": "optimiser steps",
    "batch_size": "sequences per step",
    "log_every": "steps between evaluations",
    "length": "digits per problem",
    "context_length": "tokens the model sees",
}
_USES = {"length": ("copy", "reverse", "sort"), "context_length": ("induction", "text")}


def _kind(value: Any) -> str:
    """How an error message names a value of the wrong type: its type and a short repr."""
    return f"{type(value).__name__} {describe(value, 60)}"


def _check_config(cfg: Any) -> TrainConfig:
    """``cfg`` itself if it is a :class:`TrainConfig`; else an error saying what to pass."""
    if not isinstance(cfg, TrainConfig):
        raise AttentionInputError(
            f"cfg must be a TrainConfig, e.g. TrainConfig(task='copy'), got {_kind(cfg)}.",
            field="cfg",
        )
    return cfg


def _text_bytes(text: Any) -> bytes | None:
    """The text task's text as UTF-8 bytes (None stays None): one hashable form per text."""
    if text is None or isinstance(text, bytes):
        return text
    if isinstance(text, bytearray | memoryview):
        return bytes(text)
    if isinstance(text, str):
        return text.encode("utf-8", "surrogatepass")
    raise AttentionInputError(
        f"text must be a str or the bytes of a UTF-8 .txt file, got {_kind(text)}.",
        field="text",
    )


def _check_learning_rate(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise AttentionInputError(
            f"learning_rate must be a number, got {value!r}.", field="learning_rate"
        )
    value = float(value)
    if not (math.isfinite(value) and 0.0 < value <= 1.0):
        raise AttentionInputError(
            f"learning_rate must be above 0 and at most 1, got {value}.", field="learning_rate"
        )
    return value


def task_for(cfg: TrainConfig) -> Task:
    """The task a resolved config trains on."""
    cfg = _check_config(cfg)
    if cfg.task in ("copy", "reverse", "sort"):
        return make_task(cfg.task, length=cfg.length)
    return make_task(cfg.task, context_length=cfg.context_length, text=cfg.text)


def seeded_generator(seed: int, purpose: str) -> torch.Generator:
    """A private generator for one purpose ("data", "init", "dropout", …) of one seed.

    Seeded from SHA-256 of ``"{seed}:{purpose}"``: changing the dropout leaves data and weights.
    """
    seed = check_seed(seed)
    check_instance("purpose", purpose, str)
    digest = hashlib.sha256(f"{seed}:{purpose}".encode()).digest()
    return torch.Generator().manual_seed(int.from_bytes(digest[:8], "little"))


# --- the model -------------------------------------------------------------------------------------


class FeedForward(nn.Module):
    """The book's feed-forward part: widen 4×, GELU, narrow back. ``(b, T, d) -> (b, T, d)``."""

    def __init__(self, width: int) -> None:
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(width, 4 * width), nn.GELU(), nn.Linear(4 * width, width)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers(x)


class TransformerBlock(nn.Module):
    """``x + att(norm1(x))``, then ``x + ff(norm2(x))`` if there is a feed-forward part.

    ``att`` is the book's ``MultiHeadAttention`` (``d_in = d_out = width``); norms may be identity.
    """

    def __init__(
        self,
        width: int,
        context_length: int,
        heads: int,
        dropout: float,
        layer_norm: bool,
        feed_forward: bool,
    ) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(width) if layer_norm else nn.Identity()
        self.att = MultiHeadAttention(width, width, context_length, dropout, heads)
        self.norm2 = nn.LayerNorm(width) if (layer_norm and feed_forward) else nn.Identity()
        self.ff = FeedForward(width) if feed_forward else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.att(self.norm1(x))  # residual connection around attention: (b, T, width)
        if self.ff is not None:
            x = x + self.ff(self.norm2(x))  # and around the feed-forward part
        return x


class TinyGPT(nn.Module):
    """Token + position embeddings, transformer blocks, (a final layer norm,) an output layer.

    Token ids ``(b, T)`` → logits ``(b, T, vocab)`` scoring the token after each position.
    Names follow the book's ``GPTModel``: ``tok_emb``, ``pos_emb``, ``trf_blocks``, ``out_head``.
    """

    def __init__(
        self,
        vocab_size: int,
        context_length: int,
        width: int,
        layers: int,
        heads: int,
        dropout: float,
        layer_norm: bool,
        feed_forward: bool,
    ) -> None:
        super().__init__()
        self.context_length = context_length
        self.tok_emb = nn.Embedding(vocab_size, width)
        self.pos_emb = nn.Embedding(context_length, width)
        self.trf_blocks = nn.ModuleList(
            [
                TransformerBlock(width, context_length, heads, dropout, layer_norm, feed_forward)
                for _ in range(layers)
            ]
        )
        self.final_norm = nn.LayerNorm(width) if layer_norm else nn.Identity()
        self.out_head = nn.Linear(width, vocab_size)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        num_tokens = tokens.shape[1]
        positions = torch.arange(num_tokens, device=tokens.device)
        x = self.tok_emb(tokens) + self.pos_emb(positions)  # (b, T, width)
        for block in self.trf_blocks:
            x = block(x)
        return self.out_head(self.final_norm(x))  # (b, T, vocab)

    def attention_layers(self) -> list[MultiHeadAttention]:
        """The book's attention module of every block, first block first."""
        return [block.att for block in self.trf_blocks]


def _init_parameters(model: nn.Module, generator: torch.Generator) -> None:
    """PyTorch's default initialisation, drawn from ``generator`` instead of the global one."""
    for module in model.modules():  # a fixed order: the order the modules were created
        if isinstance(module, nn.Linear):
            nn.init.kaiming_uniform_(module.weight, a=math.sqrt(5), generator=generator)
            if module.bias is not None:
                bound = 1 / math.sqrt(module.in_features)
                nn.init.uniform_(module.bias, -bound, bound, generator=generator)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, 0.0, 1.0, generator=generator)
        elif isinstance(module, nn.LayerNorm):
            nn.init.ones_(module.weight)
            nn.init.zeros_(module.bias)
        if isinstance(module, MultiHeadAttention):
            context_length = module.mask.shape[0]
            module.mask = torch.triu(torch.ones(context_length, context_length), diagonal=1)


def build_model(task: Task, cfg: TrainConfig, generator: torch.Generator) -> TinyGPT:
    """A :class:`TinyGPT` for ``task`` and ``cfg``, initialised from ``generator`` only.

    Built on ``meta`` first (it allocates and draws nothing): the global generator is untouched.
    """
    check_instance("task", task, Task, " (from task_for(cfg))")
    cfg = _check_config(cfg).resolved()
    check_instance("generator", generator, torch.Generator, " (from seeded_generator)")
    with torch.device("meta"):
        model = TinyGPT(
            vocab_size=task.vocab_size,
            context_length=task.context_length,
            width=cfg.width,
            layers=cfg.layers,
            heads=cfg.heads,
            dropout=cfg.dropout,
            layer_norm=cfg.layer_norm,
            feed_forward=cfg.feed_forward,
        )
    model = model.to_empty(device="cpu")
    with torch.no_grad():
        _init_parameters(model, generator)
    return model


# --- dropout from a private generator --------------------------------------------------------------


class PrivateDropout(nn.Dropout):
    """``nn.Dropout`` (same arithmetic) whose keep-mask comes from a private generator.

    ``nn.Dropout`` has no ``generator`` argument and would draw from the global one.
    """

    def __init__(self, p: float, generator: torch.Generator) -> None:
        super().__init__(p)
        self.generator = generator

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 (nn.Dropout's name)
        if not self.training or self.p == 0.0:
            return input
        keep = torch.empty_like(input).bernoulli_(1.0 - self.p, generator=self.generator)
        return input * keep * (1.0 / (1.0 - self.p))


@contextlib.contextmanager
def private_dropout(model: nn.Module, generator: torch.Generator) -> Iterator[None]:
    """Inside the ``with``: every ``MultiHeadAttention`` of ``model`` drops from ``generator``.

    Swaps each instance's ``dropout`` attribute (never the class, so other threads' models are
    unaffected) and puts the original back on the way out.
    """
    originals: list[tuple[MultiHeadAttention, nn.Module]] = []
    try:
        for module in model.modules():
            if isinstance(module, MultiHeadAttention):
                original = module.dropout
                originals.append((module, original))
                swapped = PrivateDropout(original.p, generator)
                swapped.train(original.training)
                module.dropout = swapped
        yield
    finally:
        for module, original in originals:
            original.train(module.dropout.training)
            module.dropout = original


# --- the result ------------------------------------------------------------------------------------


def _loss_and_accuracy(model: nn.Module, batch: TaskBatch) -> tuple[torch.Tensor, float]:
    """Mean cross-entropy over the answer positions, and the share of them predicted right."""
    logits = model(batch.inputs)  # (b, T, vocab)
    loss = F.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), batch.targets.reshape(-1), ignore_index=IGNORE
    )
    answered = batch.targets != IGNORE
    correct = (logits.argmax(dim=-1) == batch.targets) & answered
    accuracy = float(correct.sum()) / max(1, int(answered.sum()))
    return loss, accuracy


@dataclass
class TrainResult:
    """A trained model with its history, and ways to look inside it.

    ``history``: a record per logged step (0 = before training): ``step``, ``train_loss``,
    ``val_loss`` (both in eval mode on fixed sets, so their gap measures overfitting) and
    ``val_accuracy`` for tasks with an answer. ``cpu_seconds`` counts the whole process.
    """

    config: TrainConfig
    task: Task
    model: TinyGPT
    history: list[dict[str, float]]
    stopped_early: bool = False
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0
    steps_done: int = 0

    # -- pickled as plain data --------------------------------------------------------------------

    def __getstate__(self) -> dict[str, Any]:
        """The config, the history and the weights: plain data to cross from a worker process."""
        state = {f.name: getattr(self, f.name) for f in fields(self)}
        del state["task"]
        state["model"] = self.model.state_dict()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        """Rebuild the task and the model from the config, then load the weights (bitwise)."""
        state = dict(state)
        cfg = state["config"]
        task = task_for(cfg)
        model = build_model(task, cfg, seeded_generator(cfg.seed, "init"))
        model.load_state_dict(state["model"])
        model.eval()
        self.__dict__.update(state, task=task, model=model)

    # -- measuring ---------------------------------------------------------------------------------

    def evaluate(self, n: int = 1000, seed: int = 7) -> float:
        """Accuracy at the answer positions of ``n`` fresh held-out sequences (teacher forcing)."""
        n = check_int("n", n, 1, MAX_EVALUATE, "held-out sequences")
        generator = torch.Generator().manual_seed(check_seed(seed))
        batch = self.task.sample(n, generator, held_out=True)
        correct = answered = 0
        self.model.eval()
        with torch.no_grad():
            for start in range(0, n, EVALUATE_CHUNK):
                inputs = batch.inputs[start : start + EVALUATE_CHUNK]
                targets = batch.targets[start : start + EVALUATE_CHUNK]
                predicted = self.model(inputs).argmax(dim=-1)
                mask = targets != IGNORE
                correct += int(((predicted == targets) & mask).sum())
                answered += int(mask.sum())
        return correct / max(1, answered)

    def sample_tokens(self, seed: int = DEFAULT_PROMPT_SEED) -> torch.Tensor:
        """One held-out sequence the model never trained on, ``(T,)`` token ids."""
        generator = torch.Generator().manual_seed(check_seed(seed))
        return self.task.sample(1, generator, held_out=True).inputs[0]

    def labels(self, tokens: torch.Tensor | list[int]) -> list[str]:
        """The label of each token (digits, ``t17``, characters with ``␣`` for a space)."""
        return self.task.decode(tokens)

    def _check_tokens(self, tokens: Any) -> torch.Tensor:
        try:
            ids = torch.as_tensor(tokens)
        except (TypeError, ValueError, RuntimeError) as error:
            raise AttentionInputError(
                f"tokens must be a sequence of token ids ({error}).", field="tokens"
            ) from None
        if ids.dim() != 1 or ids.numel() == 0:
            raise AttentionInputError(
                f"tokens must be one non-empty sequence of ids, got shape {tuple(ids.shape)}.",
                field="tokens",
            )
        if ids.dtype.is_floating_point or ids.dtype == torch.bool or ids.is_complex():
            raise AttentionInputError("tokens must be whole-number token ids.", field="tokens")
        if ids.numel() > self.task.context_length:
            raise AttentionInputError(
                f"{ids.numel()} tokens is more than the model's context of "
                f"{self.task.context_length}.",
                field="tokens",
            )
        ids = ids.to(torch.int64)
        bad = (ids < 0) | (ids >= self.task.vocab_size)
        if bool(bad.any()):
            position = int(bad.nonzero()[0, 0])
            raise AttentionInputError(
                f"Token {position + 1} is {int(ids[position])}, not an id of this task "
                f"(0 … {self.task.vocab_size - 1}).",
                field="tokens",
            )
        return ids

    def attention_batch(self, inputs: torch.Tensor) -> torch.Tensor:
        """Softmax attention weights for a batch ``(b, T)``: ``(b, layers, heads, T, T)``.

        A hook on each ``dropout`` layer reads the book's ``attn_weights`` (eval mode: unchanged).
        """
        captured: list[torch.Tensor] = []

        def keep(_module: nn.Module, args: tuple[torch.Tensor, ...], _output: Any) -> None:
            captured.append(args[0].detach())  # (b, heads, T, T)

        handles = [att.dropout.register_forward_hook(keep) for att in self.model.attention_layers()]
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                self.model(inputs)
        finally:
            for handle in handles:
                handle.remove()
            self.model.train(was_training)
        return torch.stack(captured, dim=1)  # (b, layers, heads, T, T)

    def attention(self, tokens: Any) -> torch.Tensor:
        """Softmax weights of every layer and head for one sequence: ``(layers, heads, T, T)``."""
        ids = self._check_tokens(tokens)
        return self.attention_batch(ids[None])[0]

    def initial_attention(self, tokens: Any) -> torch.Tensor:
        """:meth:`attention` of the model *before* training (rebuilt bitwise from its seed)."""
        untrained = build_model(self.task, self.config, seeded_generator(self.config.seed, "init"))
        return replace(self, model=untrained, history=[]).attention(tokens)

    def pattern_scores(self, n: int = 200, seed: int = 7) -> dict[str, torch.Tensor]:
        """Score name → ``(layers, heads)`` mean weight on the position the task needs.

        ``"source"`` (copy, reverse), ``"previous_token"`` (induction, text), ``"induction"``
        (the token after the earlier copy); sort has no single right position, so none.
        """
        n = check_int("n", n, 1, MAX_PATTERN_SEQUENCES, "held-out sequences")
        generator = torch.Generator().manual_seed(check_seed(seed))
        batch = self.task.sample(n, generator, held_out=True)
        weights = self.attention_batch(batch.inputs)  # (b, layers, heads, T, T)
        scores: dict[str, torch.Tensor] = {}
        if self.task.name in ("copy", "reverse", "induction") and batch.sources is not None:
            name = "induction" if self.task.name == "induction" else "source"
            scores[name] = _weight_on(weights, batch.sources)
        if self.task.name in ("induction", "text"):
            T = batch.inputs.shape[1]
            previous = torch.arange(T) - 1  # (T,): position t looks at t − 1; −1 for t = 0
            scores["previous_token"] = _weight_on(weights, previous.expand(n, -1))
        return scores

    # -- the trace code path -----------------------------------------------------------------------

    def attention_layer_inputs(self, tokens: Any, layer: int) -> tuple[torch.Tensor, nn.Module]:
        """``(x, module)``: block ``layer``'s ``MultiHeadAttention`` and its input ``(1, T, d)``.

        A trace of ``module`` on ``x`` shows the trained head step by step.
        """
        ids = self._check_tokens(tokens)
        layers = self.model.attention_layers()
        layer = check_int("layer", layer, 0, len(layers) - 1, "the block, counted from 0")
        captured: list[torch.Tensor] = []

        def keep(_module: nn.Module, args: tuple[torch.Tensor, ...]) -> None:
            captured.append(args[0].detach().clone())

        handle = layers[layer].register_forward_pre_hook(keep)
        self.model.eval()
        try:
            with torch.no_grad():
                self.model(ids[None])
        finally:
            handle.remove()
        return captured[0], layers[layer]


def _weight_on(weights: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """Mean weight that queries put on ``positions`` ``(b, T)`` (−1 = not counted): ``(L, H)``."""
    b, layers, heads, T, _ = weights.shape
    counted = positions >= 0  # (b, T)
    index = positions.clamp(min=0)[:, None, None, :, None].expand(b, layers, heads, T, 1)
    picked = weights.gather(-1, index).squeeze(-1)  # (b, layers, heads, T)
    mask = counted[:, None, None, :].to(picked.dtype)
    return (picked * mask).sum(dim=(0, 3)) / mask.sum(dim=(0, 3)).clamp(min=1)


# --- training --------------------------------------------------------------------------------------


def _learning_rate(cfg: TrainConfig, step: int) -> float:
    """Linear warm-up over 5% of the steps, then a cosine down to a tenth of the peak."""
    warmup = max(1, int(cfg.steps * WARMUP_FRACTION))
    if step < warmup:
        return cfg.learning_rate * (step + 1) / warmup
    progress = (step - warmup) / max(1, cfg.steps - warmup)
    cosine = 0.5 * (1 + math.cos(math.pi * progress))
    return cfg.learning_rate * (FINAL_LR_FRACTION + (1 - FINAL_LR_FRACTION) * cosine)


def _evaluation_sets(task: Task, seed: int) -> tuple[TaskBatch, TaskBatch]:
    """Fixed training and held-out sets behind every logged loss (drawn once per run)."""
    if isinstance(task, TextTask):
        held_out = task.all_windows(held_out=True)  # the whole held-out tenth, every position
        count = held_out.inputs.shape[0]
        training = task.sample(max(count, 32), seeded_generator(seed, "train-eval"))
        return training, held_out
    training = task.sample(EVAL_SEQUENCES, seeded_generator(seed, "train-eval"))
    held_out = task.sample(EVAL_SEQUENCES, seeded_generator(seed, "val"), held_out=True)
    return training, held_out


def _record(
    model: nn.Module, task: Task, step: int, training: TaskBatch, held_out: TaskBatch
) -> dict[str, float]:
    model.eval()
    with torch.no_grad():
        train_loss, _ = _loss_and_accuracy(model, training)
        val_loss, val_accuracy = _loss_and_accuracy(model, held_out)
    model.train()
    record: dict[str, float] = {
        "step": step,
        "train_loss": float(train_loss),
        "val_loss": float(val_loss),
    }
    if task.has_accuracy:
        record["val_accuracy"] = val_accuracy
    return record


ProgressCallback = Callable[[dict[str, float]], Any]


def train(
    cfg: TrainConfig,
    on_progress: ProgressCallback | None = None,
    *,
    should_stop: Callable[[], bool] | None = None,
) -> TrainResult:
    """Train a :class:`TinyGPT` on ``cfg``'s task and return the model with its history.

    AdamW, clipped gradients, warm-up then cosine learning rate. Every ``log_every`` steps
    ``on_progress(record)`` may return ``False`` to stop; ``should_stop()`` is asked every step.
    """
    wall_start, cpu_start = time.perf_counter(), time.process_time()
    cfg = _check_config(cfg).resolved()
    if should_stop is not None and not callable(should_stop):
        raise AttentionInputError(
            f"should_stop must be a function of no arguments, got {_kind(should_stop)}.",
            field="should_stop",
        )
    if on_progress is not None and not callable(on_progress):
        raise AttentionInputError(
            f"on_progress must be a function of one record, got {_kind(on_progress)}.",
            field="on_progress",
        )
    task = task_for(cfg)
    model = build_model(task, cfg, seeded_generator(cfg.seed, "init"))
    data = seeded_generator(cfg.seed, "data")
    training_set, held_out_set = _evaluation_sets(task, cfg.seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.learning_rate, weight_decay=0.01)
    history: list[dict[str, float]] = []
    stopped = False
    steps_done = 0

    def log(step: int) -> bool:
        record = _record(model, task, step, training_set, held_out_set)
        history.append(record)
        return on_progress is not None and on_progress(dict(record)) is False

    with private_dropout(model, seeded_generator(cfg.seed, "dropout")):
        model.train()
        stopped = log(0)
        for step in range(1, cfg.steps + 1):
            if stopped:
                break
            if should_stop is not None and should_stop():
                stopped = True
                if history[-1]["step"] != steps_done:
                    log(steps_done)
                break
            for group in optimizer.param_groups:
                group["lr"] = _learning_rate(cfg, step - 1)
            batch = task.sample(cfg.batch_size, data)
            loss, _ = _loss_and_accuracy(model, batch)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), GRAD_CLIP)
            optimizer.step()
            steps_done = step
            if step % cfg.log_every == 0 or step == cfg.steps:
                stopped = log(step)
    optimizer.zero_grad(set_to_none=True)  # the result keeps the weights, not the last gradients
    model.eval()
    return TrainResult(
        config=cfg,
        task=task,
        model=model,
        history=history,
        stopped_early=stopped,
        wall_seconds=time.perf_counter() - wall_start,
        cpu_seconds=time.process_time() - cpu_start,
        steps_done=steps_done,
    )


# --- with and without dropout ----------------------------------------------------------------------


@dataclass
class DropoutComparison:
    """Two trainings on the same data and seed, one without attention dropout and one with it.

    ``gap_*`` = final validation − training loss: how much was learned by heart. A stopped first
    run skips the second (``gap_with`` NaN); a stopped second cuts both curves to shared steps.
    """

    without: TrainResult
    with_dropout: TrainResult | None
    dropout: float
    steps: list[int]
    train_loss_without: list[float]
    val_loss_without: list[float]
    train_loss_with: list[float]
    val_loss_with: list[float]

    @property
    def complete(self) -> bool:
        return self.with_dropout is not None and not (
            self.without.stopped_early or self.with_dropout.stopped_early
        )

    @property
    def gap_without(self) -> float:
        return self.val_loss_without[-1] - self.train_loss_without[-1]

    @property
    def gap_with(self) -> float:
        if not self.val_loss_with:
            return math.nan
        return self.val_loss_with[-1] - self.train_loss_with[-1]

    @property
    def gap_narrowed(self) -> bool:
        return self.gap_with < self.gap_without  # False when gap_with is NaN

    def to_dict(self) -> dict[str, Any]:
        """The curves and the gaps as plain numbers (for a table, a download or JSON)."""
        return {
            "dropout": self.dropout,
            "complete": self.complete,
            "steps": self.steps,
            "train_loss_without": self.train_loss_without,
            "val_loss_without": self.val_loss_without,
            "train_loss_with": self.train_loss_with,
            "val_loss_with": self.val_loss_with,
            "gap_without": self.gap_without,
            "gap_with": self.gap_with,
            "gap_narrowed": self.gap_narrowed,
        }


def compare_dropout(
    cfg: TrainConfig | None = None,
    dropout: float | None = None,
    on_progress: Callable[[str, dict[str, float]], Any] | None = None,
    *,
    should_stop: Callable[[], bool] | None = None,
) -> DropoutComparison:
    """Train ``cfg`` (default: the text task) twice, with dropout 0 and with ``dropout``.

    Same data and initial weights, so the runs differ only by the dropout masks.
    ``on_progress(run, record)`` gets ``run`` = ``"without"`` or ``"with"``, as in :func:`train`.
    """
    cfg = (TrainConfig(task="text") if cfg is None else _check_config(cfg)).resolved()
    if dropout is None:
        dropout = cfg.dropout if cfg.dropout > 0 else TASK_DEFAULTS["text"].dropout
    dropout = check_dropout(dropout)
    if not 0.0 < dropout < 1.0:
        raise AttentionInputError(
            f"To compare, dropout must be above 0 and below 1, got {dropout}.",
            field="dropout",
            code="compare_dropout_range",
            params={"value": dropout},
        )

    def progress_for(run: str) -> ProgressCallback | None:
        if on_progress is None:
            return None
        return lambda record: on_progress(run, record)

    if on_progress is not None and not callable(on_progress):
        raise AttentionInputError(
            f"on_progress must be a function of (run, record), got {_kind(on_progress)}.",
            field="on_progress",
        )
    without = train(replace(cfg, dropout=0.0), progress_for("without"), should_stop=should_stop)
    with_dropout = None
    if not without.stopped_early:
        with_dropout = train(
            replace(cfg, dropout=dropout), progress_for("with"), should_stop=should_stop
        )
    with_history = [] if with_dropout is None else with_dropout.history
    count = len(without.history) if with_dropout is None else len(with_history)
    return DropoutComparison(
        without=without,
        with_dropout=with_dropout,
        dropout=dropout,
        steps=[int(r["step"]) for r in without.history[:count]],
        train_loss_without=[r["train_loss"] for r in without.history[:count]],
        val_loss_without=[r["val_loss"] for r in without.history[:count]],
        train_loss_with=[r["train_loss"] for r in with_history],
        val_loss_with=[r["val_loss"] for r in with_history],
    )
