"""The checker's other side: load a learner's class, run the calls the checker sends, and send back
each output as plain numbers, copied the moment the call returns.

It decides nothing: :mod:`attention.check` computes the book's side and judges. A file runs as
``python -I check_harness.py RESULT_FD REQUEST_FILE`` (no ``PYTHON*`` variable, no user site, no
current folder on ``sys.path``; it imports torch only). Results go out as one JSON line each on a
pipe; a line is written whole, so a kill falls between two lines.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import torch
import torch.nn as nn

MAX_VALUES = 4096  # numbers sent for one output; the checker's outputs have at most a few dozen
TEXT_LIMIT = 300  # characters of an error message sent back

Emit = Callable[[dict[str, Any]], None]


class LoadError(Exception):
    """A file that cannot give the checker its class: ``kind`` says why, ``detail`` the facts."""

    def __init__(self, kind: str, **detail: Any) -> None:
        super().__init__(kind)
        self.kind, self.detail = kind, detail


def shortened(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def error_text(error: BaseException) -> str:
    try:
        message = str(error)
    except Exception:  # a learner's exception whose __str__ raises
        message = "(its message could not be read)"
    return f"{type(error).__name__}: {shortened(message)}"


def load_class(target: str) -> type:
    """The class named by ``"path/to/file.py:ClassName"``, imported as Python imports a file (its
    folder first on ``sys.path``, its module in ``sys.modules``); else :class:`LoadError`.
    """
    path_text, _, class_name = target.rpartition(":")
    path = Path(path_text)
    folder = str(path.resolve().parent)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    module_name = path.stem if path.stem not in sys.modules else f"_checked_{path.stem}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise LoadError("not_python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # the learner's file
        raise LoadError("import", error=error_text(error)) from None
    found = getattr(module, class_name, None)
    if not isinstance(found, type):
        classes = sorted(
            n for n, v in vars(module).items() if isinstance(v, type) and v.__module__ == spec.name
        )
        raise LoadError("no_class", classes=classes[:20])
    if not issubclass(found, nn.Module):
        raise LoadError("not_module")
    return found


def _global_settings() -> dict[str, str]:
    """The torch settings a class can change for everything after it."""
    return {
        "default dtype": str(torch.get_default_dtype()),
        "default device": str(torch.get_default_device()),
        "gradient mode": str(torch.is_grad_enabled()),
        "deterministic algorithms": str(torch.are_deterministic_algorithms_enabled()),
        "anomaly detection": str(torch.is_anomaly_enabled()),
    }


def construct(cls: type, build: dict[str, Any], multi_head: bool) -> nn.Module:
    """``cls`` built with the book's arguments, its initial draws from a forked global generator."""
    args = (build["d_in"], build["d_out"], build["context_length"], build["dropout"])
    with torch.random.fork_rng(devices=[]):
        return cls(*args, build["num_heads"]) if multi_head else cls(*args)


def _off_the_cpu(module: nn.Module) -> str | None:
    """A parameter or buffer away from the CPU, as text, or None: a layer built on ``meta`` holds no
    numbers, yet a forward pass mixing it with a CPU input returns whatever the memory held.
    """
    for name, tensor in (*module.named_parameters(), *module.named_buffers()):
        if tensor.device.type != "cpu":
            return (
                f"its {name} is on device '{tensor.device}', expected 'cpu' (the input's device; "
                "build the layers on the CPU, torch's default device)"
            )
    return None


def copy_weights(weights: dict[str, dict[str, Any]], module: nn.Module) -> str | None:
    """Copy the book's weights (``weight`` ``(d_out, d_in)``, ``bias``) into ``module`` by the
    book's names; a problem as text, or None. The learner's layer may be an ``nn.Linear`` or a
    parameter ``(d_in, d_out)`` used as ``x @ W`` (``SelfAttention_v1``'s way).
    """
    missing = [name for name in weights if not hasattr(module, name)]
    if missing:
        return (
            f"it has no {', '.join(missing)}: the checker gives your module the book's weights "
            f"by the book's names ({', '.join(weights)}), so name your layers so"
        )
    with torch.no_grad():
        for name, source in weights.items():
            weight, bias = source["weight"], source["bias"]
            target = getattr(module, name)
            if isinstance(target, nn.Linear) and target.weight.shape == weight.shape:
                target.weight.copy_(weight)
                if (target.bias is None) != (bias is None):
                    return f"{name} has {'a' if target.bias is not None else 'no'} bias, unlike the book's"
                if target.bias is not None:
                    target.bias.copy_(bias)
            elif isinstance(target, torch.Tensor) and target.shape == weight.T.shape:
                target.copy_(weight.T)
            else:
                held = getattr(target, "weight", target)
                shape = (
                    tuple(held.shape) if isinstance(held, torch.Tensor) else type(target).__name__
                )
                return (
                    f"{name} is {shape}, expected an nn.Linear({weight.shape[1]}, "
                    f"{weight.shape[0]}) as in the book"
                )
    return None


def output_record(output: Any) -> dict[str, Any]:
    """What the learner's forward returned, as plain data: copied now, before any later call
    can overwrite a buffer it shares. Numbers go only for a plain CPU float32 tensor."""
    if not isinstance(output, torch.Tensor):
        return {"kind": "object", "type": shortened(type(output).__name__, 80)}
    if type(output) not in (torch.Tensor, nn.Parameter):
        return {"kind": "subclass", "type": shortened(type(output).__name__, 80)}
    record: dict[str, Any] = {
        "kind": "tensor",
        "dtype": str(output.dtype),
        "device": str(output.device),
        "shape": list(output.shape),
    }
    if output.device.type == "cpu" and output.dtype == torch.float32:
        if output.numel() <= MAX_VALUES:
            record["values"] = output.detach().reshape(-1).tolist()
    return record


def seeded_forward(module: nn.Module, x: torch.Tensor, seed: int) -> Any:
    """``module(x)`` right after ``torch.manual_seed(seed)`` (a learner's dropout draws from the
    global generator), its state put back afterwards.
    """
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        torch.default_generator.manual_seed(seed)  # the CPU generator, as torch.manual_seed
        return module(x.clone())


def run_calls(
    cls: type, plan: dict[str, Any], multi_head: bool, emit: Emit, stage: Callable[[str], None]
) -> None:
    """Build the modules of ``plan["builds"]`` and run each call of ``plan["calls"]`` (build,
    weights, mode, input, seed), sending each output at once.
    """
    modules: dict[int, nn.Module] = {}
    for index, build in enumerate(plan["builds"]):
        stage("build")
        try:
            module = construct(cls, build, multi_head)
            problem = _off_the_cpu(module)
        except Exception as error:  # the learner's constructor
            emit({"build": index, "error": error_text(error)})
            continue
        if problem is not None:
            emit({"build": index, "error": problem, "device": True})
            continue
        modules[index] = module
        emit({"build": index})
    for index, call in enumerate(plan["calls"]):
        module = modules.get(call["build"])
        if module is None:
            continue
        stage("forward")
        try:
            problem = copy_weights(call["weights"], module)
            if problem is not None:
                emit({"call": index, "weights": problem})
                continue
            module.train(call["training"])
            record = output_record(seeded_forward(module, call["x"], call["seed"]))
        except Exception as error:  # the learner's forward pass
            emit({"call": index, "raised": error_text(error)})
            continue
        emit({"call": index, "output": record})


def run(target: type | str, request: dict[str, Any], emit: Emit) -> None:
    """The whole child side: load the class, pick the plan for its kind (``"single"``, ``"multi"``),
    run it, say done.
    """
    stage_now = ["start"]

    def stage(name: str) -> None:
        if name != stage_now[0]:
            stage_now[0] = name
            emit({"stage": name})

    before = _global_settings()
    try:
        if isinstance(target, str):
            stage("import")
            try:
                target = load_class(target)
            except LoadError as error:
                emit({"load_error": error.kind, **error.detail})
                return
        multi_head = request["multi_head"]
        if multi_head is None:
            multi_head = _has_num_heads(target)
        emit({"kind": "multi" if multi_head else "single"})
        run_calls(target, request["multi" if multi_head else "single"], multi_head, emit, stage)
        after = _global_settings()
        changed = [f"{k} {before[k]} -> {after[k]}" for k in before if after[k] != before[k]]
        emit({"done": True, "changed": changed})
    except SystemExit as error:  # sys.exit() in the class's file, __init__ or forward
        code = error.code if error.code is None or isinstance(error.code, int) else str(error.code)
        emit(
            {"exit": code if not isinstance(code, str) else shortened(code, 80), "at": stage_now[0]}
        )
    except BaseException as error:  # said in words all the same
        emit({"crash": error_text(error), "at": stage_now[0]})


def _has_num_heads(cls: type) -> bool:
    import inspect

    try:
        return "num_heads" in inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False


def line_writer(fd: int) -> Emit:
    """Write each record as one JSON line with one ``os.write`` (whole, or not at all)."""

    def emit(record: dict[str, Any]) -> None:
        data = (json.dumps(record) + "\n").encode()
        while data:
            data = data[os.write(fd, data) :]

    return emit


@contextlib.contextmanager
def printing_to(fd: int) -> Iterator[None]:
    """``print`` and everything written to the standard streams go to ``fd``; reading gets EOF."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115 (the process ends with os._exit)
    sys.stdout = open(1, "w", buffering=1, closefd=False, errors="backslashreplace")  # noqa: SIM115
    sys.stderr = open(2, "w", buffering=1, closefd=False, errors="backslashreplace")  # noqa: SIM115
    yield


def main() -> None:
    """``python -I check_harness.py RESULT_FD REQUEST_FILE TARGET [PACKAGE_ROOT]``; ends with
    ``os._exit``, so no handler the class left behind runs.
    """
    try:
        result_fd = int(sys.argv[1])
        os.set_inheritable(result_fd, False)  # a process the class starts does not get it
        request = torch.load(sys.argv[2], weights_only=True)
        if sys.argv[4:] and sys.argv[4] not in sys.path:  # a file may import attention too
            sys.path.append(sys.argv[4])  # last: what the interpreter finds first comes first
        torch.set_num_threads(1)  # tiny tensors: one thread is fastest
        run(sys.argv[3], request, line_writer(result_fd))
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(0)


if __name__ == "__main__":
    main()
