"""The server must not freeze all sessions for a full garbage collection after every run.

Streamlit runs ``gc.collect()`` after each script run unless ``runner.postScriptGC`` is off; with
torch loaded one full collection walks ~250k objects with the GIL held (~250 ms here, seconds on a
loaded machine), and quick slider moves queue one per rerun: the browser then stops receiving
messages and shows stale numbers. See benchmarks/README.md, "the pause after every run".
"""

from __future__ import annotations

import gc
import tomllib
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def test_streamlit_config_turns_off_the_collection_after_every_run() -> None:
    config = tomllib.loads((REPO_ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["runner"]["postScriptGC"] is False


def test_the_startup_hook_freezes_what_the_libraries_created_at_import() -> None:
    import torch

    import ui.frame
    import viz.image_heatmap

    ui.frame.import_every_page()  # what app.py's startup hook runs before the first visitor

    tracked = {id(obj) for obj in gc.get_objects()}
    assert gc.get_freeze_count() > 50_000
    # long-lived import-time objects sit in the permanent generation, out of the collector's walk
    assert id(torch.nn.Linear) not in tracked
    assert id(viz.image_heatmap.matrix_image) not in tracked
