// How numbers, times and durations read. Times are shown in the browser's
// zone; the UTC instant the API sent is in the element's title (hover) and
// its datetime attribute.

import { h } from './dom.js';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

// time is a <time> element for an RFC 3339 instant, or a dash.
export function time(iso) {
  if (!iso) return h('span', { class: 'empty' }, '—');
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return h('span', null, iso);
  return h('time', { datetime: d.toISOString(), title: utc(d) }, dateTime.format(d));
}

// utc writes an instant as 2026-11-24 10:04:05.123 UTC.
export function utc(d) {
  return d.toISOString().replace('T', ' ').replace('Z', ' UTC');
}

// duration writes milliseconds for a person: 850 ms, 12.4 s, 3 min 20 s.
export function duration(ms) {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
  const min = Math.floor(ms / 60_000);
  const sec = Math.round((ms % 60_000) / 1000);
  return min < 60 ? `${min} min ${sec} s` : `${Math.floor(min / 60)} h ${min % 60} min`;
}

// credits writes a cost in credits (1 credit = $0.01), up to 6 decimals.
export function credits(n) {
  if (n === null || n === undefined) return '—';
  return `${Number(n).toLocaleString(undefined, { maximumFractionDigits: 6 })} credits`;
}

export function count(n) {
  if (n === null || n === undefined) return '—'; // an annealer's numberQubits
  return Number(n).toLocaleString();
}

export function percent(p) {
  return `${(p * 100).toLocaleString(undefined, { maximumFractionDigits: 2 })}%`;
}

// value writes any JSON value of tags, options or metadata as text.
export function value(v) {
  if (v === null) return 'null';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

export const TERMINAL = ['COMPLETED', 'FAILED', 'CANCELLED'];

export function isFinal(status) {
  return TERMINAL.includes(status);
}

// status is a job's or a device's status as a badge.
export function status(st) {
  return h('span', { class: `status s-${st}`, dataset: { status: st } }, st);
}
