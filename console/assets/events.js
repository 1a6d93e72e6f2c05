// Server-Sent Events read with fetch. A browser's EventSource cannot send
// headers, and the key must travel in X-API-KEY, never in the URL; so the
// stream is read from a ReadableStream and parsed here, with the same
// reconnection rule as EventSource: after a drop, reconnect with
// Last-Event-ID, and stop on a 204 (the job's stream has told its end).

import { request, failure, APIError } from './api.js';

// follow reads path's events until signal aborts, the server answers 204,
// or an error that retrying cannot mend (4xx, said to onError). onEvent
// gets {type, id, data} with data parsed from JSON.
export async function follow(path, { query, signal, onEvent, onOpen, onError }) {
  let lastId = '';
  let wait = 1000;
  while (!signal.aborted) {
    try {
      const headers = { Accept: 'text/event-stream' };
      if (lastId) headers['Last-Event-ID'] = lastId;
      const res = await request(path, { query, signal, headers });
      if (res.status === 204) return;
      if (!res.ok) {
        const err = await failure(res);
        if (res.status < 500 && res.status !== 429) {
          onError?.(err);
          return;
        }
        throw err;
      }
      onOpen?.();
      wait = 1000;
      for await (const ev of parse(res.body, signal)) {
        if (ev.id) lastId = ev.id;
        let data = null;
        try { data = JSON.parse(ev.data); } catch { continue; }
        onEvent({ type: ev.type, id: ev.id, data });
      }
    } catch (e) {
      if (signal.aborted) return;
      if (!(e instanceof APIError) && e.name !== 'TypeError') throw e;
    }
    // The stream dropped (a restart, a network change): try again a little
    // later each time, up to half a minute.
    await pause(wait, signal);
    wait = Math.min(wait * 2, 30_000);
  }
}

function pause(ms, signal) {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(t); resolve(); }, { once: true });
  });
}

// parse yields the events of an event-stream body, as the HTML standard
// reads them: fields per line, an empty line ends an event, comments
// (heartbeats) are dropped.
async function* parse(body, signal) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  const stop = () => reader.cancel().catch(() => {});
  signal.addEventListener('abort', stop, { once: true });
  let buf = '';
  let ev = { type: 'message', id: '', data: [] };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let nl;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith('\r\n', nl) ? 2 : 1));
        if (line === '') {
          if (ev.data.length > 0) yield { type: ev.type, id: ev.id, data: ev.data.join('\n') };
          ev = { type: 'message', id: ev.id, data: [] };
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') ev.type = value;
        else if (field === 'data') ev.data.push(value);
        else if (field === 'id') ev.id = value;
      }
    }
  } finally {
    signal.removeEventListener('abort', stop);
  }
}
