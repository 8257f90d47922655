"""The open step in the link (``?step=softmax``), presenter mode (``?present=1``) and the arrow keys.

The step page's open step is kept by its registry name (:data:`attention.steps.STEPS`) under
:data:`OPEN_STEP_KEY`, so it does not depend on the language of the tab labels. The URL carries it
as ``step=<name>`` (left out for the first step) and presenter mode as ``present=1``; both are
declared in :data:`URL_PARAMS` (named by the step page's ``PageSpec``), so a shared link (and the share box of the
Reproducibility page, which copies the view's URL) opens the same step, in the same mode.

A link or the presenter's Previous/Next sets a *pending* step (:func:`choose_step`); the step tabs
(:func:`ui.step_view.show_steps` with ``linked=True``) open it once (:func:`take_pending`) and then
report the tab a learner opens (:func:`record_open`), which rewrites the URL at once (a tab switch
reruns only the tabs' fragment, not the frame that rewrites the URL).

:func:`arrow_keys` draws a small component whose fixed JavaScript listens to ←/→ on the whole
document: a rerun replaces the focused tab and the keys would otherwise stop working. Keys typed
into a field (a number, a cell, a slider) or on a focused tab (which moves itself) are left alone.
"""

from __future__ import annotations

import streamlit as st

from attention.steps import STEPS

from .table import InputProblem, problem, shorten
from .url import PageParams

STEP_PARAM = "step"
PRESENT_PARAM = "present"
OPEN_STEP_KEY = "step_open"  # the open step's registry name
PENDING_KEY = "step_pending"  # a step to open once (from a link or presenter mode's buttons)
PRESENT_KEY = "step_present"  # True while presenter mode is on
STEP_NAMES: tuple[str, ...] = tuple(step.name for step in STEPS)
KEYS_CLASS = "al-step-keys"  # the component's marker element: the key handler acts while it exists


def open_step() -> str:
    """The open step's name (the first step until another is opened)."""
    name = st.session_state.get(OPEN_STEP_KEY)
    return name if name in STEP_NAMES else STEP_NAMES[0]


def choose_step(name: str) -> None:
    """Open step ``name`` on the next drawing of the step tabs (and in presenter mode)."""
    st.session_state[OPEN_STEP_KEY] = name
    st.session_state[PENDING_KEY] = name


def take_pending() -> str | None:
    """The step a link or the presenter chose, once (then the tabs keep what a learner opens)."""
    return st.session_state.pop(PENDING_KEY, None)


def record_open(name: str) -> None:
    """The tabs show step ``name``: keep it, and put it in the URL now (a fragment rerun)."""
    if st.session_state.get(OPEN_STEP_KEY) == name and _url_matches(name):
        return
    st.session_state[OPEN_STEP_KEY] = name
    if name == STEP_NAMES[0]:
        if STEP_PARAM in st.query_params:
            del st.query_params[STEP_PARAM]
    else:
        st.query_params[STEP_PARAM] = name


def _url_matches(name: str) -> bool:
    in_url = st.query_params.get(STEP_PARAM)
    return in_url == name or (in_url is None and name == STEP_NAMES[0])


def presenting() -> bool:
    return bool(st.session_state.get(PRESENT_KEY, False))


def set_presenting(on: bool) -> None:
    """Enter or leave presenter mode (a button's callback: the next run draws the other view)."""
    st.session_state[PRESENT_KEY] = on
    choose_step(open_step())  # the tabs open on the step the presenter was showing


def step_by(offset: int) -> None:
    """Presenter mode's Previous (−1) and Next (+1): the neighbouring step, stopping at the ends."""
    index = STEP_NAMES.index(open_step()) + offset
    choose_step(STEP_NAMES[max(0, min(len(STEP_NAMES) - 1, index))])


def _read_url(params: dict[str, str]) -> list[InputProblem]:
    problems: list[InputProblem] = []
    raw = params.get(STEP_PARAM)
    if raw is not None:
        if raw in STEP_NAMES:
            choose_step(raw)
        else:
            problems.append(
                problem("url.bad_step", value=shorten(raw), steps=", ".join(STEP_NAMES))
            )
    raw = params.get(PRESENT_PARAM)
    if raw is not None:
        if raw.strip().lower() in ("1", "true", "yes"):
            st.session_state[PRESENT_KEY] = True
        elif raw.strip().lower() not in ("0", "false", "no"):
            problems.append(problem("url.not_bool", name=PRESENT_PARAM, value=shorten(raw)))
    return problems


def _write_url() -> dict[str, str]:
    params: dict[str, str] = {}
    if open_step() != STEP_NAMES[0]:
        params[STEP_PARAM] = open_step()
    if presenting():
        params[PRESENT_PARAM] = "1"
    return params


URL_PARAMS = PageParams((STEP_PARAM, PRESENT_PARAM), _read_url, _write_url)


# --- the arrow keys and presenter mode's look --------------------------------------------------

_JS = """
export default function (component) {
  const { data, parentElement } = component;
  let marker = parentElement.querySelector('.__CLASS__');
  if (!marker) {
    marker = document.createElement('span');
    parentElement.appendChild(marker);
  }
  marker.className = data.mode === 'present' ? '__CLASS__ __CLASS__-present' : '__CLASS__';
  window.__alStepKeysMode = data.mode;
  if (window.__alStepKeysInstalled) return;
  window.__alStepKeysInstalled = true;
  const skip = 'input, textarea, select, [contenteditable="true"], [role="slider"], [role="tab"]'
    + ', [role="grid"], .gdg-input, [data-testid="stDataFrame"]';
  document.addEventListener('keydown', (event) => {
    if (!document.querySelector('.__CLASS__')) return;  // only while the step page shows
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const key = event.key;
    if (key !== 'ArrowLeft' && key !== 'ArrowRight' && key !== 'Escape') return;
    const target = event.target;
    if (target && target.closest && target.closest(skip)) return;
    const click = (selector) => {
      const button = document.querySelector(selector);
      if (button && !button.disabled) { event.preventDefault(); button.click(); }
    };
    if (window.__alStepKeysMode === 'present') {
      if (key === 'ArrowLeft') click('.st-key-present_previous button');
      else if (key === 'ArrowRight') click('.st-key-present_next button');
      else click('.st-key-present_leave button');
      return;
    }
    if (key === 'Escape') return;
    let tabs = Array.from(document.querySelectorAll('.st-key-step_tabs [role="tab"]'));
    if (!tabs.length) {
      const list = document.querySelector('[data-testid="stMain"] [role="tablist"]');
      tabs = list ? Array.from(list.querySelectorAll('[role="tab"]')) : [];
    }
    if (!tabs.length) return;
    const open = tabs.findIndex((tab) => tab.getAttribute('aria-selected') === 'true');
    const next = open + (key === 'ArrowRight' ? 1 : -1);
    if (open < 0 || next < 0 || next >= tabs.length) return;
    event.preventDefault();
    tabs[next].click();
    tabs[next].focus();
  });
}
""".replace("__CLASS__", KEYS_CLASS)

# Presenter mode: no sidebar (nor its toggle), the page at full width with little padding, and
# larger text; the step's tables a little more compact so that side-by-side tables stay side by
# side on a projector's screen.
_PRESENT_CSS = """
body:has(.__CLASS__-present) [data-testid="stSidebar"],
body:has(.__CLASS__-present) [data-testid="stSidebarCollapsedControl"],
body:has(.__CLASS__-present) [data-testid="stExpandSidebarButton"],
body:has(.__CLASS__-present) header[data-testid="stHeader"] {
  display: none;
}
body:has(.__CLASS__-present) [data-testid="stMainBlockContainer"] {
  max-width: none;
  padding: 0.75rem 1.5rem 1rem 1.5rem;
}
body:has(.__CLASS__-present) [data-testid="stMain"] [data-testid="stMarkdownContainer"] p {
  font-size: 1.15rem;
}
body:has(.__CLASS__-present) table.al-matrix {
  font-size: 0.8rem;  /* two 6 × 7 tables side by side on a projector at 150 % */
}
body:has(.__CLASS__-present) table.al-matrix th,
body:has(.__CLASS__-present) table.al-matrix td {
  padding: 0.15rem 0.35rem;
}
""".replace("__CLASS__", KEYS_CLASS)

_KEYS = st.components.v2.component(
    "attention_lab.step_keys", js=_JS, css=_PRESENT_CSS, isolate_styles=False
)


def arrow_keys(*, present: bool) -> None:
    """←/→ walk the steps (tabs, or presenter mode's Previous/Next; Esc leaves presenter mode).

    In presenter mode the marker also carries the class that the presenter's CSS looks for.
    """
    _KEYS(data={"mode": "present" if present else "tabs"}, key="al-step-keys")
