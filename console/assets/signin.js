// Sign-in: the key is checked against GET /users/verify before it is kept;
// a key the API refuses is never stored, and the API's reason is shown.

import { h, errorBox } from './dom.js';
import { call } from './api.js';
import { signIn } from './session.js';

export function signinView(main, { signal, notice, done }) {
  const key = h('input', { id: 'apikey', name: 'apikey', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true });
  const error = h('div', { class: 'error', role: 'alert', id: 'signin-error' });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h('form', { class: 'signin', novalidate: true },
    h('div', { class: 'field' },
      h('label', { for: 'apikey' }, 'API key'),
      key,
      h('p', { class: 'hint' }, 'The key stays in this tab (sessionStorage) and goes only to the API, in the X-API-KEY header. ' +
        'Running examples/server? It prints a demo key when it starts.')),
    error, button);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const k = key.value.trim();
    if (!k) {
      errorBox(error, { message: 'Enter an API key.' });
      key.focus();
      return;
    }
    button.disabled = true;
    errorBox(error, null);
    try {
      const doc = await call('/users/verify', { key: k, signal });
      signIn(k, doc.data?.userName || doc.data?.userId || '');
      done();
    } catch (err) {
      if (err.name === 'AbortError') return;
      errorBox(error, err);
      key.select();
      key.focus();
    } finally {
      button.disabled = false;
    }
  });
  main.append(h('h1', null, 'Sign in'), h('p', { class: 'notice', role: 'status' }, notice || ''), form);
  key.focus();
}
