// The keys of a page that walks steps (ui/step_link.py mounts it; ui/walk.py draws the page).
//
// One listener on the window, installed once per tab (a rerun replaces focused elements, and a
// fresh link has none focused), active only while the marker (class __CLASS__) is on the page,
// never for keys typed into a field.
// - The strip of steps: ← → the previous / next step.
// - Presenter mode: → PageDown Space ↓ next; ← PageUp Shift+Space ↑ previous; Home End first /
//   last; Esc leaves. Buttons are clicked, and focus never rests on them (a clicker's Space must
//   not press a focused Next twice).
// A link's step= is scrolled into view once (data.scroll changes when a link opened a step).

const FIELDS = 'input, textarea, select, [contenteditable="true"], [role="slider"], [role="grid"]'
  + ', .gdg-input, [data-testid="stDataFrame"], [role="listbox"], [role="combobox"]';
const BUTTONS = {
  previous: '.st-key-present_previous button',
  next: '.st-key-present_next button',
  first: '.st-key-present_first button',
  last: '.st-key-present_last button',
  leave: '.st-key-present_leave button',
};

function presentAction(event) {
  const { key, shiftKey } = event;
  if (key === 'ArrowRight' || key === 'PageDown' || key === 'ArrowDown') return 'next';
  if (key === 'ArrowLeft' || key === 'PageUp' || key === 'ArrowUp') return 'previous';
  if (key === ' ' || key === 'Spacebar') return shiftKey ? 'previous' : 'next';
  if (key === 'Home') return 'first';
  if (key === 'End') return 'last';
  if (key === 'Escape') return 'leave';
  return null;
}

function press(action) {
  const button = document.querySelector(BUTTONS[action]);
  if (button && !button.disabled) {
    button.click();
    button.blur();
  }
}

// A walk's strip of steps: the radio buttons of its segmented control (ui/walk.py), or the tabs
// of a page that draws its own st.tabs under the walk's key (Compare, Why √d_k, Dropout in
// expectation).
function openTabs(tabsKey) {
  const strip = document.querySelectorAll(`.st-key-${tabsKey} [role="radio"]`);
  if (strip.length) return Array.from(strip);
  let tabs = Array.from(document.querySelectorAll(`.st-key-${tabsKey} [role="tab"]`));
  if (!tabs.length) {
    const list = document.querySelector('[data-testid="stMain"] [role="tablist"]');
    tabs = list ? Array.from(list.querySelectorAll('[role="tab"]')) : [];
  }
  return tabs;
}

function isOpen(tab) {
  return tab.getAttribute('aria-checked') === 'true' || tab.getAttribute('aria-selected') === 'true';
}

function onKeyDown(event) {
  const state = window.__alStepKeys;
  if (!state || !document.querySelector('.__CLASS__')) return;  // not a page that walks steps
  if (event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (state.mode === 'present' && event.key === 'Escape') {  // Esc always leaves
    event.preventDefault();
    press('leave');
    return;
  }
  if (target && target.closest && target.closest(FIELDS)) return;
  if (state.mode === 'present') {
    const action = presentAction(event);
    if (!action) return;
    event.preventDefault();  // no scroll, and no press of a focused button by Space
    if (!event.repeat || action === 'next' || action === 'previous') press(action);
    return;
  }
  if (event.shiftKey || (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight')) return;
  if (target && target.closest && target.closest('[role="tab"]')) return;  // a tab moves itself
  const tabs = openTabs(state.tabs);
  const radio = target && target.closest && target.closest('[role="radio"]');
  if (radio && !tabs.includes(radio)) return;  // another choice's buttons (the sidebar's presets)
  const open = tabs.findIndex(isOpen);
  const next = open + (event.key === 'ArrowRight' ? 1 : -1);
  if (open < 0 || next < 0 || next >= tabs.length) return;
  event.preventDefault();
  event.stopPropagation();  // on the strip itself, its own arrow keys would only move the focus
  tabs[next].click();
  tabs[next].focus();
}

function onKeyUp(event) {
  const state = window.__alStepKeys;
  if (state && state.mode === 'present' && event.key === ' ' && document.querySelector('.__CLASS__')) {
    event.preventDefault();  // a focused button would take the Space's key-up as a click
  }
}

function onClick(event) {
  // After a click on a presenter button the focus leaves it (Space must not press it again).
  const target = event.target;
  const button = target && target.closest && target.closest('[class*="st-key-present_"] button');
  if (button) setTimeout(() => button.blur(), 0);
}

function scrollToStep(tabsKey, tries) {
  const tabs = openTabs(tabsKey);
  const open = tabs.find(isOpen);
  if (!open) {
    if (tries > 0) setTimeout(() => scrollToStep(tabsKey, tries - 1), 100);
    return;
  }
  const strip = open.closest('[role="radiogroup"], [role="tablist"]') || open;
  strip.scrollIntoView({ block: 'start', inline: 'nearest' });
  open.scrollIntoView({ block: 'nearest', inline: 'center' });  // a tab strip scrolls sideways
}

// Presenter mode: a formula wider than its box is drawn smaller until it fits (a narrow column
// on a projector must neither cut it nor make the class scroll sideways to read it), and one
// that reaches below its box gets the room. Each formula is fitted again only when its box's
// width or its text changes.
function fitFormulas() {
  const presenting = Boolean(document.querySelector('.__CLASS__-present'));
  for (const box of document.querySelectorAll('[data-testid="stMain"] .katex-display')) {
    const katex = box.querySelector('.katex');
    if (!katex) continue;
    const key = `${presenting} ${box.clientWidth} ${box.textContent.length}`;
    if (box.dataset.alFit === key) continue;
    box.dataset.alFit = key;
    katex.style.fontSize = '';
    box.style.paddingBottom = '';
    if (!presenting) continue;
    for (let tries = 0; tries < 4 && box.scrollWidth > box.clientWidth + 1; tries++) {
      const size = parseFloat(getComputedStyle(katex).fontSize);
      katex.style.fontSize = `${(0.97 * size * box.clientWidth) / box.scrollWidth}px`;
    }
    const below = box.scrollHeight - box.clientHeight;  // a denominator reaching below the box
    if (below > 0) {
      box.style.paddingBottom = `${parseFloat(getComputedStyle(box).paddingBottom) + below + 1}px`;
    }
  }
}

// Presenter mode's canvas (step_link.css): W × H CSS pixels scaled to fill the window, as a
// slide deck does; a phone (641 px or less) keeps the page's own flow.
function scaleCanvas() {
  const root = document.documentElement.style;
  const state = window.__alStepKeys;
  const presenting = Boolean(document.querySelector('.__CLASS__-present'));
  // the deck's look (step_link.css) hangs on this class, not on a :has() rule that every
  // change of the page would make the browser test again
  document.documentElement.classList.toggle('__CLASS__-presenting', presenting);
  const canvas = document.querySelector('[data-testid="stMainBlockContainer"]');
  if (!presenting || !state || !state.canvas || window.innerWidth <= 640) {
    if (root.getPropertyValue('--al-scale')) {  // leaving: only then a write (none per rerun)
      root.removeProperty('--al-scale');
      root.removeProperty('--al-left');
    }
    if (canvas && canvas.style.marginBottom) canvas.style.marginBottom = '';
    return;
  }
  const [width, height] = state.canvas;
  // a screen taller than the canvas (a long sentence, many tokens) is drawn smaller, never cut
  const tall = Math.max(height, canvas ? canvas.scrollHeight : height);
  const scale = Math.min(window.innerWidth / width, window.innerHeight / tall);
  root.setProperty('--al-scale', String(scale));
  root.setProperty('--al-left', `${Math.max(0, (window.innerWidth - width * scale) / 2)}px`);
  // a transform leaves the layout's size: the margin gives back the difference, so the page
  // is exactly as tall as what is seen (nothing to scroll into below a smaller screen)
  if (canvas) canvas.style.marginBottom = `${(scale - 1) * canvas.offsetHeight}px`;
}

let fitQueued = false;
function queueFit() {
  if (fitQueued) return;
  fitQueued = true;
  requestAnimationFrame(() => {
    fitQueued = false;
    scaleCanvas();
    fitFormulas();
  });
}

export default function (component) {
  const { data, parentElement } = component;
  let marker = parentElement.querySelector('.__CLASS__');
  if (!marker) {
    marker = document.createElement('span');
    parentElement.appendChild(marker);
  }
  marker.className = data.mode === 'present' ? '__CLASS__ __CLASS__-present' : '__CLASS__';
  document.documentElement.classList.toggle('__CLASS__-presenting', data.mode === 'present');
  const previous = window.__alStepKeys;
  window.__alStepKeys = { mode: data.mode, tabs: data.tabs, canvas: data.canvas };
  if (data.scroll && (!previous || previous.scroll !== data.scroll) && data.mode !== 'present') {
    scrollToStep(data.tabs, 50);
  }
  window.__alStepKeys.scroll = data.scroll;
  queueFit();
  if (data.mode === 'present' && document.activeElement && document.activeElement.closest
      && document.activeElement.closest('[class*="st-key-present_"]')) {
    document.activeElement.blur();
  }
  if (window.__alStepKeysInstalled) return;
  window.__alStepKeysInstalled = true;
  window.addEventListener('keydown', onKeyDown, true);
  window.addEventListener('keyup', onKeyUp, true);
  window.addEventListener('click', onClick, true);
  window.addEventListener('resize', queueFit);
  new MutationObserver(queueFit).observe(document.body, { childList: true, subtree: true });
}
