// The devices: GET /devices as a table sorted by the API (sortBy and
// sortOrder, from the column headers), paged; and one device's page,
// GET /devices/{qrn}, with its description.

import { h, fill, kv, link, errorBox } from './dom.js';
import { call, devicePath } from './api.js';
import { credits, count, status, time } from './format.js';

const SORTABLE = { name: 'Name', vendor: 'Vendor', deviceType: 'Type', status: 'Status', numberQubits: 'Qubits' };
const LIMIT = 20;

function list(items) {
  return items && items.length ? items.join(', ') : '—';
}

// pricing writes a device's prices in credits, leaving out the zeros.
export function pricing(p) {
  const parts = [];
  if (p?.perTask) parts.push(`${credits(p.perTask)} per task`);
  if (p?.perShot) parts.push(`${credits(p.perShot)} per shot`);
  if (p?.perMinute) parts.push(`${credits(p.perMinute)} per minute`);
  return parts.length ? parts.join(' + ') : 'free';
}

export function devicesView(main, { query, signal }) {
  const sortBy = SORTABLE[query.get('sortBy')] ? query.get('sortBy') : 'name';
  const sortOrder = query.get('sortOrder') === 'desc' ? 'desc' : 'asc';
  const page = Math.max(1, parseInt(query.get('page'), 10) || 1);
  const hashFor = (p) => `#/devices?sortBy=${p.sortBy}&sortOrder=${p.sortOrder}${p.page > 1 ? '&page=' + p.page : ''}`;

  const error = h('div', { class: 'error', role: 'alert' });
  const tbody = h('tbody');
  const caption = h('caption', null, 'Loading…');
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of devices' });
  const header = (key, label, cls) => {
    if (!SORTABLE[key]) return h('th', { scope: 'col', class: cls }, label);
    const active = sortBy === key;
    const next = active && sortOrder === 'asc' ? 'desc' : 'asc';
    const b = h('button', { type: 'button', class: 'sort', 'aria-label': `${label}: sort ${next === 'asc' ? 'ascending' : 'descending'}` }, label);
    b.addEventListener('click', () => { location.hash = hashFor({ sortBy: key, sortOrder: next, page: 1 }); });
    return h('th', { scope: 'col', class: cls, 'aria-sort': active ? (sortOrder === 'asc' ? 'ascending' : 'descending') : null }, b);
  };
  main.append(h('h1', null, 'Devices'), error,
    h('div', { class: 'table-wrap', role: 'region', 'aria-label': 'Devices', tabindex: 0 },
      h('table', { id: 'devices' }, caption,
        h('thead', null, h('tr', null,
          header('name', 'Name'), h('th', { scope: 'col' }, 'QRN'), header('vendor', 'Vendor'), header('deviceType', 'Type'),
          header('status', 'Status'), header('numberQubits', 'Qubits', 'num'), h('th', { scope: 'col', class: 'num' }, 'Queue'),
          h('th', { scope: 'col' }, 'Pricing'), h('th', { scope: 'col' }, 'Noise models'), h('th', { scope: 'col' }, 'Inputs'))),
        tbody)),
    pager);

  call('/devices', { query: { sortBy, sortOrder, page, limit: LIMIT }, signal }).then((doc) => {
    for (const d of doc.data) {
      tbody.append(h('tr', { dataset: { qrn: d.qrn } },
        h('td', { class: 'name' }, link(devicePath(d.qrn), d.name)),
        h('td', { class: 'mono' }, d.qrn),
        h('td', null, d.vendor),
        h('td', null, d.deviceType),
        h('td', null, status(d.status)),
        h('td', { class: 'num' }, count(d.numberQubits)),
        h('td', { class: 'num' }, count(d.queueDepth)),
        h('td', null, pricing(d.pricing)),
        h('td', null, list(d.noiseModels)),
        h('td', null, list(d.runInputTypes))));
    }
    const p = doc.pagination || { page: 1, totalPages: 1, total: doc.data.length };
    fill(caption, `${count(p.total)} devices · sorted by ${SORTABLE[sortBy].toLowerCase()}, ${sortOrder === 'asc' ? 'ascending' : 'descending'}`);
    fill(pager,
      p.hasPrev ? h('a', { class: 'button', rel: 'prev', href: hashFor({ sortBy, sortOrder, page: p.page - 1 }) }, '← Previous') : null,
      p.totalPages > 1 ? h('span', null, `Page ${p.page} of ${p.totalPages}`) : null,
      p.hasNext ? h('a', { class: 'button', rel: 'next', href: hashFor({ sortBy, sortOrder, page: p.page + 1 }) }, 'Next →') : null);
  }, (err) => {
    if (err.name !== 'AbortError') errorBox(error, err);
  });
}

export function deviceView(main, { param: qrn, signal }) {
  const heading = h('h1', null, 'Device');
  const error = h('div', { class: 'error', role: 'alert' });
  const body = h('div');
  main.append(h('p', null, link('/devices', '← Devices')), heading, error, body);
  call(devicePath(qrn), { signal }).then((doc) => {
    const d = doc.data;
    fill(heading, d.name);
    fill(body,
      h('p', { class: 'mono hint' }, d.qrn),
      h('p', { class: 'row' }, status(d.status), d.statusMsg ? h('span', null, d.statusMsg) : null),
      d.description ? h('p', { id: 'device-description' }, d.description) : null,
      h('p', null, h('a', { class: 'button primary', href: '#/submit?device=' + encodeURIComponent(d.qrn) }, 'Submit a job to this device')),
      kv([
        ['Vendor', d.vendor],
        ['Type', d.deviceType],
        ['Paradigm', d.paradigm],
        ['Modality', d.modality ?? undefined],
        ['Qubits', count(d.numberQubits)],
        ['Queue depth', count(d.queueDepth)],
        ['Average queue time', d.avgQueueTime ?? undefined],
        ['Next available', d.nextAvailable ? time(d.nextAvailable) : undefined],
        ['Pricing', `${pricing(d.pricing)} (${d.pricingModel})`],
        ['Noise models', list(d.noiseModels)],
        ['Precisions', d.precisions ? list(d.precisions) : undefined],
        ['Run input types', list(d.runInputTypes)],
        ['Shots', d.minShots || d.maxShots ? `${count(d.minShots || 1)} to ${count(d.maxShots || 1_000_000)}` : undefined],
        ['Batch jobs', d.batchJobSupport ? 'yes' : 'no'],
        ['Direct access', d.directAccess ? 'yes' : 'no'],
        ['Topology', d.topology ? JSON.stringify(d.topology) : undefined],
      ]));
  }, (err) => {
    if (err.name === 'AbortError') return;
    fill(heading, 'Device not available');
    errorBox(error, err);
  });
}
