"""The one registry of the steps (attention.steps) against the trace it describes.

Each field's written shape must be the shape a real trace has; the per-head fields must be the
ones that get a head axis; the export must write exactly the registry's fields, in its order.
"""

from __future__ import annotations

import re

from attention import AttentionConfig, trace_attention
from attention.examples import BOOK_EMBEDDINGS, BOOK_TOKENS
from attention.export import csv_field, csv_file_names, export_files
from attention.steps import FIELDS, PER_HEAD_FIELDS, STEPS, step_named, step_number


def _sizes(shape: str, sizes: dict[str, int]) -> tuple[int, ...]:
    """``"(b, T, d_out)"`` with b=1, T=6 … → ``(1, 6, 2)``."""
    names = [name.strip() for name in shape.strip("()").split(",") if name.strip()]
    return tuple(sizes[name] for name in names)


def test_every_written_shape_is_the_shape_of_a_one_head_trace() -> None:
    cfg = AttentionConfig(d_out=2, qkv_bias=True, dropout=0.5)  # every optional field present
    trace = trace_attention(BOOK_EMBEDDINGS, cfg)
    sizes = {"b": 1, "T": 6, "d_in": 3, "d_out": 2}
    one_head = [field for field in FIELDS if not field.heads_only]
    assert len(one_head) == 19
    for field in one_head:
        assert tuple(getattr(trace, field.name).shape) == _sizes(field.shape, sizes), field.name


def test_per_head_fields_are_exactly_those_with_a_head_axis() -> None:
    cfg = AttentionConfig(d_out=4, num_heads=2, dropout=0.5, variant="fused")
    trace = trace_attention(BOOK_EMBEDDINGS, cfg)
    with_head_axis = {
        field.name
        for field in FIELDS
        if field.role == "step" and not field.heads_only and field.name != "mask"
        if getattr(trace, field.name).dim() == 4  # (b, h, T, ·)
    }
    assert with_head_axis == set(PER_HEAD_FIELDS)
    assert trace.attn_weights.shape == (1, 2, 6, 6) and trace.context.shape == (1, 6, 4)


def test_the_export_writes_the_registrys_fields_in_its_order_with_its_readme_lines() -> None:
    trace = trace_attention(BOOK_EMBEDDINGS, AttentionConfig(num_heads=2, d_out=4, dropout=0.3))
    exported = list(dict.fromkeys(csv_field(name) for name in csv_file_names(trace)))
    order = [field.name for field in FIELDS]
    assert exported == [name for name in order if name in exported]
    assert {"head_context", "W_out", "output", "dropout_mask"} <= set(exported)
    readme = export_files(trace, list(BOOK_TOKENS))["README.txt"]
    for field in FIELDS:
        if field.name in exported:
            assert re.search(
                rf"^  {field.name}(_head1)?\.csv +{re.escape(field.readme)}$", readme, re.M
            )


def test_step_numbers_are_registry_positions_and_names_are_unique() -> None:
    names = [step.name for step in STEPS]
    assert len(set(names)) == len(names) == 10
    assert step_number("embeddings") == 1 and step_number("softmax") == 8
    assert step_named("dropout").fields[1].name == "dropped_weights"
    field_names = [field.name for field in FIELDS]
    assert len(set(field_names)) == len(field_names)
