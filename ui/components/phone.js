// phone: what a phone needs on every page (phone.css gives 44 px touch targets). This script
// - closes the sidebar after a page link in it is tapped (Streamlit keeps it open over the page);
// - opens the sidebar at its top (Streamlit keeps its scroll position, close button off screen);
// - draws a heading smaller when one of its words is wider than it, so it breaks between words;
// - loads the data editor's cell editor before the first edit (Streamlit loads it on the first
//   edit, and keys typed before it arrives are lost);
// - keeps the focus on the grid a tap gave it to (the tap's emulated mousedown would move it to
//   the page, and the typed number would go nowhere).

const COVERS = 0.5; // the sidebar covers the page when it is wider than half the window
const SIDEBAR = '[data-testid="stSidebar"]';
const SIDEBAR_SCROLLER = '[data-testid="stSidebarContent"]';
const OPEN_SIDEBAR = '[data-testid="stExpandSidebarButton"]';

function closeSidebarAfterNavigation(event) {
  const link = event.target.closest('[data-testid="stSidebarNavLink"]');
  const sidebar = document.querySelector(SIDEBAR);
  if (!link || !sidebar) return;
  if (sidebar.getBoundingClientRect().width <= window.innerWidth * COVERS) return;
  // After Streamlit's own click handler has switched the page.
  window.setTimeout(() => {
    const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (close) close.click();
  }, 0);
}

function openSidebarAtTop(event) {
  if (!event.target.closest(OPEN_SIDEBAR)) return;
  const toTop = () => {
    const scroller = document.querySelector(SIDEBAR_SCROLLER);
    if (scroller) scroller.scrollTop = 0;
  };
  toTop(); // now, and once the sidebar has been drawn open
  window.requestAnimationFrame(() => window.requestAnimationFrame(toTop));
}

// --- headings break between words -------------------------------------------------------------

const HEADINGS = ':is([data-testid="stHeading"], [data-testid="stMarkdownContainer"]) :is(h1, h2, h3, h4, h5, h6)';
const SMALLEST = 0.5; // a heading is never drawn below half its size

// Draw `heading` at the largest size (up to its own) at which no word is wider than it. The
// stylesheet lets a word overflow instead of breaking it (overflow-wrap: normal), so a word
// too wide shows as scrollWidth > clientWidth.
// A heading is fitted again only when its width or its text changed: a rerun's many mutations
// then cost one read of each heading's width and no write (a write before a read would force
// the browser to lay the page out again for every heading, on every frame of a rerun).
function fitHeading(heading) {
  const width = heading.clientWidth;
  const key = `${width} ${heading.textContent.length}`;
  if (heading.dataset.alFit === key) return;
  heading.dataset.alFit = key;
  if (heading.style.fontSize) heading.style.fontSize = '';
  if (width === 0 || heading.scrollWidth <= width + 1) return;
  const size = parseFloat(getComputedStyle(heading).fontSize);
  let scale = width / heading.scrollWidth;
  for (let tries = 0; tries < 4 && scale > SMALLEST; tries += 1) {
    heading.style.fontSize = `${Math.floor(size * scale * 10) / 10}px`;
    if (heading.scrollWidth <= width + 1) return;
    scale *= 0.95;
  }
  heading.style.fontSize = `${size * SMALLEST}px`;
}

let fitScheduled = false;
// After any change to the page (a rerun draws new elements): fit its headings, and load the cell
// editor once a data editor is there.
function fitHeadingsSoon() {
  if (fitScheduled) return;
  fitScheduled = true;
  window.requestAnimationFrame(() => {
    fitScheduled = false;
    for (const heading of document.querySelectorAll(HEADINGS)) fitHeading(heading);
    if (!cellEditorLoaded && document.querySelector('[data-testid="stDataFrame"]')) {
      loadCellEditor();
    }
  });
}

// --- the data editor's cell editor, loaded before the first edit ------------------------------

const GRID_FILE = /\/static\/js\/DataFrame\.[\w-]+\.js$/;
const CELL_EDITOR_FILE = /data-grid-overlay-editor\.[\w-]+\.js/;
let cellEditorLoaded = false;

// The grid's own file (once a data editor is on the page) names its cell editor's file; import
// it, so the grid finds it loaded. Silent when Streamlit names its files otherwise.
async function loadCellEditor() {
  if (cellEditorLoaded) return;
  const links = [...document.querySelectorAll('link[rel="modulepreload"], script[src]')]
    .map((node) => node.href || node.src);
  const entries = performance.getEntriesByType('resource').map((entry) => entry.name);
  const grid = [...links, ...entries].find((url) => GRID_FILE.test(url));
  if (!grid) return;
  cellEditorLoaded = true;
  try {
    const source = await (await fetch(grid)).text(); // from the browser's cache
    const name = source.match(CELL_EDITOR_FILE);
    if (name) await import(new URL(name[0], grid).href);
  } catch (error) {
    cellEditorLoaded = false; // the grid loads it on its first edit, as without this script
  }
}

// --- the grid keeps the focus a tap gave it ----------------------------------------------------

const GRID = '[data-testid="stDataFrame"]';
const GRID_CELLS = `${GRID} .dvn-scroller`; // over the canvas that draws the cells

// A mousedown on the grid's cells while the grid's canvas already has the focus: its default
// action (focus the nearest focusable ancestor, the main block) is dropped, the event still
// reaches the grid. Only the cells' scroller: the toolbar's search box takes the focus as usual.
function keepGridFocus(event) {
  if (!event.target.closest || !event.target.closest(GRID_CELLS)) return;
  const focused = document.activeElement;
  if (focused && focused.tagName === 'CANVAS'
      && event.target.closest(GRID).contains(focused)) event.preventDefault();
}

const MARK = '__CLASS__'; // set on the window once its listeners are there

export default function phone() {
  loadCellEditor();
  if (window[MARK]) return; // one set of listeners per browser tab, whatever the reruns
  window[MARK] = true;
  document.addEventListener('click', closeSidebarAfterNavigation, true);
  document.addEventListener('click', openSidebarAtTop, true);
  document.addEventListener('mousedown', keepGridFocus, true);
  new MutationObserver(fitHeadingsSoon).observe(document.body, {
    childList: true,
    subtree: true,
    characterData: true,
  });
  window.addEventListener('resize', fitHeadingsSoon);
  fitHeadingsSoon();
}
