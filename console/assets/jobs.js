// The jobs list: GET /jobs with its filters and paging (newest first, the
// one order the API has), kept live by GET /jobs/events, and a multi-select
// delete of finished jobs (DELETE /jobs?qrns=[...]).
//
// The filters live in the URL's fragment, so that a filtered page can be
// bookmarked and Back returns to it. The event stream is opened before the
// list is read, as the API advises, so that no change falls between them:
// a change to a job on screen is applied to its row in place; any other
// (a new job, or a change that may move a job in or out of the filtered
// list) reads the page again.

import { h, fill, link, errorBox, announce, takeFlash } from './dom.js';
import { call, jobPath } from './api.js';
import { follow } from './events.js';
import { time, duration, credits, count, status, isFinal } from './format.js';

export const STATUSES = ['INITIALIZING', 'QUEUED', 'VALIDATING', 'RUNNING', 'CANCELLING', 'CANCELLED', 'COMPLETED', 'FAILED', 'UNKNOWN', 'HOLD'];
export const VENDORS = ['aws', 'azure', 'ibm', 'ionq', 'qbraid'];
const LIMITS = [10, 25, 50, 100];
const FILTERS = ['statusGroup', 'status', 'vendor', 'provider', 'tags', 'search'];

// parseTags reads the tags filter as typed: a JSON object, or key=value
// pairs separated by commas (true/false and integers as such, the rest as
// strings). It returns the JSON the API takes, or throws.
export function parseTags(text) {
  const t = text.trim();
  if (t === '') return '';
  if (t.startsWith('{')) {
    const o = JSON.parse(t);
    if (o === null || typeof o !== 'object' || Array.isArray(o)) throw new Error('not an object');
    return JSON.stringify(o);
  }
  const o = {};
  for (const pair of t.split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new Error('not key=value');
    const k = pair.slice(0, eq).trim();
    const v = pair.slice(eq + 1).trim();
    o[k] = v === 'true' ? true : v === 'false' ? false : /^-?\d{1,15}$/.test(v) ? Number(v) : v;
  }
  return JSON.stringify(o);
}

function select(id, label, options, value) {
  return h('div', { class: 'field' },
    h('label', { for: id }, label),
    h('select', { id, name: id },
      options.map(([v, text]) => h('option', { value: v, selected: v === value }, text))));
}

function input(id, label, value, attrs = {}) {
  return h('div', { class: 'field' },
    h('label', { for: id }, label),
    h('input', { id, name: id, value, ...attrs }));
}

// hashFor is the fragment of the list with these filters and page.
function hashFor(q) {
  const p = new URLSearchParams();
  for (const k of [...FILTERS, 'page', 'limit']) {
    if (q[k] !== '' && q[k] !== undefined && !(k === 'page' && q[k] === 1)) p.set(k, q[k]);
  }
  const s = p.toString();
  return '#/jobs' + (s ? '?' + s : '');
}

export function jobsView(main, { query, signal }) {
  const q = {
    statusGroup: query.get('statusGroup') || '',
    status: query.get('status') || '',
    vendor: query.get('vendor') || '',
    provider: query.get('provider') || '',
    tags: query.get('tags') || '',
    search: query.get('search') || '',
    page: Math.max(1, parseInt(query.get('page'), 10) || 1),
    limit: LIMITS.includes(Number(query.get('limit'))) ? Number(query.get('limit')) : 25,
  };

  const form = h('form', { class: 'filters', 'aria-label': 'Filter jobs' },
    select('statusGroup', 'Status group', [['', 'All'], ['pending', 'Pending'], ['returned', 'Returned']], q.statusGroup),
    select('status', 'Status', [['', 'Any'], ...STATUSES.map((s) => [s, s])], q.status),
    select('vendor', 'Vendor', [['', 'Any'], ...VENDORS.map((v) => [v, v])], q.vendor),
    input('provider', 'Provider', q.provider),
    input('tags', 'Tags', q.tags, { placeholder: 'team=red, run=3', 'aria-describedby': 'tags-hint' }),
    input('search', 'Search', q.search, { type: 'search', list: 'device-qrns', placeholder: 'name, QRN or device', 'aria-describedby': 'search-hint' }),
    select('limit', 'Per page', LIMITS.map((n) => [String(n), String(n)]), String(q.limit)),
    h('div', { class: 'field row' },
      h('button', { type: 'submit', class: 'primary' }, 'Apply'),
      h('a', { href: '#/jobs', class: 'button' }, 'Clear')),
    h('p', { class: 'hint', id: 'tags-hint' }, 'Tags: key=value pairs, comma-separated, or a JSON object.'),
    h('p', { class: 'hint', id: 'search-hint' }, 'Search matches part of a name, a job QRN or a device QRN: pick a device to see its jobs.'),
    h('datalist', { id: 'device-qrns' }));
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const f = new FormData(form);
    const next = { page: 1, limit: Number(f.get('limit')) };
    for (const k of FILTERS) next[k] = String(f.get(k) || '').trim();
    const hash = hashFor(next);
    if (location.hash === hash) load();
    else location.hash = hash;
  });

  const notice = h('p', { class: 'notice', role: 'status' }, takeFlash());
  const error = h('div', { class: 'error', role: 'alert', id: 'jobs-error' });
  const selected = new Set();
  const deleteButton = h('button', { type: 'button', class: 'danger', id: 'delete-selected', disabled: true }, 'Delete selected');
  const confirmBox = h('div', { class: 'row', id: 'confirm-delete', hidden: true });
  const live = h('span', { class: 'hint', id: 'live' }, 'Connecting to live updates…');
  const selectAll = h('input', { type: 'checkbox', id: 'select-all', 'aria-label': 'Select every finished job on this page' });
  const tbody = h('tbody', { id: 'jobs-body' });
  const summary = h('caption', { id: 'jobs-summary' }, 'Loading…');
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of jobs' });
  const rows = new Map(); // QRN → its <tr>
  const jobs = new Map(); // QRN → the job shown

  main.append(
    h('h1', null, 'Jobs'),
    notice, form,
    h('div', { class: 'toolbar' }, deleteButton, confirmBox, live),
    error,
    h('div', { class: 'table-wrap', role: 'region', 'aria-label': 'Jobs', tabindex: 0 },
      h('table', { id: 'jobs' },
        summary,
        h('thead', null, h('tr', null,
          h('th', { scope: 'col' }, selectAll),
          ['Name', 'QRN', 'Device', 'Status'].map((c) => h('th', { scope: 'col' }, c)),
          h('th', { scope: 'col', class: 'num' }, 'Shots'),
          h('th', { scope: 'col' }, 'Created'),
          h('th', { scope: 'col', class: 'num' }, 'Duration'),
          h('th', { scope: 'col', class: 'num' }, 'Cost'))),
        tbody)),
    pager);

  function syncSelection() {
    for (const qrn of [...selected]) if (!jobs.has(qrn) || !isFinal(jobs.get(qrn).status)) selected.delete(qrn);
    deleteButton.disabled = selected.size === 0;
    fill(deleteButton, selected.size ? `Delete selected (${selected.size})` : 'Delete selected');
    const finals = [...jobs.values()].filter((j) => isFinal(j.status));
    selectAll.checked = finals.length > 0 && finals.every((j) => selected.has(j.jobQrn));
    selectAll.disabled = finals.length === 0;
    if (selected.size === 0) confirmBox.hidden = true;
  }

  function row(job) {
    const final = isFinal(job.status);
    const box = h('input', {
      type: 'checkbox', class: 'select', disabled: !final, checked: selected.has(job.jobQrn),
      'aria-label': `Select job ${job.name || job.jobQrn}`,
      title: final ? null : 'Only a finished job can be deleted',
    });
    box.addEventListener('change', () => {
      if (box.checked) selected.add(job.jobQrn);
      else selected.delete(job.jobQrn);
      syncSelection();
    });
    return h('tr', { dataset: { qrn: job.jobQrn, status: job.status } },
      h('td', null, box),
      h('td', { class: 'name' }, link(jobPath(job.jobQrn), job.name || '(unnamed)')),
      h('td', { class: 'qrn mono', title: job.jobQrn }, job.jobQrn),
      h('td', { class: 'mono' }, job.deviceQrn),
      h('td', null, status(job.status)),
      h('td', { class: 'num' }, count(job.shots)),
      h('td', null, time(job.timeStamps?.createdAt)),
      h('td', { class: 'num' }, job.timeStamps?.endedAt ? duration(job.timeStamps.executionDuration) : '—'),
      h('td', { class: 'num' }, credits(isFinal(job.status) ? job.cost : job.estimatedCost),
        isFinal(job.status) ? null : h('span', { class: 'hint' }, ' (est.)')));
  }

  function pageLink(page, text, rel) {
    return h('a', { href: hashFor({ ...q, page }), rel, class: 'button' }, text);
  }

  function show(doc) {
    rows.clear();
    jobs.clear();
    fill(tbody);
    for (const job of doc.data) {
      const tr = row(job);
      rows.set(job.jobQrn, tr);
      jobs.set(job.jobQrn, job);
      tbody.append(tr);
    }
    const p = doc.pagination;
    if (doc.data.length === 0) {
      const filtered = FILTERS.some((k) => q[k] !== '');
      tbody.append(h('tr', null, h('td', { colspan: 9, class: 'empty' },
        filtered ? 'No jobs match these filters.' : p.total > 0 ? 'No jobs on this page.' : 'No jobs yet. ',
        filtered || p.total > 0 ? null : link('/submit', 'Submit one.'))));
    }
    fill(summary, `${count(p.total)} job${p.total === 1 ? '' : 's'}, newest first · page ${p.page} of ${Math.max(p.totalPages, 1)}`);
    fill(pager,
      p.hasPrev ? pageLink(p.page - 1, '← Previous', 'prev') : null,
      h('span', { id: 'page-info' }, `Page ${p.page} of ${Math.max(p.totalPages, 1)}`),
      p.hasNext ? pageLink(p.page + 1, 'Next →', 'next') : null);
    syncSelection();
  }

  // Reads of the page: one at a time, and a burst of events reads it once.
  let loaded = false;
  let loading = false;
  let again = false;
  let timer = 0;
  async function load() {
    if (loading) {
      again = true;
      return;
    }
    loading = true;
    let tags = '';
    try {
      tags = parseTags(q.tags);
    } catch {
      errorBox(error, { message: 'Tags: write key=value pairs separated by commas, or a JSON object such as {"team": "red"}.' });
      fill(summary, '');
      loading = false;
      return;
    }
    try {
      const doc = await call('/jobs', {
        signal,
        query: { statusGroup: q.statusGroup, status: q.status, vendor: q.vendor, provider: q.provider, tags, search: q.search, page: q.page, limit: q.limit },
      });
      errorBox(error, null);
      show(doc);
      loaded = true;
    } catch (err) {
      if (err.name === 'AbortError') return;
      errorBox(error, err);
      fill(summary, '');
    } finally {
      loading = false;
    }
    if (again && !signal.aborted) {
      again = false;
      load();
    }
  }
  function reload() {
    clearTimeout(timer);
    timer = setTimeout(load, 150);
  }
  signal.addEventListener('abort', () => clearTimeout(timer));

  const filtersStatus = q.status !== '' || q.statusGroup !== '';
  function onEvent({ type, data }) {
    if (type === 'reset') return reload();
    if (type !== 'job' || !data?.jobQrn) return;
    if (!loaded) return reload(); // the read under way may predate it
    const old = rows.get(data.jobQrn);
    if (!old) return reload();
    const tr = row(data);
    tr.classList.add('flash');
    old.replaceWith(tr);
    rows.set(data.jobQrn, tr);
    jobs.set(data.jobQrn, data);
    syncSelection();
    announce(`${data.name || data.jobQrn}: ${data.status}`);
    if (filtersStatus) reload(); // it may have left the filter's statuses
  }

  deleteButton.addEventListener('click', () => {
    const n = selected.size;
    const yes = h('button', { type: 'button', class: 'danger', id: 'confirm-delete-yes' }, `Delete ${n} job${n === 1 ? '' : 's'}`);
    const no = h('button', { type: 'button' }, 'Keep them');
    fill(confirmBox, h('span', null, `Delete ${n} finished job${n === 1 ? '' : 's'}, with program and result? This cannot be undone.`), yes, no);
    confirmBox.hidden = false;
    no.addEventListener('click', () => { confirmBox.hidden = true; deleteButton.focus(); });
    yes.addEventListener('click', () => remove([...selected]));
    yes.focus();
  });

  async function remove(qrns) {
    confirmBox.hidden = true;
    try {
      const doc = await call('/jobs', { method: 'DELETE', query: { qrns: JSON.stringify(qrns) }, signal });
      const ok = doc.data.successfulIds || [];
      const failed = Object.entries(doc.data.failedIds || {});
      for (const qrn of ok) selected.delete(qrn);
      fill(notice, `Deleted ${ok.length} job${ok.length === 1 ? '' : 's'}.`);
      // Each failure in the API's words: "Job is not in a final state", …
      fill(error, failed.length ? ['Not deleted:', h('ul', null, failed.map(([qrn, why]) => h('li', null, `${qrn}: ${why}`)))] : null);
    } catch (err) {
      if (err.name === 'AbortError') return;
      errorBox(error, err);
    }
    load();
  }

  selectAll.addEventListener('change', () => {
    for (const j of jobs.values()) {
      if (!isFinal(j.status)) continue;
      if (selectAll.checked) selected.add(j.jobQrn);
      else selected.delete(j.jobQrn);
    }
    for (const [qrn, tr] of rows) {
      const box = tr.querySelector('input.select');
      if (box && !box.disabled) box.checked = selected.has(qrn);
    }
    syncSelection();
  });

  // The devices' QRNs, offered in the search field: the API filters jobs
  // by device through search.
  call('/devices', { query: { limit: 100 }, signal }).then((doc) => {
    fill(form.querySelector('#device-qrns'), doc.data.map((d) => h('option', { value: d.qrn }, d.name)));
  }, () => {});

  let opened;
  const open = new Promise((resolve) => { opened = resolve; });
  follow('/jobs/events', {
    signal, onEvent,
    onOpen: () => { fill(live, 'Live: changes appear as they happen.'); opened(); },
    onError: (err) => { fill(live, `No live updates: ${err.message}`); opened(); },
  }).finally(opened);
  open.then(() => { if (!signal.aborted) load(); });
}
