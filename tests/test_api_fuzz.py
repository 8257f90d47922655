"""Every public function answers a wrong value with ``AttentionInputError``, and a short message.

A table of odd values (wrong types, NaN, huge numbers, a 10-million-item list, views of a few bytes
that claim billions of cells, tensors without values…) goes into each argument of each public
function of ``attention``, of its chapter and lab modules (``chapter``, ``export``, ``training``,
``kv_cache``…) and of ``viz.notebook`` in turn, the others keeping a value that works. Each
call must either succeed or raise exactly ``AttentionInputError`` whose message is under 300
characters: never a torch error, an ``AttributeError`` or a message that copies the argument out.
The calls run in this process under an address-space limit of 2 GB above what it already uses
(Linux ``RLIMIT_AS``), so a value that makes a function allocate gigabytes before refusing fails
the test with the allocator's error instead of taking the machine's memory.
"""

from __future__ import annotations

import inspect
import math
import resource
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import fields, replace
from typing import Any

import numpy as np
import pytest
import torch

import attention
from attention import (
    AttentionConfig,
    AttentionInputError,
    CausalAttention,
    book_outputs,
    bugs,
    build_module,
    chapter,
    compare_masking,
    differences,
    dropout,
    environment,
    examples,
    experiments,
    export,
    fast_path,
    kv_cache,
    mask_after_softmax,
    mask_with_neg_inf,
    one_query,
    parameter_counts,
    run_traced_forward,
    tasks,
    trace_attention,
    trace_gradients,
    trace_module,
    training,
    training_export,
)
from attention import gradients as grad_api
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.head_trace import one_head
from attention.trace import config_of
from attention.training import TinyGPT, TrainConfig
from tests.cases import subcases
from tests.step_figures import field_view
from viz import notebook
from viz.table_heatmap import matrix_table
from viz.words import FigureWords

MAX_MESSAGE = 300
HEADROOM = 2 * 2**30  # bytes of address space the calls may add: no refusal needs more
HUGE_LIST = [0] * 10_000_000  # 80 MB of pointers to one int: its repr would be 30 MB of text


def _odd_values() -> dict[str, Any]:
    """About forty values no public function should meet with anything but a clear refusal."""
    sparse = torch.zeros(6, 3).to_sparse()
    return {
        "None": None,
        "True": True,
        "0": 0,
        "-1": -1,
        "2.5": 2.5,
        "nan": math.nan,
        "inf": math.inf,
        "10**9": 10**9,
        "10**5000": 10**5000,
        "2**64": 2**64,
        "empty str": "",
        "colourblind": "colourblind",
        "long str": "word " * 20_000,
        "bytes": b"\x00\xff",
        "empty list": [],
        "short list": [1, 2],
        "ragged": [[1.0, 2.0], [3.0]],
        "list of text": [["a", "b", "c"]] * 6,
        "deep list": [[[[[1.0]]]]],
        "10M list": HUGE_LIST,
        "dict": {"d_out": 2},
        "object": object(),
        "function": lambda *_: 0,
        "scalar tensor": torch.tensor(1.0),
        "empty tensor": torch.zeros(0, 3),
        "NaN tensor": torch.full((6, 3), math.nan),
        "float64 tensor": BOOK_EMBEDDINGS.double(),
        "4-D tensor": torch.zeros(1, 1, 6, 3),
        "non-square": torch.zeros(3, 4),
        "bool tensor": torch.ones(6, 3, dtype=torch.bool),
        "complex tensor": torch.zeros(6, 3, dtype=torch.complex64),
        "meta tensor": torch.empty(6, 3, device="meta"),
        "sparse tensor": sparse,
        "expanded 10**10": torch.zeros(1).expand(10**6, 10**4),
        "expanded batch": torch.zeros(1, 1, 1).expand(10**8, 6, 3),
        "broadcast array": np.broadcast_to(np.zeros(1), (10**6, 10**4)),
        "numpy text": np.array([["a"] * 3] * 6),
        "config": AttentionConfig(),
        "float64 module": CausalAttention(3, 2, 6, 0.0).double(),
        "generator": torch.Generator(),
    }


@pytest.fixture(scope="module")
def grads() -> grad_api.GradientTrace:
    return trace_gradients(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5))


@pytest.fixture(scope="module")
def table() -> Any:
    trace = trace_attention(BOOK_EMBEDDINGS)
    words = FigureWords()
    return matrix_table(field_view(trace, "attn_weights", BOOK_TOKENS, words), words)


def _calls(grads: grad_api.GradientTrace, table: Any) -> dict[str, tuple[Callable, dict]]:
    """Each public function with arguments that work (the fuzz replaces one at a time)."""
    trace = trace_attention(BOOK_EMBEDDINGS)
    heads = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(d_out=4, num_heads=2))
    scores = trace.attn_scores[0]  # (6, 6)
    masking = {"attn_scores": scores, "d_k": 2}
    return {
        "trace_attention": (trace_attention, {"inputs": BOOK_EMBEDDINGS, "cfg": AttentionConfig()}),
        "trace_gradients": (
            trace_gradients,
            {
                "inputs": BOOK_EMBEDDINGS,
                "cfg": None,
                "loss": "squared_distance",
                "target": [0.5, -0.5],
                "parameters": None,
            },
        ),
        "build_module": (
            build_module,
            {"d_in": 3, "cfg": AttentionConfig(context_length=6), "generator": None},
        ),
        "run_traced_forward": (
            run_traced_forward,
            {"x": BOOK_EMBEDDINGS.unsqueeze(0), "cfg": AttentionConfig(), "parameters": None},
        ),
        "trace_module": (
            trace_module,
            {"module": CausalAttention(3, 2, 6, 0.5), "inputs": BOOK_EMBEDDINGS, "seed": 0},
        ),
        "mask_after_softmax": (mask_after_softmax, masking),
        "mask_with_neg_inf": (mask_with_neg_inf, masking),
        "compare_masking": (compare_masking, masking),
        "sliding_window_mask": (attention.sliding_window_mask, {"num_tokens": 6, "window": 2}),
        "forward_with_graph": (
            grad_api.forward_with_graph,
            {"inputs": BOOK_EMBEDDINGS, "cfg": None},
        ),
        "gradient_descent": (
            grad_api.gradient_descent,
            {"inputs": BOOK_EMBEDDINGS, "loss": "sum", "learning_rate": 0.1, "steps": 1},
        ),
        "learning_step": (grad_api.learning_step, {"grads": grads, "learning_rate": 0.1}),
        "first_order_change": (grad_api.first_order_change, {"grads": grads, "learning_rate": 0.1}),
        "gradient_facts": (grad_api.gradient_facts, {"grads": grads}),
        "format_weight_gradients": (grad_api.format_weight_gradients, {"grads": grads}),
        "gradients_json": (grad_api.gradients_json, {"grads": grads, "tokens": BOOK_TOKENS}),
        "softmax_row_jacobian": (
            grad_api.softmax_row_jacobian,
            {"grads": grads, "row": 2, "batch": 0, "head": None},
        ),
        "check_descent_size": (grad_api.check_descent_size, {"grads": grads, "steps": 3}),
        "max_descent_steps": (grad_api.max_descent_steps, {"cells": 36}),
        "check_learning_rate": (grad_api.check_learning_rate, {"learning_rate": 0.1}),
        "make_loss": (
            grad_api.make_loss,
            {"loss": "sum", "output_shape": torch.Size([1, 6, 2]), "target": None},
        ),
        "embed_words": (examples.embed_words, {"words": ["the", "cat"], "d_in": 3, "seed": 0}),
        "split_words": (examples.split_words, {"text": "the cat"}),
        "unique_labels": (examples.unique_labels, {"tokens": ["the", "the"]}),
        "one_head": (one_head, {"trace": heads, "head": 1}),
        "config_of": (config_of, {"module": CausalAttention(3, 2, 6, 0.5), "seed": 0}),
        "dropout_scale": (dropout.dropout_scale, {"p": 0.5}),
        "count_kept": (
            dropout.count_kept,
            {"dropout_mask": grads.trace.dropout_mask[0], "mask": grads.trace.mask},
        ),
        "dropout_counts": (dropout.dropout_counts, {"trace": grads.trace, "query": 2, "batch": 0}),
        "bare_draw_differences": (dropout.bare_draw_differences, {"trace": grads.trace}),
        "difference": (differences.difference, {"a": scores, "b": scores + 1}),
        "weights_difference": (
            differences.weights_difference,
            {"trace_a": trace, "trace_b": grads.trace, "batch": 0},
        ),
        "context_difference": (
            differences.context_difference,
            {"trace_a": trace, "trace_b": grads.trace, "batch": 0},
        ),
        "output_change": (
            differences.output_change,
            {
                "inputs_before": BOOK_EMBEDDINGS,
                "context_before": trace.context[0],
                "inputs_after": BOOK_EMBEDDINGS,
                "context_after": grads.trace.context[0],
            },
        ),
        "changed_cells": (differences.changed_cells, {"before": scores, "after": scores}),
        "dot_product_terms": (
            one_query.dot_product_terms,
            {"query": trace.queries[0, 1], "key": trace.keys[0, 0]},
        ),
        "softmax_by_hand": (
            one_query.softmax_by_hand,
            {"scaled_scores": trace.scaled_scores[0, 2], "hidden": trace.mask[2]},
        ),
        "weighted_value_terms": (
            one_query.weighted_value_terms,
            {"weights": trace.attn_weights[0, 2], "values": trace.values[0]},
        ),
        "show_trace": (
            notebook.show_trace,
            {
                "trace": trace,
                "tokens": BOOK_TOKENS,
                "head": 0,
                "palette": "colorblind",
                "words": None,
            },
        ),
        "table_html": (notebook.table_html, {"table": table}),
        "TraceView.step": (notebook.show_trace(trace).step, {"name": "softmax"}),
    }


TINY_TRAIN = {"task": "copy", "layers": 1, "heads": 1, "width": 8, "steps": 1, "batch_size": 1}


def _lab_calls() -> dict[str, tuple[Callable, dict]]:
    """The chapter's and the lab pages' functions, with tiny arguments that work (cheap to fuzz)."""
    trace = trace_attention(BOOK_EMBEDDINGS)
    dropped = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(dropout=0.5))
    weights = trace.attn_weights[0]  # (6, 6)
    sizes = {"d_out": 2, "num_heads": 1, "seed": 0}
    tiny = TrainConfig(**TINY_TRAIN)
    module = fast_path.book_module(3, 2, 1, 6, 0)
    model = TinyGPT(4, 4, 8, 1, 1, 0.0, layer_norm=False, feed_forward=False)
    calls: dict[str, tuple[Callable, dict]] = {
        "simple_attention": (
            chapter.simple_attention,
            {"inputs": BOOK_EMBEDDINGS, "query_index": 1},
        ),
        "self_attention_v1": (
            chapter.self_attention_v1,
            {"inputs": BOOK_EMBEDDINGS, "d_out": 2, "seed": 123, "query_index": 1},
        ),
        "self_attention_v2": (
            chapter.self_attention_v2,
            {"inputs": BOOK_EMBEDDINGS, "d_out": 2, "seed": 789, "query_index": 1},
        ),
        "dropout_demo": (chapter.dropout_demo, {"inputs": BOOK_EMBEDDINGS, "seed": 123, "p": 0.5}),
        "causal_diff": (chapter.causal_diff, {"context": 2}),
        "attention_cells": (export.attention_cells, {"trace": trace}),
        "exportable": (export.exportable, {"trace": trace}),
        "float32_text": (export.float32_text, {"value": 0.5}),
        "matrix_csv": (
            export.matrix_csv,
            {
                "values": weights[:2, :2],
                "row_labels": ["a", "b"],
                "col_labels": ["c", "d"],
                "corner": "",
            },
        ),
        "csv_file_names": (export.csv_file_names, {"trace": trace}),
        "csv_field": (export.csv_field, {"file_name": "attn_weights.csv"}),
        "trace_csv_file": (
            export.trace_csv_file,
            {"trace": trace, "tokens": BOOK_TOKENS, "file_name": "attn_weights.csv"},
        ),
        "trace_csv_files": (export.trace_csv_files, {"trace": trace, "tokens": BOOK_TOKENS}),
        "trace_json_dict": (
            export.trace_json_dict,
            {"trace": trace, "tokens": BOOK_TOKENS, "environment": None},
        ),
        "trace_json": (
            export.trace_json,
            {"trace": trace, "tokens": BOOK_TOKENS, "environment": None},
        ),
        "reproduce_snippet": (
            export.reproduce_snippet,
            {"trace": trace, "tokens": BOOK_TOKENS, "style": "book"},
        ),
        "export_files": (
            export.export_files,
            {"trace": trace, "tokens": BOOK_TOKENS, "environment": None, "gradients": None},
        ),
        "export_zip": (
            export.export_zip,
            {"trace": trace, "tokens": BOOK_TOKENS, "environment": None, "gradients": None},
        ),
        "dropout_on_ones": (environment.dropout_on_ones, {"seed": 123, "p": 0.5, "size": 6}),
        "differing_fields": (environment.differing_fields, {"first": trace, "second": dropped}),
        "recompute_check": (
            environment.recompute_check,
            {"inputs": BOOK_EMBEDDINGS, "cfg": AttentionConfig(), "reference": None},
        ),
        "dropout_draws": (
            experiments.dropout_draws,
            {"attn_weights": weights, "p": 0.5, "num_draws": 2, "seed": 0},
        ),
        "dropout_average": (
            experiments.dropout_average,
            {"attn_weights": weights, "p": 0.5, "num_draws": 2, "seed": 0},
        ),
        "dropout_average_error": (
            experiments.dropout_average_error,
            {"attn_weights": weights, "p": 0.5, "max_draws": 4, "seed": 0, "num_points": 2},
        ),
        "loglog_slope": (experiments.loglog_slope, {"x": [1.0, 2.0, 4.0], "y": [1.0, 0.7, 0.5]}),
        "random_queries_keys": (
            experiments.random_queries_keys,
            {"d_k": 4, "num_queries": 2, "num_tokens": 3, "seed": 0},
        ),
        "row_entropy": (experiments.row_entropy, {"weights": weights}),
        "softmax_gradient_norm": (experiments.softmax_gradient_norm, {"weights": weights}),
        "softmax_saturation": (
            experiments.softmax_saturation,
            {"d_k_values": [4], "num_tokens": 3, "seed": 0, "scaled": True, "num_queries": 2},
        ),
        "saturation_example_row": (
            experiments.saturation_example_row,
            {"d_k": 4, "num_tokens": 3, "seed": 0, "scaled": True},
        ),
        "score_variance": (experiments.score_variance, {"scores": weights, "mask": trace.mask}),
        "quiz_kinds": (experiments.quiz_kinds, {"num_tokens": 6, "dropout_active": False}),
        "quiz_question": (experiments.quiz_question, {"trace": trace, "number": 0}),
        "check_text": (tasks.check_text, {"text": "abcabc " * 40, "context_length": 8}),
        "make_task": (tasks.make_task, {"name": "copy", "length": 4}),
        "TrainConfig.resolved": (lambda **given: TrainConfig(**given).resolved(), dict(TINY_TRAIN)),
        "seeded_generator": (training.seeded_generator, {"seed": 0, "purpose": "init"}),
        "task_for": (training.task_for, {"cfg": tiny.resolved()}),
        "build_model": (
            training.build_model,
            {
                "task": training.task_for(tiny.resolved()),
                "cfg": tiny.resolved(),
                "generator": torch.Generator(),
            },
        ),
        "attend_with_cache": (
            kv_cache.attend_with_cache,
            {"module": module, "x_new": BOOK_EMBEDDINGS[None, :1], "cache": kv_cache.LayerCache()},
        ),
        "cached_steps": (kv_cache.cached_steps, {"cache": kv_cache.LayerCache(), "slip": True}),
        "through_cache": (
            kv_cache.through_cache,
            {"layer": module, "x": BOOK_EMBEDDINGS[None], "generator": None, "slip": True},
        ),
        "retrain_script": (
            training_export.retrain_script,
            {"cfg": tiny, "fingerprint": "0" * 64, "threads": 1, "stopped_at": None},
        ),
        "weights_bytes": (training_export.weights_bytes, {"model": module}),
        "weights_fingerprint": (
            training_export.weights_fingerprint,
            {"state_dict": module.state_dict()},
        ),
        "book_comparison": (book_outputs.book_comparison, {"trace": trace}),
        "book_run_comparison": (
            book_outputs.book_run_comparison,
            {
                "inputs": BOOK_EMBEDDINGS,
                "output": trace.output,
                "seed": 123,
                "d_out": 2,
                "num_heads": 1,
                "variant": "fused",
                "qkv_bias": False,
                "dropout_active": False,
                "window": None,
                "class_name": None,
            },
        ),
        "masking_comparison": (
            book_outputs.masking_comparison,
            {"trace": trace, "weights": trace.attn_weights[0]},
        ),
        "chapter_comparisons": (
            book_outputs.chapter_comparisons,
            {
                "simple": chapter.simple_attention(BOOK_EMBEDDINGS),
                "v1": chapter.self_attention_v1(BOOK_EMBEDDINGS),
                "v2": chapter.self_attention_v2(BOOK_EMBEDDINGS),
            },
        ),
        "normalisations": (chapter.normalisations, {"scores": [1.0, -0.5], "factor": 10.0}),
        "dropout_demo_differences": (
            book_outputs.dropout_demo_differences,
            {"demo": chapter.dropout_demo(BOOK_EMBEDDINGS)},
        ),
        "parameter_count": (
            parameter_counts.parameter_count,
            {"variant": "fused", "d_in": 3, "d_out": 2, "num_heads": 1, "qkv_bias": False},
        ),
        "compare_bug": (
            bugs.compare_bug,
            {"name": next(iter(bugs.BUGS)), "inputs": BOOK_EMBEDDINGS, "cfg": None},
        ),
        "path_source": (fast_path.path_source, {"name": fast_path.PATHS[0]}),
        "book_module": (
            fast_path.book_module,
            {"d_in": 3, "d_out": 2, "num_heads": 1, "context_length": 6, "seed": 0},
        ),
        "fast_path_outputs": (fast_path.fast_path_outputs, {"inputs": BOOK_EMBEDDINGS, **sizes}),
        "compare_fast_paths": (fast_path.compare_fast_paths, {"inputs": BOOK_EMBEDDINGS, **sizes}),
        "measure_fast_paths": (
            fast_path.measure_fast_paths,
            {"token_counts": [4], "budget_s": 0.0, "repeats": 1, "min_seconds": 0.0},
        ),
        "cache_growth": (kv_cache.cache_growth, {"inputs": BOOK_EMBEDDINGS, **sizes}),
        "mask_slice_slip": (kv_cache.mask_slice_slip, {"inputs": BOOK_EMBEDDINGS, **sizes}),
        "decode": (kv_cache.decode, {"token_ids": [0, 1]}),
        "generate": (
            kv_cache.generate,
            {"model": model, "prompt": [0, 1], "new_tokens": 1, "use_cache": True},
        ),
        "generation_model": (kv_cache.generation_model, {"seed": 0}),
        "compare_generation": (
            kv_cache.compare_generation,
            {"prompt_tokens": [0, 1], "new_tokens": 1, "seed": 0},
        ),
        "time_generation": (
            kv_cache.time_generation,
            {"prompt_tokens": [0, 1], "new_tokens": 1, "seed": 0, "budget_s": 0.0},
        ),
        "cache_bytes": (
            kv_cache.cache_bytes,
            {
                "layers": 1,
                "tokens": 4,
                "d_model": 8,
                "kv_heads": 1,
                "heads": 2,
                "bytes_per_value": 4,
                "batch": 1,
            },
        ),
        "sliding_window_step": (attention.window.sliding_window_step, {"window": 2}),
        "earlier_outputs_moved": (
            bugs.earlier_outputs_moved,
            {"forward": CausalAttention(3, 2, 6, 0.0), "x": BOOK_EMBEDDINGS[None], "position": 3},
        ),
    }
    return calls


# Arguments left out of the fuzz: any function is a valid forward pass (what it raises is its
# own); the seeds are fuzzed in generation_model, which the two others call.
NOT_FUZZED = {
    "earlier_outputs_moved.forward",
    "compare_generation.seed",
    "time_generation.seed",
}


@contextmanager
def _address_space_headroom(headroom: int) -> Iterator[None]:
    """Let this process map at most ``headroom`` more bytes until the block ends."""
    status = open("/proc/self/status", encoding="ascii").read()  # noqa: SIM115
    used = int(next(line for line in status.splitlines() if line.startswith("VmSize:")).split()[1])
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = used * 1024 + headroom
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard < 0 else min(limit, hard), hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


CONFIG_FIELDS = tuple(field.name for field in fields(AttentionConfig))


def _config_call(field: str) -> Callable[..., Any]:
    """``trace_attention`` of the book's embeddings with one setting given by keyword."""
    return lambda **given: trace_attention(BOOK_EMBEDDINGS, replace(AttentionConfig(), **given))


def _outcome(function: Callable[..., Any], arguments: dict[str, Any]) -> str | None:
    """``None`` when the call succeeds or refuses properly; else what went wrong, for the report."""
    try:
        function(**arguments)
    except AttentionInputError as error:
        if type(error) is not AttentionInputError:
            return f"a subclass {type(error).__name__}"
        if not 0 < len(str(error)) < MAX_MESSAGE:
            return f"a message of {len(str(error)):,} characters: {str(error)[:120]}…"
    except Exception as error:  # noqa: BLE001 (this is what the test is looking for)
        return f"{type(error).__name__}: {str(error)[:120]}"
    return None


def test_every_public_function_refuses_odd_values_in_words(grads, table) -> None:
    odd = _odd_values()
    calls = _calls(grads, table)
    for name, (function, arguments) in calls.items():
        assert _outcome(function, arguments) is None, name  # the working call works
    calls.update(
        (f"AttentionConfig.{field}", (_config_call(field), {field: None}))
        for field in CONFIG_FIELDS
    )
    failures = _fuzz(calls, odd)
    assert not failures, "\n".join(failures)


def _fuzz(calls: dict[str, tuple[Callable, dict]], odd: dict[str, Any]) -> list[str]:
    """Each odd value in each argument of each call (but :data:`NOT_FUZZED`): what went wrong."""
    failures = []
    with _address_space_headroom(HEADROOM):
        for name, (function, arguments) in calls.items():
            for argument in arguments:
                if f"{name}.{argument}" in NOT_FUZZED:
                    continue
                for label, value in odd.items():
                    problem = _outcome(function, {**arguments, argument: value})
                    if problem:
                        failures.append(f"{name}({argument}={label}): {problem}")
    return failures


def test_the_chapter_and_lab_functions_refuse_odd_values_in_words() -> None:
    calls = _lab_calls()
    for name, (function, arguments) in calls.items():
        assert _outcome(function, arguments) is None, name  # the working call works
    failures = _fuzz(calls, _odd_values())
    assert not failures, "\n".join(failures)


LAB_MODULES = (
    book_outputs,
    bugs,
    chapter,
    environment,
    experiments,
    export,
    fast_path,
    kv_cache,
    parameter_counts,
    tasks,
    training,
    training_export,
    attention.window,
)
# Functions of no arguments, private_dropout (a context manager: it checks on entry), and the
# two that train (their config is fuzzed through TrainConfig.resolved; see the test below).
NO_ARGUMENTS = {
    "train",
    "compare_dropout",
    "environment_info",
    "check_book_outputs",
    "book_source",
    "default_prompt",
    "private_dropout",
}


def test_the_lab_fuzz_covers_every_public_function_of_those_modules(grads, table) -> None:
    """A new public function of a chapter or lab module must join :func:`_lab_calls`."""
    functions = {
        name
        for module in LAB_MODULES
        for name in module.__all__
        if inspect.isfunction(getattr(module, name))
    }
    missing = functions - set(_lab_calls()) - NO_ARGUMENTS - set(_calls(grads, table))
    assert not missing, missing


def test_the_fuzz_covers_every_public_function_of_the_package(grads, table) -> None:
    """A new public function of ``attention/__init__`` must join the table above."""
    functions = {
        name
        for name in attention.__all__
        if callable(getattr(attention, name)) and not isinstance(getattr(attention, name), type)
    }
    assert len(functions) >= 8 and functions <= set(_calls(grads, table)), functions


# --- the failures of issue 27, one by one -------------------------------------------------------


def _refused(function: Callable[..., Any], *args: Any, **kwargs: Any) -> AttentionInputError:
    with pytest.raises(AttentionInputError) as caught:
        function(*args, **kwargs)
    assert len(str(caught.value)) < MAX_MESSAGE
    return caught.value


SCORES = torch.tensor([[0.2, 0.9, -0.4], [0.1, 0.3, 0.8], [-0.5, 0.6, 0.0]])  # (3, 3) raw scores


@subcases("function", [compare_masking, mask_after_softmax, mask_with_neg_inf])
@subcases(
    ("scores", "d_k", "field", "shown"),
    [
        (None, 2, "attn_scores", "got None"),
        (torch.zeros(3, 4), 2, "attn_scores", "shape (3, 4)"),
        (torch.full((3, 3), math.nan), 2, "attn_scores", "NaN"),
        (SCORES, 0, "d_k", "got 0"),
        (SCORES, math.nan, "d_k", "nan"),
    ],
    ids=["None", "not square", "NaN scores", "d_k 0", "d_k NaN"],
)
def test_the_masking_functions_check_scores_and_d_k(function, scores, d_k, field, shown) -> None:
    error = _refused(function, scores, d_k)
    assert error.field == field and shown in str(error)


def test_the_masking_functions_take_numpy_scores_as_the_same_tensor() -> None:
    from_numpy = compare_masking(SCORES.numpy(), 2)
    from_tensor = compare_masking(SCORES, 2)
    assert torch.equal(from_numpy.neg_inf["attn_weights"], from_tensor.neg_inf["attn_weights"])
    assert from_numpy.max_abs_difference == from_tensor.max_abs_difference


@pytest.mark.parametrize(
    ("d_in", "cfg", "field", "shown"),
    [
        (3, AttentionConfig(d_out=4, num_heads=3, context_length=6), "d_out", "divisible"),
        (0, AttentionConfig(context_length=6), "d_in", "got 0"),
        (True, AttentionConfig(context_length=6), "d_in", "got True"),
        (2.5, AttentionConfig(context_length=6), "d_in", "got 2.5"),
        (10**9, AttentionConfig(context_length=6), "d_in", "got 1000000000"),
        (3, AttentionConfig(context_length=-1), "context_length", "got -1"),
        (
            3,
            AttentionConfig(num_heads=64, variant="wrapper", context_length=4096),
            "context_length",
            "64 causal mask",
        ),
        (4097, AttentionConfig(context_length=6), "d_in", "between 1 and 4096"),
        (3, "cfg", "cfg", "got a value of type str"),
    ],
    ids=["4/3 heads", "d_in 0", "bool", "float", "10**9", "context -1", "masks", "4097", "cfg"],
)
def test_build_module_refuses_odd_sizes_before_building(d_in, cfg, field, shown) -> None:
    with _address_space_headroom(HEADROOM):  # 64 masks of 4096² would take 4.3 GB
        error = _refused(build_module, d_in, cfg)
    assert error.field == field and shown in str(error)


def test_run_traced_forward_says_what_it_needs() -> None:
    assert _refused(run_traced_forward, None, AttentionConfig()).field == "inputs"
    assert "3 axes" in str(_refused(run_traced_forward, BOOK_EMBEDDINGS, AttentionConfig()))
    assert _refused(run_traced_forward, BOOK_EMBEDDINGS[None], "cfg").field == "cfg"


def test_a_loss_that_is_neither_a_name_nor_a_function_is_named() -> None:
    error = _refused(trace_gradients, BOOK_EMBEDDINGS, loss=["sum"])
    assert error.field == "loss" and "'sum', 'squared_distance'" in str(error)


def test_a_float64_module_is_refused_in_words() -> None:
    error = _refused(trace_module, CausalAttention(3, 2, 6, 0.0).double(), BOOK_EMBEDDINGS)
    assert error.field == "module" and "torch.float64" in str(error) and ".float()" in str(error)


def test_a_seed_of_5000_digits_is_refused_by_its_size() -> None:
    error = _refused(trace_attention, BOOK_EMBEDDINGS, AttentionConfig(seed=10**5000))
    assert error.field == "seed" and "16,610 bits (about 5,000 digits)" in str(error)


def test_a_ten_million_item_list_is_described_not_copied_into_the_message() -> None:
    error = _refused(trace_attention, BOOK_EMBEDDINGS, AttentionConfig(d_out=HUGE_LIST))
    assert error.field == "d_out" and "a list of 10,000,000 items" in str(error)


@pytest.mark.parametrize(
    ("inputs", "shown"),
    [
        (torch.zeros(1).expand(10**6, 10**4), "Too many tokens: 1000000"),
        (torch.zeros(1, 1, 1).expand(10**8, 6, 3), "1,800,000,000 numbers"),
        (np.broadcast_to(np.zeros(1), (6, 10**8)), "d_in = 100000000"),
    ],
    ids=["expand 2-D", "expand batch", "numpy broadcast"],
)
def test_a_view_of_a_few_bytes_is_refused_by_its_shape_before_any_copy(inputs, shown) -> None:
    with _address_space_headroom(HEADROOM):  # the copy would take 1.8 to 80 GB
        error = _refused(trace_attention, inputs)
    assert error.field == "inputs" and shown in str(error)


def test_show_trace_without_a_trace_or_with_a_misspelt_palette_says_so(six_token_trace) -> None:
    error = _refused(notebook.show_trace, None)
    assert error.field == "trace" and "AttentionTrace" in str(error) and "None" in str(error)
    error = _refused(notebook.show_trace, six_token_trace, palette="colourblind")
    assert error.field == "palette" and "'default', 'colorblind'" in str(error)
    assert "'colourblind'" in str(error)


@pytest.mark.parametrize("function", [training.train, training.compare_dropout])
def test_training_refuses_a_bad_config_before_it_trains(function) -> None:
    assert _refused(function, {"task": "copy"}).field == "cfg"
    assert _refused(function, TrainConfig(**{**TINY_TRAIN, "steps": 10**9})).field == "steps"
    assert _refused(function, TrainConfig(task=["copy"])).field == "task"


def test_compare_bug_names_the_bugs_it_knows() -> None:
    error = _refused(bugs.compare_bug, "mask_invert", BOOK_EMBEDDINGS)
    assert error.field == "name" and "did you mean 'mask_inverted'?" in str(error)
    assert error.params["choices"] == tuple(bugs.BUGS)
    assert "'mask_inverted'" in str(_refused(bugs.compare_bug, None, BOOK_EMBEDDINGS))
