// An analog job's register as a picture: each site at its position (from
// the job's program, GET /jobs/{qrn}/program), shaded by how often the
// shots found its atom in the Rydberg state (from the counts). The
// formats say it differently:
//   analog (Braket AHS): register.sites [[x, y], …] in metres (numbers or
//     decimal strings; setup.ahs_register in Braket's IR), filling 0/1;
//     counts keyed one letter a site, r Rydberg, g ground, e empty.
//   pulser.sequence: sequence_builder.register [{name, x, y}] in µm;
//     counts keyed one digit an atom, 1 Rydberg.

import { h, s } from './dom.js';
import { count, percent } from './format.js';

const SIZE = 360; // the drawing's width and height, in px
const PAD = 28;
const MAX_LABELS = 30; // sites named under their dots, up to this many

// sitesOf reads a program's sites in µm: [{x, y, name, filled}], or null
// when it has none this page can read.
export function sitesOf(program) {
  let data = program?.data;
  if (typeof data === 'string') {
    try { data = JSON.parse(data); } catch { return null; }
  }
  if (!data || typeof data !== 'object') return null;
  if (program.format === 'pulser.sequence') {
    const reg = data.sequence_builder?.register;
    if (!Array.isArray(reg)) return null;
    return reg.map((a, i) => ({ x: Number(a.x), y: Number(a.y), name: String(a.name ?? `q${i}`), filled: true }));
  }
  const reg = data.register || data.setup?.ahs_register;
  if (!reg || !Array.isArray(reg.sites)) return null;
  return reg.sites.map((xy, i) => ({
    x: Number(xy[0]) * 1e6, y: Number(xy[1]) * 1e6, name: `site ${i}`,
    filled: !Array.isArray(reg.filling) || Number(reg.filling[i]) === 1,
  }));
}

// rydbergFractions is, per site, the fraction of shots that found it in
// the Rydberg state.
export function rydbergFractions(format, counts, n) {
  const r = new Array(n).fill(0);
  let total = 0;
  const mark = format === 'pulser.sequence' ? '1' : 'r';
  for (const [key, c] of Object.entries(counts || {})) {
    total += c;
    for (let i = 0; i < Math.min(n, key.length); i++) if (key[i] === mark) r[i] += c;
  }
  return r.map((x) => (total ? x / total : 0));
}

// register returns a <figure> with the picture and a caption, or null
// when the program's sites cannot be read.
export function register(program, counts) {
  const sites = sitesOf(program);
  if (!sites || sites.length === 0 || sites.some((p) => !Number.isFinite(p.x) || !Number.isFinite(p.y))) return null;
  const frac = rydbergFractions(program.format, counts, sites.length);
  const xs = sites.map((p) => p.x);
  const ys = sites.map((p) => p.y);
  const minX = Math.min(...xs), maxX = Math.max(...xs), minY = Math.min(...ys), maxY = Math.max(...ys);
  const span = Math.max(maxX - minX, maxY - minY) || 1;
  const scale = (SIZE - 2 * PAD) / span;
  // The nearest two sites set the dots' size, so neighbours never overlap.
  let nearest = Infinity;
  for (let i = 0; i < sites.length; i++) {
    for (let j = i + 1; j < sites.length; j++) {
      nearest = Math.min(nearest, Math.hypot(sites[i].x - sites[j].x, sites[i].y - sites[j].y));
    }
  }
  const radius = Math.max(3, Math.min(16, Number.isFinite(nearest) ? (nearest * scale) / 2.4 : 16));
  // y grows upward in the program, downward on the screen.
  const at = (p) => [PAD + (p.x - minX) * scale + ((span - (maxX - minX)) * scale) / 2,
    SIZE - PAD - (p.y - minY) * scale - ((span - (maxY - minY)) * scale) / 2];
  const svg = s('svg', {
    viewBox: `0 0 ${SIZE} ${SIZE}`, width: SIZE, height: SIZE, role: 'img',
    'aria-label': `The register: ${sites.length} sites, shaded by how often each was found in the Rydberg state`,
  });
  sites.forEach((p, i) => {
    const [cx, cy] = at(p);
    const label = p.filled ? `${p.name} (${p.x.toFixed(2)}, ${p.y.toFixed(2)} µm): Rydberg in ${percent(frac[i])} of shots` : `${p.name} (${p.x.toFixed(2)}, ${p.y.toFixed(2)} µm): empty`;
    svg.append(s('circle', {
      class: p.filled ? 'site' : 'site empty', cx, cy, r: radius,
      'fill-opacity': p.filled ? (0.08 + 0.92 * frac[i]).toFixed(3) : null,
      dataset: { site: i, rydberg: p.filled ? frac[i] : null, empty: p.filled ? null : 'true' },
    }, s('title', null, label)));
    if (sites.length <= MAX_LABELS) {
      svg.append(s('text', { class: 'site-label', x: cx, y: cy + radius + 11, 'text-anchor': 'middle' },
        program.format === 'pulser.sequence' ? p.name : String(i)));
    }
  });
  const filled = sites.filter((p) => p.filled).length;
  const caption = `The register: ${count(sites.length)} site${sites.length === 1 ? '' : 's'}` +
    (filled < sites.length ? ` (${count(filled)} filled; empty ones hollow)` : '') +
    `, ${span.toFixed(1)} µm across; the darker a site, the more often its atom was found in the Rydberg state (hover for the figure).`;
  return h('figure', { class: 'register' }, h('h3', null, 'Register'), svg, h('figcaption', { class: 'hint' }, caption));
}
