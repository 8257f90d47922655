"""``python -m attention``: the seed document's run, printed.

Builds the batch of two copies of the book's six embeddings, seeds torch, runs ``CausalAttention``
(or a multi-head class) through :func:`trace_attention` and prints what the document prints::

    python -m attention                       # the book: seed 123, d_out 2, no dropout
    python -m attention --dropout 0.5 --seed 7
    python -m attention --heads 2 --variant wrapper
    python -m attention --text "the cat sat on the mat" --json
    python -m attention --grad                # also d loss / d W for loss = context_vecs.sum()

Bad options exit with status 2 and a plain message on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

import torch

from .examples import BOOK_EMBEDDINGS, BOOK_TOKENS, embed_words, split_words
from .trace import AttentionConfig, trace_attention
from .validate import AttentionInputError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m attention",
        description="Run the book's causal attention on a batch and print the context vectors.",
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
    parser.add_argument("--json", action="store_true", help="print JSON for scripts")
    return parser


def _inputs(text: str | None) -> tuple[list[str], torch.Tensor]:
    if text is None:
        return list(BOOK_TOKENS), BOOK_EMBEDDINGS
    words = split_words(text)
    if not words:
        raise AttentionInputError("--text is empty: give at least one word.", field="text")
    return words, embed_words(words, d_in=3)


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)  # exits with status 2 on malformed options
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

    context_length = trace.config.context_length
    if args.json:
        print(
            json.dumps(
                {
                    "tokens": tokens,
                    "batch_shape": list(batch.shape),
                    "context_length": context_length,
                    "context_vecs": trace.output.tolist(),
                    "shape": list(trace.output.shape),
                    "trace": trace.to_dict(),
                }
            )
        )
        return 0
    print("batch:\n", batch)
    print("batch.shape:", batch.shape)
    print("context_length:", context_length)
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
