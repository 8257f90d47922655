// What every component of the app has in common. ui/components/__init__.py puts this file before
// each component's own file, once: Streamlit runs a component's JavaScript as one inline module,
// which cannot import another file. Texts are only ever set as textContent (never parsed as HTML).

const SVG_NS = 'http://www.w3.org/2000/svg';

// An SVG element `tag` with the attributes `attrs` (null or undefined values are left out) and
// `text` as its textContent, appended to `parent` when there is one.
function svgNode(parent, tag, attrs, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value !== null && value !== undefined) node.setAttribute(name, String(value));
  }
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (parent) parent.appendChild(node);
  return node;
}

// An HTML element `tag` with the properties `props` (className, type, hidden, ...: set in their
// order) and `text` as its textContent, appended to `parent` when there is one.
function htmlNode(parent, tag, props, text) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (parent) parent.appendChild(node);
  return node;
}

// The page's theme as `element` inherits it: the text colour, the font and the background.
function themeOf(element) {
  const style = getComputedStyle(element);
  return {
    ink: style.color || '#31333f',
    font: style.fontFamily,
    paper: style.getPropertyValue('--st-background-color').trim() || '#ffffff',
  };
}

// One ResizeObserver calling `callback` when any of `elements` (null ones left out) changes size.
function observeResize(callback, ...elements) {
  const observer = new ResizeObserver(callback);
  for (const element of elements) if (element) observer.observe(element);
  return observer;
}

// A `data:` URL holding `text` as UTF-8 of type `mime`: a file the browser downloads from a link.
function dataUrl(mime, text) {
  return 'data:' + mime + ';charset=utf-8,' + encodeURIComponent(text);
}

// The SVG element `svg` as a file, in a `data:` URL.
function svgDataUrl(svg) {
  return dataUrl('image/svg+xml', new XMLSerializer().serializeToString(svg));
}

// `link` downloads a file named `fileName`; `label` is its text.
function setDownload(link, label, fileName) {
  link.textContent = label;
  link.download = fileName;
}

// `link`'s file is written by `makeHref()` as the link is about to be used (a pointer, the focus,
// a click): the drawing as it is then, however it was resized or turned since.
function hrefOnUse(link, makeHref) {
  const refresh = () => {
    link.href = makeHref();
  };
  for (const event of ['pointerdown', 'focus', 'click']) link.addEventListener(event, refresh);
}
