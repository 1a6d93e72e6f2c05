// A job's page: GET /jobs/{qrn}, then its event stream
// (GET /jobs/{qrn}/events) for every change until its end, its program
// (GET /jobs/{qrn}/program) and, once COMPLETED, its result
// (GET /jobs/{qrn}/result) as histograms and count tables, one per circuit
// of a batch. Cancel and delete answer with the API's own words.
//
// The API keeps a job's creation and end times, not when it passed
// through each status in between: the timeline shows those two exactly and
// the statuses in between as this page saw them arrive, and says so.

import { h, fill, kv, link, errorBox, announce, download, flash } from './dom.js';
import { call, jobPath, devicePath } from './api.js';
import { follow } from './events.js';
import { time, duration, credits, count, status, value, isFinal } from './format.js';
import { histogram } from './histogram.js';
import { countsTable } from './counts.js';
import { isAnnealing, solutionsTable } from './solutions.js';
import { register } from './register.js';

const BITCODE = ['qir.bc', 'pyqir'];
const OPEN_CIRCUITS = 4; // a batch's first circuits are drawn at once, the rest when opened

// fileName is a QRN made safe as a file name.
const fileName = (qrn) => qrn.replace(/[^A-Za-z0-9._-]+/g, '_');

// base64Bytes decodes standard base64 (the API's bitcode) to bytes.
function base64Bytes(b64) {
  const bin = atob(b64.replace(/\s+/g, ''));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function entries(obj) {
  const list = Object.entries(obj || {});
  if (list.length === 0) return h('p', { class: 'empty' }, 'None.');
  return kv(list.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, v]) => [k, value(v)]));
}

export function jobView(main, { param: qrn, signal }) {
  const heading = h('h1', null, 'Job');
  const error = h('div', { class: 'error', role: 'alert', id: 'job-error' });
  main.append(h('p', null, link('/jobs', '← Jobs')), heading, error);

  call(jobPath(qrn), { signal }).then((doc) => page(doc.data), (err) => {
    if (err.name === 'AbortError') return;
    fill(heading, 'Job not available');
    errorBox(error, err);
  });

  function page(first) {
    let job = first;
    const statusLine = h('p', { class: 'row', id: 'job-status' });
    const notice = h('p', { class: 'notice', role: 'status', id: 'job-notice' });
    const cancelButton = h('button', { type: 'button', id: 'cancel', class: 'danger' }, 'Cancel job');
    const deleteButton = h('button', { type: 'button', id: 'delete', class: 'danger' }, 'Delete job');
    const confirmBox = h('div', { class: 'row', hidden: true, id: 'confirm' });
    const details = h('div');
    const timeline = h('ol', { class: 'timeline', id: 'timeline' });
    const tags = h('div', { id: 'tags' });
    const options = h('div', { id: 'runtime-options' });
    const metadata = h('div', { id: 'metadata' });
    const result = h('section', { id: 'result', 'aria-labelledby': 'result-h' });
    const program = h('section', { id: 'program', 'aria-labelledby': 'program-h' }, h('h2', { id: 'program-h' }, 'Program'), h('p', { class: 'empty' }, 'Loading…'));
    const steps = [{ status: 'CREATED', at: first.timeStamps.createdAt, exact: true }];

    main.append(
      h('p', { class: 'mono hint', id: 'job-qrn' }, first.jobQrn),
      statusLine,
      h('div', { class: 'toolbar' }, cancelButton, deleteButton, confirmBox),
      notice,
      h('div', { class: 'grid2' },
        h('section', { 'aria-labelledby': 'details-h' }, h('h2', { id: 'details-h' }, 'Details'), details),
        h('section', { 'aria-labelledby': 'timeline-h' }, h('h2', { id: 'timeline-h' }, 'Timeline'), timeline,
          h('p', { class: 'hint' }, 'Creation and end are the service\'s times; the statuses between are when this page saw them.'))),
      h('div', { class: 'grid2' },
        h('section', { 'aria-labelledby': 'tags-h' }, h('h2', { id: 'tags-h' }, 'Tags'), tags),
        h('section', { 'aria-labelledby': 'options-h' }, h('h2', { id: 'options-h' }, 'Runtime options'), options)),
      h('section', { 'aria-labelledby': 'metadata-h' }, h('h2', { id: 'metadata-h' }, 'Metadata'), metadata),
      result,
      program);

    let resultShown = false;
    function update(j) {
      const changed = j.status !== job.status;
      job = j;
      fill(heading, j.name || '(unnamed job)');
      fill(statusLine, status(j.status),
        j.queuePosition ? h('span', null, `position ${j.queuePosition} in the queue`) : null,
        j.statusMsg ? h('span', { id: 'status-msg' }, j.statusMsg) : null);
      const final = isFinal(j.status);
      cancelButton.disabled = final;
      deleteButton.disabled = !final;
      const ts = j.timeStamps || {};
      fill(details, kv([
        ['Device', link(devicePath(j.deviceQrn), j.deviceQrn)],
        ['Vendor / provider', `${j.vendor} / ${j.provider}`],
        ['Shots', count(j.shots)],
        ['Circuits', j.numCircuits > 1 ? count(j.numCircuits) : undefined],
        ['Created', time(ts.createdAt)],
        ['Ended', time(ts.endedAt)],
        ['Execution', ts.endedAt ? duration(ts.executionDuration) : '—'],
        ['Estimated cost', credits(j.estimatedCost)],
        ['Cost', final ? credits(j.cost) : '— (when it ends)'],
        ['Experiment', j.experimentType],
        ['Batch', j.batchJobQrn || undefined],
      ]));
      const last = steps[steps.length - 1];
      if (last.status !== j.status) {
        steps.push(final
          ? { status: j.status, at: ts.endedAt || new Date().toISOString(), exact: Boolean(ts.endedAt) }
          : { status: j.status, at: new Date().toISOString(), exact: false });
      }
      fill(timeline, steps.map((s) => h('li', { dataset: { status: s.status } },
        s.status === 'CREATED' ? 'Created' : status(s.status), ' ', time(s.at), s.exact ? null : h('span', { class: 'hint' }, ' (seen)'))));
      fill(tags, entries(j.tags));
      fill(options, entries(j.runtimeOptions));
      fill(metadata, entries(j.metadata));
      if (changed) announce(`Job ${j.status}`);
      if (j.status === 'COMPLETED' && !resultShown) {
        resultShown = true;
        showResult();
      }
    }

    async function showResult() {
      fill(result, h('h2', { id: 'result-h' }, 'Result'), h('p', { class: 'empty' }, 'Loading…'));
      let doc;
      try {
        doc = await call(jobPath(qrn) + '/result', { signal });
      } catch (err) {
        if (err.name === 'AbortError') return;
        fill(result, h('h2', { id: 'result-h' }, 'Result'), errorBox(h('div', { class: 'error', role: 'alert' }), err));
        return;
      }
      const data = doc.data;
      const save = h('button', { type: 'button', id: 'download-result' }, 'Download result JSON');
      save.addEventListener('click', () => download(`${fileName(qrn)}-result.json`, JSON.stringify(data, null, 2) + '\n', 'application/json'));
      fill(result, h('h2', { id: 'result-h' }, 'Result'), h('div', { class: 'toolbar' }, save));
      if (Array.isArray(data.results)) {
        // A batch: one histogram per circuit, in order.
        data.results.forEach((c, i) => {
          const label = `Circuit ${i + 1} of ${data.results.length}`;
          const body = h('div');
          const drawn = () => { if (!body.firstChild) fill(body, circuit(c.resultData?.measurementCounts || {}, label)); };
          const d = h('details', { class: 'panel circuit', open: i < OPEN_CIRCUITS, dataset: { circuit: i } },
            h('summary', null, `${label} · ${credits(c.cost)}`), body);
          d.addEventListener('toggle', drawn);
          if (i < OPEN_CIRCUITS) drawn();
          result.append(d);
        });
      } else if (isAnnealing(data.resultData)) {
        result.append(solutionsTable(data.resultData));
      } else {
        result.append(circuit(data.resultData?.measurementCounts || {}, 'Counts'));
        if (job.experimentType === 'analog') showRegister(data.resultData?.measurementCounts || {});
      }
    }

    // An analog job's register, drawn from its program and its counts.
    async function showRegister(counts) {
      try {
        const fig = register((await call(jobPath(qrn) + '/program', { signal })).data, counts);
        if (fig) result.append(fig);
      } catch (err) {
        if (err.name !== 'AbortError') result.append(errorBox(h('div', { class: 'error', role: 'alert' }), err));
      }
    }

    function circuit(counts, label) {
      return h('div', { class: 'circuit-result grid2' }, histogram(counts, label), countsTable(counts, label));
    }

    async function showProgram() {
      let doc;
      try {
        doc = await call(jobPath(qrn) + '/program', { signal });
      } catch (err) {
        if (err.name === 'AbortError') return;
        fill(program, h('h2', { id: 'program-h' }, 'Program'), errorBox(h('div', { class: 'error', role: 'alert' }), err));
        return;
      }
      const list = Array.isArray(doc.data) ? doc.data : [doc.data];
      fill(program, h('h2', { id: 'program-h' }, list.length > 1 ? `Programs (${list.length})` : 'Program'));
      list.forEach((p, i) => {
        const name = `${fileName(qrn)}${list.length > 1 ? '-' + (i + 1) : ''}`;
        const body = programBody(p, name);
        program.append(list.length > 1
          ? h('details', { class: 'panel', open: i === 0 }, h('summary', null, `Circuit ${i + 1} · ${p.format}`), body)
          : body);
      });
    }

    function programBody(p, name) {
      const save = h('button', { type: 'button', class: 'download-program' }, 'Download');
      if (BITCODE.includes(p.format)) {
        let bytes = null;
        try { bytes = base64Bytes(p.data); } catch { /* shown as text below */ }
        if (bytes) {
          save.addEventListener('click', () => download(`${name}.bc`, bytes, 'application/octet-stream'));
          return h('div', { class: 'program-bitcode' },
            h('p', null, `Format ${p.format}: LLVM bitcode, ${count(bytes.length)} bytes.`), save);
        }
      }
      const json = typeof p.data === 'object'; // a JSON format's data, answered as the object
      const text = json ? JSON.stringify(p.data, null, 2) : p.data;
      const ext = json ? 'json' : p.format.startsWith('qasm') ? 'qasm' : p.format === 'qir.ll' ? 'll' : p.format === 'quil' ? 'quil' : 'txt';
      save.addEventListener('click', () => download(`${name}.${ext}`, text, json ? 'application/json' : 'text/plain'));
      return h('div', null,
        h('div', { class: 'row' }, h('span', null, `Format ${p.format}`), save),
        h('pre', { class: 'program', tabindex: 0 }, text)); // text, never markup
    }

    cancelButton.addEventListener('click', async () => {
      cancelButton.disabled = true;
      errorBox(error, null);
      try {
        const doc = await call(jobPath(qrn) + '/cancel', { method: 'POST', signal });
        fill(notice, doc.data.message);
      } catch (err) {
        if (err.name === 'AbortError') return;
        errorBox(error, err);
        cancelButton.disabled = isFinal(job.status);
      }
    });

    deleteButton.addEventListener('click', () => {
      const yes = h('button', { type: 'button', class: 'danger', id: 'confirm-yes' }, 'Delete');
      const no = h('button', { type: 'button' }, 'Keep it');
      fill(confirmBox, h('span', null, 'Delete this job, its program and its result? This cannot be undone.'), yes, no);
      confirmBox.hidden = false;
      no.addEventListener('click', () => { confirmBox.hidden = true; deleteButton.focus(); });
      yes.addEventListener('click', async () => {
        confirmBox.hidden = true;
        errorBox(error, null);
        try {
          const doc = await call(jobPath(qrn), { method: 'DELETE', signal });
          flash(doc.data.message);
          location.hash = '#/jobs';
        } catch (err) {
          if (err.name === 'AbortError') return;
          errorBox(error, err);
        }
      });
      yes.focus();
    });

    update(first);
    showProgram();
    if (!isFinal(first.status)) {
      follow(jobPath(qrn) + '/events', {
        signal,
        onEvent: ({ type, data }) => { if (type === 'job' && data?.jobQrn === qrn) update(data); },
        onError: (err) => errorBox(error, err),
      });
    }
  }
}
