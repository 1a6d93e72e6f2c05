// Building the page from data. Every piece of text a user or the service
// supplied goes in as a Text node or an attribute value, never through an
// HTML parser: a job named <img src=x onerror=alert(1)> shows those
// characters and nothing runs.

const SVG = 'http://www.w3.org/2000/svg';

// h makes an element: attrs are attributes (false, null and undefined are
// left out; true is a bare attribute; on* keys are listeners; class and
// dataset are shorthands), children are nodes or text.
export function h(tag, attrs, ...children) {
  return build(document.createElement(tag), attrs, children);
}

// s is h for SVG elements.
export function s(tag, attrs, ...children) {
  return build(document.createElementNS(SVG, tag), attrs, children);
}

function build(el, attrs, children) {
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.setAttribute('class', v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c)); // a string becomes a Text node
  }
}

// fill replaces el's children.
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// kv is a definition list of [term, value] pairs; pairs whose value is
// undefined are left out.
export function kv(pairs) {
  const dl = h('dl', { class: 'kv' });
  for (const [k, v] of pairs) {
    if (v === undefined) continue;
    dl.append(h('dt', null, k), h('dd', null, v));
  }
  return dl;
}

// announce tells screen readers about a change they cannot see happen.
export function announce(text) {
  const el = document.getElementById('announce');
  if (el) el.textContent = text;
}

// errorBox shows an error as the API words it, with the fields it names.
export function errorBox(el, err) {
  if (!err) return fill(el);
  const details = Array.isArray(err.details) ? err.details : [];
  return fill(el, err.message || String(err),
    details.length > 1 ? h('ul', null, details.map((d) => h('li', null, `${d.field}: ${d.message}`))) : null);
}

// download offers bytes as a file, from memory: nothing is fetched, and
// the key stays out of any URL.
export function download(name, bytes, type) {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = h('a', { href: url, download: name, class: 'visually-hidden' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

// link is an in-console link to a route.
export function link(route, ...children) {
  return h('a', { href: '#' + route }, ...children);
}

// A flash is a notice for the next view: "Job … deleted." after a delete
// that leaves the job's page.
let flashText = '';

export function flash(text) {
  flashText = text;
}

export function takeFlash() {
  const t = flashText;
  flashText = '';
  return t;
}
