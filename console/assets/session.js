// The API key lives in this tab's sessionStorage only: gone when the tab
// closes, never in a cookie (sent to the server uninvited), a URL (kept in
// history and logs) or localStorage (shared and kept forever).

const KEY = 'quantum.apiKey';
const USER = 'quantum.userName';

export function getKey() {
  return sessionStorage.getItem(KEY) || '';
}

export function userName() {
  return sessionStorage.getItem(USER) || '';
}

export function signIn(key, name) {
  sessionStorage.setItem(KEY, key);
  sessionStorage.setItem(USER, name || '');
}

export function signOut() {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(USER);
}
