"""Plain Playwright helpers for driving a Streamlit app (no pytest dependency)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Page

APP_SELECTOR = "[data-testid='stApp']"
SETTLED_SELECTOR = "[data-testid='stApp'][data-test-script-state='notRunning']"
EXCEPTION_SELECTOR = "[data-testid='stException']"

# Resolves once the app has been 'notRunning' for `quiet` ms in a row. Any other
# state (initial, running, rerunRequested, ...) restarts the clock, so a rerun
# that starts shortly after an interaction is waited for, not raced.
_SETTLED_JS = """
(quiet) => {
  const el = document.querySelector("[data-testid='stApp']");
  const now = performance.now();
  if (!el || el.getAttribute("data-test-script-state") !== "notRunning") {
    window.__attentionLabSettledSince = null;
    return false;
  }
  if (window.__attentionLabSettledSince == null) {
    window.__attentionLabSettledSince = now;
  }
  return now - window.__attentionLabSettledSince >= quiet;
}
"""


def wait_settled(page: Page, timeout: float = 60000, *, quiet: float = 400) -> None:
    """Wait until the script run triggered by the last action has finished.

    Requires ``data-test-script-state='notRunning'`` to hold for ``quiet`` ms
    without interruption (a rerun starting in that window resets the clock),
    then returns. ``timeout`` is in ms, like Playwright's.
    """
    page.evaluate("() => { window.__attentionLabSettledSince = null; }")
    page.wait_for_function(_SETTLED_JS, arg=quiet, timeout=timeout, polling=50)


def open_app(
    page: Page, base_url: str, path_and_query: str = "/", *, timeout: float = 60000
) -> None:
    """Go to ``base_url + path_and_query`` and wait for the first run to finish."""
    if not path_and_query.startswith("/"):
        path_and_query = "/" + path_and_query
    page.goto(base_url.rstrip("/") + path_and_query, wait_until="domcontentloaded")
    page.wait_for_selector(APP_SELECTOR, state="attached", timeout=timeout)
    wait_settled(page, timeout=timeout)


def exception_texts(page: Page) -> list[str]:
    """Return the text of every Streamlit exception box on the page."""
    return page.locator(EXCEPTION_SELECTOR).all_inner_texts()


def assert_no_exception(page: Page) -> None:
    """Fail if the page shows any ``st.exception`` / uncaught-error box."""
    texts = exception_texts(page)
    if texts:
        joined = "\n---\n".join(texts)
        print(f"Streamlit exception(s) on {page.url}:\n{joined}")
        raise AssertionError(f"{len(texts)} Streamlit exception(s) on {page.url}:\n{joined}")
