// The histogram of a result's counts, drawn as SVG: one bar per outcome,
// bit strings in order along the x axis, probability up the y axis. More
// than MAX_BARS outcomes would make bars too thin to read: the MAX_BARS
// most frequent are drawn, the rest are summed into one last bar, and the
// caption says how many that is.

import { h, s } from './dom.js';
import { count, percent } from './format.js';

export const MAX_BARS = 64;

const PLOT_H = 220;
const LEFT = 52;
const TOP = 12;
const CHAR_W = 7.5; // of a 12px monospace character

// byBitstring orders bit strings as the numbers they write (shorter first,
// which only a batch of mixed widths has).
export function byBitstring(a, b) {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

// bars picks what to draw: every outcome, or the MAX_BARS most frequent
// and the rest summed.
export function bars(counts) {
  const entries = Object.entries(counts);
  const total = entries.reduce((t, [, c]) => t + c, 0) || 1;
  let shown = entries;
  let rest = null;
  if (entries.length > MAX_BARS) {
    const ranked = [...entries].sort((a, b) => b[1] - a[1] || byBitstring(a[0], b[0]));
    shown = ranked.slice(0, MAX_BARS);
    const others = ranked.slice(MAX_BARS);
    rest = { outcomes: others.length, count: others.reduce((t, [, c]) => t + c, 0) };
  }
  const list = shown
    .sort((a, b) => byBitstring(a[0], b[0]))
    .map(([k, c]) => ({ label: k, count: c, p: c / total }));
  if (rest) list.push({ label: `other ${rest.outcomes}`, count: rest.count, p: rest.count / total, rest: true });
  return { list, total, outcomes: entries.length, rest };
}

// niceMax is the top of the y axis: the least of 1, 2, 2.5, 4, 5, 6 or 8
// × 10^k at or above the tallest bar, and its tick step.
function niceMax(p) {
  if (p <= 0) return { max: 1, step: 0.25 };
  const e = Math.pow(10, Math.floor(Math.log10(p)));
  for (const [m, ticks] of [[1, 5], [2, 4], [2.5, 5], [4, 4], [5, 5], [6, 6], [8, 4], [10, 5]]) {
    if (m * e >= p - 1e-12) return { max: Math.min(m * e, 1), step: Math.min(m * e, 1) / ticks };
  }
  return { max: 1, step: 0.2 };
}

// histogram returns a <figure> with the chart and a caption saying what it
// shows.
export function histogram(counts, label) {
  const { list, total, outcomes, rest } = bars(counts);
  const { max: yMax, step } = niceMax(Math.max(...list.map((b) => b.p), 0));
  const longest = Math.max(...list.map((b) => b.label.length), 1);
  const slot = Math.max(16, Math.min(120, Math.floor(640 / Math.max(list.length, 1))));
  const upright = longest * CHAR_W + 6 > slot; // labels turned a quarter when they do not fit
  const bottom = upright ? longest * CHAR_W + 14 : 24;
  const width = LEFT + list.length * slot + 12;
  const height = TOP + PLOT_H + bottom;
  const y = (p) => TOP + PLOT_H - (p / yMax) * PLOT_H;

  // Drawn at its own size (shrunk to fit a narrow screen, never blown up);
  // one wider than a page scrolls instead of shrinking its labels away.
  const svg = s('svg', {
    viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': `${label}: histogram of ${outcomes} outcomes`,
    class: width > 700 ? 'wide' : null,
    dataset: { yMax: yMax, plotHeight: PLOT_H, total: total },
  });
  for (let t = 0; t <= yMax + 1e-9; t += step) {
    svg.append(
      s('line', { class: 'grid', x1: LEFT, x2: width - 8, y1: y(t), y2: y(t) }),
      s('text', { class: 'tick', x: LEFT - 6, y: y(t) + 4, 'text-anchor': 'end' }, percent(t)));
  }
  list.forEach((b, i) => {
    const x = LEFT + i * slot + slot * 0.1;
    const w = slot * 0.8;
    const cx = x + w / 2;
    const top = y(b.p);
    svg.append(s('rect', {
      class: b.rest ? 'bar rest' : 'bar', x, y: top, width: w, height: TOP + PLOT_H - top,
      dataset: { bitstring: b.rest ? '' : b.label, count: b.count, probability: b.p, rest: b.rest ? 'true' : null },
    }, s('title', null, `${b.label}: ${count(b.count)} (${percent(b.p)})`)));
    const ly = TOP + PLOT_H + 14;
    svg.append(upright
      ? s('text', { x: cx + 4, y: ly - 6, transform: `rotate(-90 ${cx + 4} ${ly - 6})`, 'text-anchor': 'end' }, b.label)
      : s('text', { x: cx, y: ly, 'text-anchor': 'middle' }, b.label));
  });
  svg.append(
    s('line', { class: 'axis', x1: LEFT, x2: LEFT, y1: TOP, y2: TOP + PLOT_H }),
    s('line', { class: 'axis', x1: LEFT, x2: width - 8, y1: TOP + PLOT_H, y2: TOP + PLOT_H }));

  const caption = rest
    ? `${label}: the ${MAX_BARS} most frequent of ${count(outcomes)} outcomes; the other ${count(rest.outcomes)} ` +
      `(${count(rest.count)} shots, ${percent(rest.count / total)}) are summed in the last bar.`
    : `${label}: ${count(outcomes)} outcome${outcomes === 1 ? '' : 's'} over ${count(total)} shots.`;
  return h('figure', { class: 'histogram' }, svg, h('figcaption', { class: 'hint' }, caption));
}
