"""The server hands out the components' files (``app.py``'s ``/al-assets/`` route).

Each element of a page carries only a loader (``ui.components.loader``); the browser fetches the
file it names from the server once and keeps it. A name no component has is a 404.
"""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from ui import chart, components, link_check, matrix_table, phone  # noqa: F401 - they define

pytestmark = pytest.mark.e2e


def test_the_server_serves_every_components_file_kept_for_good(streamlit_server: str) -> None:
    assert components.ASSETS
    for name, (text, media_type) in components.ASSETS.items():
        with urllib.request.urlopen(f"{streamlit_server}{components.ASSET_PATH}{name}") as answer:
            assert answer.read().decode("utf-8") == text, name
            assert answer.headers["Content-Type"].startswith(media_type), name
            assert "immutable" in answer.headers["Cache-Control"], name
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{streamlit_server}{components.ASSET_PATH}matrix_table.0.js")
    assert missing.value.code == 404
