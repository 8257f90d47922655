"""The trace cache's key is the frozen AttentionConfig itself: no field can be left out of it.

``ui.computation.compute_trace`` caches by the table's values and the config object. If a field
of ``AttentionConfig`` were not part of the key, two configs differing only in that field would
share one cached trace, and the second would come back with the first one's config. This test
changes each field in turn (a field added to the config must be given a changed value here, or
the test fails and says so) and checks that every change gives its own, right, trace.
"""

from __future__ import annotations

from dataclasses import fields, replace

from attention import AttentionConfig
from tests.cases import subcases
from ui.computation import compute_trace
from ui.table_state import book_table

BASE = AttentionConfig(d_out=2, dropout=0.0, seed=123, qkv_bias=False, training=True)
CHANGED = {  # one other valid value for every field of AttentionConfig
    "d_out": 4,
    "dropout": 0.5,
    "seed": 7,
    "qkv_bias": True,
    "training": False,
    "context_length": 6,
    "num_heads": 2,
    "variant": "wrapper",
    "window": 2,
}


def test_every_config_field_has_a_changed_value_here() -> None:
    names = {field.name for field in fields(AttentionConfig)}
    assert names == set(CHANGED), (
        "AttentionConfig gained or lost a field: give it a changed value in CHANGED, so that "
        f"this test checks it is part of the trace cache key (missing: {names - set(CHANGED)})"
    )


@subcases("name", sorted(CHANGED))
def test_a_config_differing_in_one_field_gets_its_own_trace(name: str) -> None:
    table = book_table()
    base = compute_trace(table, BASE)
    changed_config = replace(BASE, **{name: CHANGED[name]})
    changed = compute_trace(table, changed_config)
    assert changed is not base, f"{name} is not part of the cache key"
    assert changed.config == changed_config.validated(table.num_tokens)
    assert compute_trace(table, changed_config) is changed  # and it is cached
