"""The chapter's path's own setting: the seed before ``SelfAttention_v2`` (the book's 789).

In the link as ``v2_seed`` (``ui.url.settings_params``), so a shared link of the chapter's path
shows the same v2 weights; the book's example (``ui.book_examples``) sets it back to 789.
"""

from __future__ import annotations

from attention.chapter import BOOK_SEED_V2

from .settings import MAX_APP_SEED, Setting
from .url import settings_params

V2_SEED_KEY = "v2_seed"  # its session key and URL name

CHAPTER_SETTINGS = {
    V2_SEED_KEY: Setting(
        V2_SEED_KEY,
        BOOK_SEED_V2,
        "number",
        "chapter.v2_seed",
        "chapter.v2_seed_help",
        0,
        MAX_APP_SEED,
        step=1,
    )
}
URL_PARAMS = settings_params(CHAPTER_SETTINGS)

__all__ = ["CHAPTER_SETTINGS", "URL_PARAMS", "V2_SEED_KEY"]
