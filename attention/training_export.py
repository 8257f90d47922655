"""Take a training home: its weights, and a script that trains them again and checks they match.

::

    weights_bytes(result.model)                      # torch.save(state_dict) as bytes: a .pt
    weights_fingerprint(result.model.state_dict())   # SHA-256 of every tensor, in order
    retrain_script(result.config, fingerprint)

The script (it needs the package) retrains with every field of the config written out and
compares the new weights' fingerprint (and, given the ``.pt`` file, every tensor); it prints
``same weights: True`` and exits 0, or ``False`` and 1. Bitwise equality needs the same torch
build and thread count, so the script sets the training's. An uploaded text goes into the script
as base64 (nothing in it can be read as code).
"""

from __future__ import annotations

import base64
import hashlib
import io
from collections.abc import Mapping
from dataclasses import fields

import torch
import torch.nn as nn

from .export import PACKAGE_NEEDED, package_imports
from .training import TrainConfig, _check_config
from .validate import AttentionInputError, check_instance, check_int, check_tensor, describe

__all__ = [
    "RETRAIN_SCRIPT_NAME",
    "WEIGHTS_FILE_NAME",
    "retrain_script",
    "weights_bytes",
    "weights_fingerprint",
]

WEIGHTS_FILE_NAME = "attention_lab_weights.pt"
RETRAIN_SCRIPT_NAME = "retrain_attention_lab.py"
_BASE64_LINE = 76  # characters per line of an embedded text


def weights_bytes(model: nn.Module) -> bytes:
    """``torch.save(model.state_dict())`` into bytes: load with ``torch.load(f, weights_only=True)``."""
    check_instance("model", model, nn.Module)
    buffer = io.BytesIO()
    torch.save(model.state_dict(), buffer)
    return buffer.getvalue()


def weights_fingerprint(state_dict: dict[str, torch.Tensor]) -> str:
    """SHA-256 over every tensor's name, dtype, shape and bytes, in the state dict's order: equal
    exactly when the tensors are bitwise equal under the same names.
    """
    check_instance("state_dict", state_dict, Mapping, " (from model.state_dict())")
    for name, tensor in state_dict.items():
        check_tensor(f"state_dict[{describe(name, 40)}]", tensor)
    digest = hashlib.sha256()
    for name, tensor in state_dict.items():
        values = tensor.detach().cpu().contiguous()
        digest.update(f"{name}|{values.dtype}|{tuple(values.shape)}|".encode())
        digest.update(values.numpy().tobytes() if values.numel() else b"")
    return digest.hexdigest()


def _text_lines(text: str | bytes) -> list[str]:
    """The lines that set ``TEXT`` to exactly ``text`` (bytes stay bytes, a str stays a str)."""
    raw = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    encoded = base64.b64encode(raw).decode("ascii")
    chunks = [encoded[i : i + _BASE64_LINE] for i in range(0, len(encoded), _BASE64_LINE)]
    decode = "" if isinstance(text, bytes) else '.decode("utf-8", "surrogatepass")'
    return [
        "# the text the model trained on, as base64 (exactly the uploaded bytes)",
        "TEXT = base64.b64decode(",
        *(f'    "{chunk}"' for chunk in chunks),
        f"){decode}",
        "",
    ]


def retrain_script(
    cfg: TrainConfig, fingerprint: str, threads: int = 1, stopped_at: int | None = None
) -> str:
    """A Python script that retrains ``cfg`` (resolved: no default of today) with ``threads`` and
    checks the weights against ``fingerprint``; ``stopped_at``: where a stopped training ended (a
    shorter run would follow another learning-rate schedule). Save it as
    :data:`RETRAIN_SCRIPT_NAME`.
    """
    cfg = _check_config(cfg)
    if (
        not isinstance(fingerprint, str)
        or len(fingerprint) != 64
        or fingerprint.strip("0123456789abcdef")
    ):
        raise AttentionInputError(
            "fingerprint must be a SHA-256 hex digest (weights_fingerprint), got "
            f"{describe(fingerprint)}.",
            field="fingerprint",
        )
    threads = check_int("threads", threads, 1, 4096, "the threads the training used")
    if stopped_at is not None:
        stopped_at = check_int("stopped_at", stopped_at, 0, 10**9, "the step training stopped at")
    text = cfg.text
    arguments = [
        f"    {f.name}={getattr(cfg, f.name)!r},"
        for f in fields(cfg)
        if f.name != "text" and getattr(cfg, f.name) is not None
    ]
    if text is not None:
        arguments.append("    text=TEXT,")
    lines = [
        *_script_preamble(with_text=text is not None, threads=threads),
        "",
        *(_text_lines(text) if text is not None else []),
        "cfg = TrainConfig(",
        *arguments,
        ")",
        f'EXPECTED = "{fingerprint}"  # weights_fingerprint of the weights the app trained',
        "",
        *_script_check(stopped_at),
    ]
    return "\n".join(lines) + "\n"


def _script_preamble(*, with_text: bool, threads: int) -> list[str]:
    """The script's docstring (how to install and run it), its imports and its thread count."""
    return [
        '"""Retrain an Attention Lab model with the same settings and check it gets the same weights.',
        "",
        *PACKAGE_NEEDED,
        "then run this file in any folder:",
        f"    python {RETRAIN_SCRIPT_NAME}                           # compare with the fingerprint",
        f"    python {RETRAIN_SCRIPT_NAME} {WEIGHTS_FILE_NAME}   # and with the downloaded weights",
        'It prints the final losses, then "same weights: True" (exit code 0) or False (exit code 1).',
        f"Made with torch {torch.__version__}; another torch build or machine may add numbers in",
        "another order and differ in the last bits.",
        '"""',
        "",
        *(["import base64"] if with_text else []),
        "import sys",
        "",
        "import torch",
        "",
        *package_imports(
            [
                "from attention.training import TrainConfig, train",
                "from attention.training_export import weights_fingerprint",
            ]
        ),
        "",
        f"torch.set_num_threads({threads})  # as in the app: the thread count changes the last bits",
    ]


def _script_check(stopped_at: int | None) -> list[str]:
    """Train (stopping where the app stopped), print the losses, compare the weights, exit 0/1."""
    return [
        *(
            [
                f"STOPPED_AT = {int(stopped_at)}  # the app's training was stopped after this step",
                'result = train(cfg, on_progress=lambda record: record["step"] < STOPPED_AT)',
            ]
            if stopped_at is not None
            else ["result = train(cfg)"]
        ),
        "last = result.history[-1]",
        "print(f\"step {last['step']}: train loss {last['train_loss']:.4f}, "
        "validation loss {last['val_loss']:.4f}\")",
        "weights = result.model.state_dict()",
        "same = weights_fingerprint(weights) == EXPECTED",
        "if len(sys.argv) > 1:",
        "    saved = torch.load(sys.argv[1], weights_only=True)",
        "    same_file = saved.keys() == weights.keys() and all(",
        "        torch.equal(saved[name], weights[name]) for name in weights",
        "    )",
        '    print(f"same as {sys.argv[1]}: {same_file}")',
        "    same = same and same_file",
        'print(f"same weights: {same}")',
        "sys.exit(0 if same else 1)",
    ]
