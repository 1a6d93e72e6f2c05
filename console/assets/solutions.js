// An annealing job's result (experimentType annealing): its solutions,
// lowest energy first, as a table of energy, occurrences and the
// assignment, where a circuit's result has a histogram of counts. A
// result may hold thousands of solutions of thousands of variables: the
// table shows the first MAX_ROWS, and a long assignment its first
// MAX_VALUES values, and says so (the JSON download has everything).

import { h } from './dom.js';
import { count } from './format.js';

export const MAX_ROWS = 256;
export const MAX_VALUES = 64;
const COLUMNS = 12; // up to this many variables get a column each

// isAnnealing tells an annealing result from a circuit's.
export function isAnnealing(resultData) {
  return Array.isArray(resultData?.solutions);
}

// byName orders variable names as people read them: x2 before x10.
const byName = new Intl.Collator(undefined, { numeric: true }).compare;

function energy(e) {
  return Number(e).toLocaleString(undefined, { maximumFractionDigits: 6 });
}

export function solutionsTable(resultData) {
  const solutions = resultData.solutions;
  const names = Object.keys(solutions[0]?.spin || {}).sort(byName);
  const reads = solutions.reduce((t, s) => t + (s.num_occurrences || 0), 0);
  const wide = names.length <= COLUMNS; // a column a variable, or one for them all
  const shown = names.slice(0, MAX_VALUES);
  const assignment = (spin) => {
    const text = shown.map((n) => `${n}=${spin[n]}`).join(' ');
    return names.length > shown.length ? `${text} … (${count(names.length - shown.length)} more)` : text;
  };
  const head = h('tr', null, h('th', { scope: 'col', class: 'num' }, 'Energy'), h('th', { scope: 'col', class: 'num' }, 'Occurrences'),
    wide ? names.map((n) => h('th', { scope: 'col', class: 'num mono' }, n)) : h('th', { scope: 'col' }, 'Assignment'));
  const rows = solutions.slice(0, MAX_ROWS).map((s) => h('tr', null,
    h('td', { class: 'num' }, energy(s.energy)),
    h('td', { class: 'num' }, count(s.num_occurrences)),
    wide ? names.map((n) => h('td', { class: 'num mono' }, String(s.spin[n]))) : h('td', { class: 'mono' }, assignment(s.spin))));
  const caption = solutions.length > MAX_ROWS
    ? `The ${MAX_ROWS} lowest of ${count(solutions.length)} solutions (${count(reads)} reads); the result JSON has them all.`
    : `${count(solutions.length)} ${solutions.length === 1 ? 'solution' : 'solutions'} of ${count(names.length)} variables from ${count(reads)} ${reads === 1 ? 'read' : 'reads'}, lowest energy first.`;
  return h('div', { class: 'table-wrap', role: 'region', 'aria-label': 'Solutions', tabindex: 0 },
    h('table', { class: 'solutions' }, h('caption', null, caption), h('thead', null, head), h('tbody', null, rows)));
}
