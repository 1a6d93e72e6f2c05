// Submitting a job: a program pasted or uploaded, its format, the device,
// shots, runtime options from the device's own lists (noise models,
// precisions), tags and a name; the estimated cost
// (GET /jobs/cost-estimate) as the choices change; POST /jobs, then the
// new job's page.

import { h, fill, errorBox } from './dom.js';
import { call, jobPath } from './api.js';
import { credits } from './format.js';
import { parseTags } from './jobs.js';
import { formatsOf, isAnnealer, MAXCUT } from './problem.js';

const BELL = `OPENQASM 3.0;
include "stdgates.inc";
// A Bell pair: both qubits measure alike, 00 or 11 about half the time each.
qubit[2] q;
bit[2] c;
h q[0];
cx q[0], q[1];
c = measure q;
`;

const BELL_QUIL = `# A Bell pair: both qubits measure alike, 00 or 11 about half the time each.
DECLARE ro BIT[2]
H 0
CNOT 0 1
MEASURE 0 ro[0]
MEASURE 1 ro[1]
`;

const BELL_IONQ = `{
  "qubits": 2,
  "circuit": [
    {"gate": "h", "target": 0},
    {"gate": "cnot", "control": 0, "target": 1}
  ]
}
`;

// EXAMPLES are the example in each format that has one: a Bell pair, or
// for an annealer a max-cut.
const EXAMPLES = { qasm3: BELL, quil: BELL_QUIL, 'ionq.circuit.v0': BELL_IONQ, problem: MAXCUT };

const PREFERRED_DEVICE = 'qbraid:qbraid:sim:qir-sv';

// toBase64 writes bytes as standard base64, as the API takes bitcode.
function toBase64(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

// formatOf guesses a file's format from its name and first bytes.
function formatOf(name, text) {
  if (/\.(bc)$/i.test(name)) return 'qir.bc';
  if (/\.(ll)$/i.test(name)) return 'qir.ll';
  if (/\.(quil)$/i.test(name)) return 'quil';
  if (/OPENQASM\s+3/.test(text)) return 'qasm3';
  if (/OPENQASM\s+2/.test(text)) return 'qasm2';
  if (/^\s*\{/.test(text) && /"circuit"\s*:/.test(text)) return 'ionq.circuit.v0';
  if (/^\s*(DECLARE|DEFGATE)\b/m.test(text)) return 'quil';
  return '';
}

function field(id, label, control, hint) {
  return h('div', { class: 'field' }, h('label', { for: id }, label, hint ? h('span', { class: 'hint' }, ' ' + hint) : null), control);
}

export function submitView(main, { query, signal }) {
  const device = h('select', { id: 'device', name: 'device', required: true }, h('option', { value: '' }, 'Loading devices…'));
  const format = h('select', { id: 'format', name: 'format', required: true });
  const program = h('textarea', { id: 'program', name: 'program', spellcheck: 'false', required: true, rows: 12 });
  const file = h('input', { id: 'program-file', type: 'file', accept: '.qasm,.ll,.bc,.quil,.json,.txt' });
  const example = h('button', { type: 'button', id: 'example' }, 'Use the Bell example');
  const shots = h('input', { id: 'shots', name: 'shots', type: 'number', min: 1, step: 1, value: 1000, required: true, inputmode: 'numeric' });
  const name = h('input', { id: 'name', name: 'name', maxlength: 255, autocomplete: 'off' });
  const tags = h('input', { id: 'job-tags', name: 'tags', placeholder: 'team=red, run=3', autocomplete: 'off' });
  const noise = h('select', { id: 'noiseModel', name: 'noiseModel' });
  const precision = h('select', { id: 'precision', name: 'precision' });
  const seed = h('input', { id: 'seed', name: 'seed', type: 'number', min: 0, step: 1, inputmode: 'numeric' });
  const estimate = h('p', { id: 'estimate', 'aria-live': 'polite' });
  const error = h('div', { class: 'error', role: 'alert', id: 'submit-error' });
  const button = h('button', { type: 'submit', class: 'primary', id: 'submit' }, 'Submit job');
  const noiseField = field('noiseModel', 'Noise model', noise);
  const precisionField = field('precision', 'Precision', precision);

  const form = h('form', { id: 'submit-form', novalidate: true },
    h('div', { class: 'fields' },
      field('device', 'Device', device),
      field('format', 'Format', format),
      field('shots', 'Shots', shots)),
    h('div', { class: 'field' },
      h('label', { for: 'program' }, 'Program'),
      program,
      h('div', { class: 'row' },
        h('label', { for: 'program-file', class: 'hint' }, 'or upload a file:'), file, example)),
    h('div', { class: 'fields' },
      field('name', 'Name', name, '(optional)'),
      field('job-tags', 'Tags', tags, '(key=value, …)'),
      noiseField, precisionField,
      field('seed', 'Seed', seed, '(optional)')),
    estimate, error, button);
  main.append(h('h1', null, 'Submit a job'), form);

  const devices = new Map();
  const current = () => devices.get(device.value);

  function options(select, values, first) {
    fill(select, first ? h('option', { value: '' }, first) : null, values.map((v) => h('option', { value: v }, v)));
  }

  // deviceChanged offers what the chosen device takes.
  function deviceChanged() {
    const d = current();
    if (!d) return;
    const keep = format.value;
    const formats = formatsOf(d.runInputTypes);
    options(format, formats);
    const guess = formatOf('', program.value);
    if (formats.includes(keep)) format.value = keep;
    else if (guess && formats.includes(guess)) format.value = guess;
    options(noise, d.noiseModels || [], 'The device\'s default');
    noiseField.hidden = !(d.noiseModels && d.noiseModels.length);
    options(precision, d.precisions || [], 'The device\'s default');
    precisionField.hidden = !(d.precisions && d.precisions.length);
    fill(form.querySelector('label[for="shots"]'), isAnnealer(d) ? 'Reads (shots)' : 'Shots');
    fill(example, isAnnealer(d) ? 'Use the max-cut example' : 'Use the Bell example');
    shots.min = d.minShots || 1;
    shots.max = d.maxShots || 1_000_000;
    estimateCost();
  }

  let estimateTimer = 0;
  let estimateSeq = 0;
  function estimateCost() {
    clearTimeout(estimateTimer);
    estimateTimer = setTimeout(async () => {
      const seq = ++estimateSeq;
      if (!device.value || shots.value === '') return fill(estimate);
      try {
        const doc = await call('/jobs/cost-estimate', { query: { deviceQrn: device.value, shots: shots.value }, signal });
        if (seq === estimateSeq) fill(estimate, `Estimated cost: ${credits(doc.data.estimatedCost)} (1 credit = $0.01).`);
      } catch (err) {
        if (err.name !== 'AbortError' && seq === estimateSeq) fill(estimate, `No estimate: ${err.message}`);
      }
    }, 200);
  }
  signal.addEventListener('abort', () => clearTimeout(estimateTimer));

  device.addEventListener('change', deviceChanged);
  // A pasted OpenQASM program says its version: follow it.
  program.addEventListener('change', () => {
    const guess = formatOf('', program.value);
    if (guess && [...format.options].some((o) => o.value === guess)) format.value = guess;
  });
  shots.addEventListener('input', estimateCost);
  // The example is the Bell pair in the chosen format, or in the first of
  // the device's formats that has one.
  example.addEventListener('click', () => {
    const offered = [...format.options].map((o) => o.value);
    const f = EXAMPLES[format.value] ? format.value : offered.find((v) => EXAMPLES[v]) || 'qasm3';
    program.value = EXAMPLES[f];
    if (offered.includes(f)) format.value = f;
    if (!name.value) name.value = f === 'problem' ? 'Max-cut of a square' : 'Bell pair';
    program.focus();
  });
  file.addEventListener('change', async () => {
    const f = file.files[0];
    if (!f) return;
    const bytes = new Uint8Array(await f.arrayBuffer());
    const binary = /\.bc$/i.test(f.name) || (bytes[0] === 0x42 && bytes[1] === 0x43); // 'BC': LLVM bitcode's magic
    const text = binary ? toBase64(bytes) : new TextDecoder().decode(bytes);
    program.value = text;
    const guess = binary ? 'qir.bc' : formatOf(f.name, text);
    if ([...format.options].some((o) => o.value === guess)) format.value = guess;
    if (!name.value) name.value = f.name;
  });

  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    errorBox(error, null);
    const body = {
      program: { format: format.value, data: program.value },
      shots: shots.value === '' ? undefined : Number(shots.value),
      deviceQrn: device.value,
    };
    if (name.value.trim()) body.name = name.value.trim();
    try {
      const t = parseTags(tags.value);
      if (t) body.tags = JSON.parse(t);
    } catch {
      errorBox(error, { message: 'Tags: write key=value pairs separated by commas, or a JSON object such as {"team": "red"}.' });
      tags.focus();
      return;
    }
    const opts = {};
    if (noise.value) opts.noiseModel = noise.value;
    if (precision.value) opts.precision = precision.value;
    if (seed.value !== '') opts.seed = Number(seed.value);
    if (Object.keys(opts).length) body.runtimeOptions = opts;
    button.disabled = true;
    try {
      const doc = await call('/jobs', { method: 'POST', body, signal });
      location.hash = '#' + jobPath(doc.data.jobQrn);
    } catch (err) {
      if (err.name === 'AbortError') return;
      errorBox(error, err); // the API's message, with each field at fault
      button.disabled = false;
    }
  });

  call('/devices', { query: { limit: 100 }, signal }).then((doc) => {
    for (const d of doc.data) devices.set(d.qrn, d);
    fill(device, doc.data.map((d) => h('option', { value: d.qrn, disabled: d.status !== 'ONLINE' },
      `${d.name} (${d.qrn})${d.status !== 'ONLINE' ? ' · ' + d.status : ''}`)));
    const wanted = query.get('device');
    device.value = devices.has(wanted) ? wanted : devices.has(PREFERRED_DEVICE) ? PREFERRED_DEVICE : (doc.data[0]?.qrn || '');
    deviceChanged();
  }, (err) => {
    if (err.name !== 'AbortError') errorBox(error, err);
  });
}
