// Steering the run: control requests, the status line (the shared state and why the run is
// held), the buttons, and the colours of the buttons and the time bar (green while
// computing, blue in replay), driven by CSS classes on <body>.

import { apiUrl, el, formatTime, page, showMessage } from './page.js';

// Control requests run one after another, so that commands arrive in the order given.
let controlChain = Promise.resolve();
let realTimePending = 0;    // real_time requests in flight (status does not overwrite the inputs)

/** Sends `{"command": command, "view": <this page>, ...extra}`; errors go to the message line. */
export function control(command, extra) {
  const body = Object.assign({ command, view: page.viewId }, extra || {});
  if (command === 'real_time') realTimePending++;
  const run = async () => {
    try {
      const resp = await fetch(apiUrl('/api/control'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
      let answer = null;
      try { answer = await resp.json(); } catch (e) { answer = null; }
      if (!resp.ok) {
        const why = answer && answer.error ? answer.error : resp.status + ' ' + resp.statusText;
        showMessage(command + ': ' + why, true);
      } else if (el.message.className === 'error') {
        showMessage('');
      }
      // The answer is the status as the command found it; only the stream sets the status,
      // so that a late answer never overwrites a newer state.
    } catch (e) {
      showMessage(command + ': ' + (e && e.message ? e.message : 'request failed'), true);
    } finally {
      if (command === 'real_time') realTimePending--;
    }
  };
  controlChain = controlChain.then(run, run);
  return controlChain;
}

/** Whether the time bar steers the run (`seek`): a live run that is not waiting or over. */
export function seekable() {
  const st = page.status ? page.status.state : null;
  return !page.stored && (st === 'running' || st === 'paused' || st === 'replay');
}

/** Pacing figures, e.g. "real time ×1 · total 0.990 · rolling 1.000 · 0 overruns". */
function pacingText(s) {
  const parts = [];
  if (s.real_time != null) parts.push('real time ×' + String(s.real_time));
  const p = s.pacing;
  if (p) {
    if (typeof p.total_factor === 'number') parts.push('total ' + p.total_factor.toFixed(3));
    if (typeof p.rolling_factor === 'number') parts.push('rolling ' + p.rolling_factor.toFixed(3));
    if (typeof p.overruns === 'number') {
      let o = p.overruns + (p.overruns === 1 ? ' overrun' : ' overruns');
      if (p.overruns > 0 && typeof p.max_overrun === 'number') {
        o += ' (max ' + p.max_overrun.toFixed(3) + ' s)';
      }
      parts.push(o);
    }
  }
  return parts.join(' · ');
}

/** Why the run is held, e.g. "replay from another view", "paused from this view". */
export function reason(s) {
  if (s.state !== 'paused' && s.state !== 'replay') return '';
  const word = s.state === 'replay' ? 'replay' : 'paused';
  if (s.by == null) return word + ' from the control API';
  return word + (s.by === page.viewId ? ' from this view' : ' from another view');
}

/** Shows status `s` (the shared state) in the status line, the colours and the buttons. */
export function showStatus(s) {
  const state = page.stored ? 'replay' : String(s.state);
  el.state.textContent = state;
  el.state.className = 'state-' + state;
  el.why.textContent = page.stored ? 'stored results' : reason(s);
  document.body.className = 'run-' + state;
  el.simTime.textContent = s.t == null ? '' : formatTime(s.t);
  el.pacing.textContent = pacingText(s);
  el.ending.textContent = s.state === 'finished' && s.ending ? s.ending : '';
  // Keep the pacing inputs in step with the server (not while the user edits them).
  if (!page.stored && realTimePending === 0) {
    el.realtime.checked = s.real_time != null;
    if (s.real_time != null && document.activeElement !== el.factor) {
      el.factor.value = String(s.real_time);
      lastSentFactor = s.real_time;
    }
    if (s.real_time == null) lastSentFactor = null;
  }
  updateButtons();
}

/** Enables the buttons that make sense for the current state. */
export function updateButtons() {
  const st = page.status ? page.status.state : null;
  const live = !page.stored && st != null;
  const held = st === 'paused' || st === 'replay';
  el.start.disabled = !(live && st === 'waiting');
  el.pause.disabled = !(live && st === 'running');
  el.resume.disabled = !(live && held);
  el.step.disabled = !(live && (st === 'waiting' || held));
  el.stop.disabled = !(live && st !== 'finished');
  el.realtime.disabled = !(live && st !== 'finished');
  el.factor.disabled = el.realtime.disabled;
}

// Real-time pacing: the checkbox switches it, the number is the factor. Changing either
// sends {"command": "real_time", "factor": number-or-null}. The factor is sent on `change`
// and, while typing, shortly after the last `input`; the same value is not sent twice.
let lastSentFactor;         // undefined: nothing sent yet
let factorTimer = 0;

function sendRealTime() {
  clearTimeout(factorTimer);
  let factor = null;
  if (el.realtime.checked) {
    factor = Number(el.factor.value);
    if (el.factor.value.trim() === '' || !Number.isFinite(factor) || factor <= 0) {
      showMessage('real time: the factor must be a number > 0', true);
      return;
    }
  }
  if (factor === lastSentFactor) return;
  lastSentFactor = factor;
  control('real_time', { factor });
}

/** Wires the toolbar; `follow()` makes the cursor follow the newest row again. */
export function attachToolbar(follow) {
  el.start.addEventListener('click', () => { follow(); control('start'); });
  el.pause.addEventListener('click', () => control('pause'));
  el.resume.addEventListener('click', () => { follow(); control('resume'); });
  el.step.addEventListener('click', () => { follow(); control('step'); });
  el.stop.addEventListener('click', () => control('stop'));
  el.realtime.addEventListener('change', () => { lastSentFactor = undefined; sendRealTime(); });
  el.factor.addEventListener('change', sendRealTime);
  el.factor.addEventListener('input', () => {
    clearTimeout(factorTimer);
    factorTimer = setTimeout(sendRealTime, 600);
  });
}
