// phone: what a phone needs on every page. Its stylesheet (phone.css) gives touch targets of
// 44 px; this script closes the sidebar after a page link in it is tapped, where the open
// sidebar covers the page (a phone: Streamlit keeps it open over the new page otherwise).

const COVERS = 0.5; // the sidebar covers the page when it is wider than half the window

function closeSidebarAfterNavigation(event) {
  const link = event.target.closest('[data-testid="stSidebarNavLink"]');
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  if (!link || !sidebar) return;
  if (sidebar.getBoundingClientRect().width <= window.innerWidth * COVERS) return;
  // After Streamlit's own click handler has switched the page.
  window.setTimeout(() => {
    const close = document.querySelector('[data-testid="stSidebarCollapseButton"] button');
    if (close) close.click();
  }, 0);
}

const MARK = '__CLASS__'; // set on the window once its listener is there

export default function phone() {
  if (window[MARK]) return; // one listener per browser tab, whatever the reruns
  window[MARK] = true;
  document.addEventListener("click", closeSidebarAfterNavigation, true);
}
