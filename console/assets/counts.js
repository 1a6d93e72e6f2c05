// The table of a result's counts, most frequent first. A result may hold a
// million outcomes; the table shows the first MAX_ROWS and says so (the
// JSON download has them all).

import { h } from './dom.js';
import { count, percent } from './format.js';
import { byBitstring } from './histogram.js';

export const MAX_ROWS = 256;

export function countsTable(counts, label) {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || byBitstring(a[0], b[0]));
  const total = entries.reduce((t, [, c]) => t + c, 0) || 1;
  const rows = entries.slice(0, MAX_ROWS).map(([k, c]) =>
    h('tr', null, h('td', { class: 'mono' }, k), h('td', { class: 'num' }, count(c)), h('td', { class: 'num' }, percent(c / total))));
  const more = entries.length > MAX_ROWS
    ? `The ${MAX_ROWS} most frequent of ${count(entries.length)} outcomes; the result JSON has them all.`
    : `${count(entries.length)} outcomes, most frequent first.`;
  return h('div', { class: 'table-wrap', role: 'region', 'aria-label': `${label}: counts`, tabindex: 0 },
    h('table', { class: 'counts' },
      h('caption', null, more),
      h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Bit string'), h('th', { scope: 'col', class: 'num' }, 'Count'),
        h('th', { scope: 'col', class: 'num' }, 'Probability'))),
      h('tbody', null, rows)));
}
