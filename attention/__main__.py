"""``python -m attention``: the book's chapter 3 run, printed.

::

    python -m attention                       # the book: seed 123, d_out 2, no dropout
    python -m attention --dropout 0.5 --heads 2 --variant wrapper
    python -m attention --text "the cat sat on the mat" --json
    python -m attention --grad                # also d loss / d W for loss = context_vecs.sum()
    python -m attention --json --matrices     # also every (T, T) step, in full
    python -m attention check my_attention.py:MyCausalAttention --timeout 30

Bad options exit with status 2 and a plain message on stderr. ``--json`` is written piece by
piece: at thousands of tokens the ``(T, T)`` steps as one JSON string would need many gigabytes
(and a ``print`` over 2 GiB is cut short on a pipe); they are left out unless ``--matrices``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, TextIO

import torch

from .examples import BOOK_EMBEDDINGS, BOOK_TOKENS, embed_words, split_words
from .trace import AttentionConfig, AttentionTrace, trace_attention
from .validate import AttentionInputError

# The steps of a trace that are (batch, [heads,] T, T): T² numbers per sequence (and head) each,
# 16.7 million at 4096 tokens. ``--json`` writes them only with ``--matrices``.
MATRIX_STEPS = (
    "attn_scores",
    "mask",
    "masked_scores",
    "scaled_scores",
    "attn_weights",
    "dropout_mask",
    "dropped_weights",
)

_MATRICES_NOTE = textwrap.fill(
    f"With --matrices also the (T, T) steps: {', '.join(MATRIX_STEPS)} (dropout_mask only while "
    "dropout acts); null stands for -inf, a hidden score. Their NAME_shape keys are always there.",
    width=92,
    initial_indent=" " * 21,
    subsequent_indent=" " * 21,
)
JSON_CONTENTS = f"""\
--json writes one JSON object:
  tokens             the words, in order
  batch_shape        [2, T, d_in]: the batch holds the sequence twice, as in the book
  context_length     T, the size of the causal mask
  context_vecs       the layer's output as nested lists, of shape `shape`
  shape              [2, T, d_out]
  matrices_included  true with --matrices, else false
  trace              config, d_k, dropout_scale, and the trace's tensors as nested lists, each
                     with NAME_shape beside it: inputs, W_query, W_key, W_value (b_query, b_key,
                     b_value with --bias; W_out, b_out and head_context with several heads),
                     queries, keys, values, context, output.
{_MATRICES_NOTE}
Without --matrices the output grows with T; with them as T² (gigabytes at thousands of tokens;
the memory used stays the same, since it is written row by row)."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m attention",
        description="Run the book's causal attention on a batch and print the context vectors. "
        "'python -m attention check FILE.py:ClassName' checks your own class instead.",
        epilog=JSON_CONTENTS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--seed", type=int, default=123, help="torch.manual_seed (default 123)")
    parser.add_argument("--dropout", type=float, default=0.0, help="dropout rate in [0, 1]")
    parser.add_argument("--d-out", type=int, default=2, help="output width (default 2)")
    parser.add_argument("--heads", type=int, default=1, help="number of heads (default 1)")
    parser.add_argument(
        "--variant",
        default="fused",
        help="multi-head class: 'fused' (MultiHeadAttention) or 'wrapper'",
    )
    parser.add_argument("--eval", action="store_true", help="eval mode: dropout does nothing")
    parser.add_argument("--bias", action="store_true", help="qkv_bias=True")
    parser.add_argument("--grad", action="store_true", help="also print d loss / d W (loss = sum)")
    parser.add_argument("--text", help="a sentence to embed instead of the book's six words")
    parser.add_argument(
        "--json", action="store_true", help="print JSON for scripts (contents below)"
    )
    parser.add_argument(
        "--matrices",
        action="store_true",
        help="with --json: also write the (T, T) steps (scores, mask, weights, dropout)",
    )
    return parser


def _inputs(text: str | None) -> tuple[list[str], torch.Tensor]:
    if text is None:
        return list(BOOK_TOKENS), BOOK_EMBEDDINGS
    words = split_words(text)
    if not words:
        raise AttentionInputError("--text is empty: give at least one word.", field="text")
    return words, embed_words(words, d_in=3)


def _json_row(row: torch.Tensor) -> str:
    """One row (or a single number) as JSON, as ``AttentionTrace.to_dict`` writes it."""
    if row.dtype == torch.bool:
        return json.dumps(row.tolist())
    text = json.dumps(row.to(torch.float64).tolist())
    if not bool(torch.isfinite(row).all()):  # −inf (a hidden score) becomes null
        text = text.replace("-Infinity", "null").replace("Infinity", "null")
        text = text.replace("NaN", "null")
    return text


def _write_tensor(out: TextIO, tensor: torch.Tensor) -> None:
    """Nested lists of ``tensor``, written one row at a time (never the whole list at once)."""
    if tensor.dim() <= 1:
        out.write(_json_row(tensor))
        return
    out.write("[")
    for index, part in enumerate(tensor):  # along the first axis
        if index:
            out.write(", ")
        _write_tensor(out, part)
    out.write("]")


def write_json(
    out: TextIO, tokens: list[str], batch: torch.Tensor, trace: AttentionTrace, *, matrices: bool
) -> None:
    """Write the ``--json`` document (``JSON_CONTENTS``) to ``out``, piece by piece; without
    ``matrices`` the steps of ``MATRIX_STEPS`` are left out (their ``_shape`` entries stay).
    """
    head: dict[str, Any] = {
        "tokens": tokens,
        "batch_shape": list(batch.shape),
        "context_length": trace.config.context_length,
        "context_vecs": trace.output.tolist(),
        "shape": list(trace.output.shape),
        "matrices_included": matrices,
    }
    out.write(json.dumps(head)[:-1])  # the object stays open: "trace" follows
    summary = {
        "config": trace.config.to_dict(),
        "d_k": trace.d_k,
        "dropout_scale": trace.dropout_scale,
    }
    out.write(', "trace": ' + json.dumps(summary)[:-1])
    for name, tensor in trace.tensors().items():
        if matrices or name not in MATRIX_STEPS:
            out.write(f", {json.dumps(name)}: ")
            _write_tensor(out, tensor)
        out.write(f", {json.dumps(name + '_shape')}: {json.dumps(list(tensor.shape))}")
    out.write("}}\n")


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["check"]:  # python -m attention check FILE.py:ClassName
        from .check import main as check_main

        try:
            return check_main(argv[1:])
        except KeyboardInterrupt:  # the check's process is ended already (attention.check)
            print(
                "Stopped (Ctrl-C): the check and the process running your class ended.",
                file=sys.stderr,
            )
            return 130
    parser = build_parser()
    args = parser.parse_args(argv)  # exits with status 2 on malformed options
    if args.matrices and not args.json:
        parser.error("--matrices only changes the --json output; add --json.")
    try:
        tokens, inputs = _inputs(args.text)
        batch = torch.stack((inputs, inputs), dim=0)  # (2, T, d_in): a simulated batch
        cfg = AttentionConfig(
            d_out=args.d_out,
            dropout=args.dropout,
            seed=args.seed,
            qkv_bias=args.bias,
            training=not args.eval,
            num_heads=args.heads,
            variant=args.variant,
        )
        trace = trace_attention(batch, cfg)
    except AttentionInputError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2

    if args.json:
        try:
            write_json(sys.stdout, tokens, batch, trace, matrices=args.matrices)
            sys.stdout.flush()
        except BrokenPipeError:  # `... --json | head`: the reader left, nothing more to say
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 1
        return 0
    print("batch:\n", batch)
    print("batch.shape:", batch.shape)
    print("context_length:", trace.config.context_length)
    print("context_vecs:\n", _with_graph(batch, cfg))  # grad_fn=<…>, as the book prints it
    print("context_vecs.shape:", trace.output.shape)
    if args.grad:
        _print_gradients(batch, cfg)
    return 0


def _with_graph(batch: torch.Tensor, cfg: AttentionConfig) -> torch.Tensor:
    """The same context vectors, with the autograd graph the book's module records."""
    from .gradients import forward_with_graph

    return forward_with_graph(batch, cfg)


def _print_gradients(batch: torch.Tensor, cfg: AttentionConfig) -> None:
    """``--grad``: loss = context_vecs.sum(), loss.backward(), and every weight's gradient."""
    from .gradients import format_weight_gradients, trace_gradients

    print(format_weight_gradients(trace_gradients(batch, cfg, loss="sum")))


if __name__ == "__main__":
    raise SystemExit(main())
