// Calls to /api/v1 with the key in the X-API-KEY header. A failure is an
// APIError carrying the API's own message, code and field details, which
// the views show as they are.

import { getKey } from './session.js';

const base = (document.querySelector('meta[name="api-base"]')?.content || '').replace(/\/+$/, '') + '/api/v1';

export class APIError extends Error {
  constructor(status, message, code, details) {
    super(message);
    this.status = status;
    this.code = code || '';
    this.details = details || [];
  }
}

// url is the address of an API path with its query; empty values are left
// out, so a form's blank fields filter nothing.
export function url(path, query) {
  const u = new URL(base + path, location.href);
  for (const [k, v] of Object.entries(query || {})) {
    if (v !== undefined && v !== null && v !== '') u.searchParams.set(k, String(v));
  }
  return u;
}

// request is a fetch with the key, no cookies and no referrer.
export function request(path, { method = 'GET', query, body, signal, headers = {}, key } = {}) {
  const h = { 'X-API-KEY': key ?? getKey(), ...headers };
  if (body !== undefined) h['Content-Type'] = 'application/json';
  return fetch(url(path, query), {
    method, signal, headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer',
  });
}

// failure turns an error answer into an APIError with the API's words.
export async function failure(res) {
  let doc = null;
  try { doc = await res.json(); } catch { /* not JSON: said below */ }
  const msg = doc?.error?.message || doc?.message || `${res.status} ${res.statusText || 'error'}`.trim();
  const err = new APIError(res.status, msg, doc?.error?.code, doc?.error?.details);
  if (res.status === 401) window.dispatchEvent(new CustomEvent('console:unauthorized', { detail: err }));
  return err;
}

// call returns the whole envelope of a successful answer ({data,
// pagination, ...}); a failure throws an APIError.
export async function call(path, opts = {}) {
  let res;
  try {
    res = await request(path, opts);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new APIError(0, `The service could not be reached (${e.message}).`);
  }
  if (!res.ok) throw await failure(res);
  return res.json();
}

export const jobPath = (qrn) => '/jobs/' + encodeURIComponent(qrn);
export const devicePath = (qrn) => '/devices/' + encodeURIComponent(qrn);
