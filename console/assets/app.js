// The console's entry: routes in the URL's fragment (#/jobs, #/jobs/QRN,
// #/devices, #/devices/QRN, #/submit) so the server serves one page under
// any prefix, and a view per route. A view gets an AbortSignal that ends
// its requests and streams when the user goes elsewhere.

import { fill, h } from './dom.js';
import { getKey, signOut, userName } from './session.js';
import { signinView } from './signin.js';
import { jobsView } from './jobs.js';
import { jobView } from './job.js';
import { devicesView, deviceView } from './devices.js';
import { submitView } from './submit.js';

const routes = [
  [/^\/jobs$/, jobsView, 'jobs'],
  [/^\/jobs\/([^/]+)$/, jobView, 'jobs'],
  [/^\/devices$/, devicesView, 'devices'],
  [/^\/devices\/([^/]+)$/, deviceView, 'devices'],
  [/^\/submit$/, submitView, 'submit'],
];

const main = document.getElementById('main');
let current = null; // the AbortController of the view on screen
let signinNotice = '';

// parse splits the fragment into a path and its query.
function parse() {
  const raw = location.hash.replace(/^#/, '') || '/jobs';
  const q = raw.indexOf('?');
  return { path: q < 0 ? raw : raw.slice(0, q), query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}

function render() {
  current?.abort();
  current = new AbortController();
  const { path, query } = parse();
  const signedIn = getKey() !== '';
  document.getElementById('nav').hidden = !signedIn;
  document.getElementById('who').hidden = !signedIn;
  fill(document.getElementById('user'), userName());
  fill(main);
  if (!signedIn) {
    // The sign-in view puts focus in its key field itself.
    signinView(main, { signal: current.signal, notice: signinNotice, done: () => { signinNotice = ''; render(); } });
    return;
  }
  for (const [re, view, nav] of routes) {
    const m = path.match(re);
    if (!m) continue;
    for (const a of document.querySelectorAll('[data-nav]')) {
      if (a.dataset.nav === nav) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    let param = '';
    try { param = m[1] ? decodeURIComponent(m[1]) : ''; } catch { param = m[1]; }
    view(main, { param, query, signal: current.signal });
    focusHeading();
    return;
  }
  fill(main, h('h1', { tabindex: -1 }, 'Not found'), h('p', null, 'No page here. ', h('a', { href: '#/jobs' }, 'See your jobs.')));
  focusHeading();
}

// focusHeading moves focus to the new view's heading, as a page load
// would, so keyboard and screen-reader users start at the top of it.
function focusHeading() {
  const h1 = main.querySelector('h1');
  if (h1) {
    h1.setAttribute('tabindex', '-1');
    h1.focus({ preventScroll: true });
  }
}

document.getElementById('signout').addEventListener('click', () => {
  signOut();
  signinNotice = 'Signed out.';
  location.hash = '#/jobs';
  render();
});

// A 401 on any call means the key no longer works (a server restarted
// with a new demo key, say): back to the sign-in form, saying why.
window.addEventListener('console:unauthorized', (e) => {
  if (!getKey()) return;
  signOut();
  signinNotice = `Signed out: ${e.detail.message}`;
  render();
});

window.addEventListener('hashchange', render);
render();
