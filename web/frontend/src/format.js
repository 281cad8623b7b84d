// Pure helpers of the room page: labels, countdowns, levels, microphone
// errors and reconnect delays. Nothing here touches the DOM or LiveKit, so
// `npm test` checks it under Node.

import { t } from './text.js';

/** Agent states as LiveKit agents publish them in `lk.agent.state`. */
export const AGENT_STATES = ['initializing', 'listening', 'thinking', 'speaking'];

/** The agent attribute that is "true" while the interviewer waits out the candidate's thinking pause. */
export const ATTR_THINKING = 'viva.thinking';

/**
 * stateView maps the agent's `lk.agent.state` (or "connecting" before the
 * agent is in the room, "left" after it went away) to the text shown to the
 * candidate and the data-state used for styling. While the interviewer
 * listens and waits on an unfinished thought (`viva.thinking` is "true")
 * the candidate is told to take their time.
 */
export function stateView(state, thinking) {
  switch (state) {
    case 'listening':
      if (thinking === 'true') return { state: 'listening', text: t('take_your_time') };
      return { state: 'listening', text: t('listening') };
    case 'thinking':
      return { state: 'thinking', text: t('thinking') };
    case 'speaking':
      return { state: 'speaking', text: t('speaking') };
    case 'initializing':
      return { state: 'connecting', text: t('getting_ready') };
    case 'left':
      return { state: 'left', text: t('left') };
    default:
      return { state: 'connecting', text: t('connecting_to') };
  }
}

/**
 * parseStage reads the stage the agent publishes in its attributes
 * (`viva.stage`, `viva.stage_title`, `viva.stage_index` 0-based,
 * `viva.stage_count`, `viva.stage_deadline` in unix ms). It returns null
 * when the attributes name no valid stage.
 */
export function parseStage(attrs) {
  if (!attrs) return null;
  const name = attrs['viva.stage'] || '';
  const index = Number.parseInt(attrs['viva.stage_index'] ?? '', 10);
  const count = Number.parseInt(attrs['viva.stage_count'] ?? '', 10);
  if (!name || !Number.isInteger(index) || !Number.isInteger(count) || count <= 0 || index < 0 || index >= count) {
    return null;
  }
  const deadline = Number.parseInt(attrs['viva.stage_deadline'] ?? '', 10);
  return {
    name,
    title: attrs['viva.stage_title'] || titleCase(name),
    index,
    count,
    deadline: Number.isFinite(deadline) && deadline > 0 ? deadline : 0,
  };
}

/**
 * EVENT_TYPES are the `viva.events` the room page acts on.
 */
const EVENT_TYPES = new Set(['stage_change', 'interview_ending', 'interview_saved']);

/**
 * readEvent decodes a `viva.events` data packet (UTF-8 JSON with a `type`)
 * and returns it, or null when it is not one the page acts on. sender says
 * who sent it: 'agent' (the interviewer), 'unknown' (a participant the room
 * has not announced yet, or the server itself) or 'other'. Events are
 * taken from the interviewer and from unknown senders: the interviewer's
 * first packets can arrive before the room announces it, and nobody else
 * in an interview room can send them (the candidate's own packets do not
 * come back).
 */
export function readEvent(payload, sender) {
  if (sender !== 'agent' && sender !== 'unknown') return null;
  let ev;
  try {
    ev = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return null;
  }
  return ev && typeof ev === 'object' && EVENT_TYPES.has(ev.type) ? ev : null;
}

/**
 * stageFromEvent reads a `stage_change` event of the `viva.events` topic
 * ({stage, title, index, count, deadline}) into the shape parseStage returns.
 */
export function stageFromEvent(ev) {
  if (!ev || typeof ev !== 'object') return null;
  return parseStage({
    'viva.stage': typeof ev.stage === 'string' ? ev.stage : '',
    'viva.stage_title': typeof ev.title === 'string' ? ev.title : '',
    'viva.stage_index': String(ev.index),
    'viva.stage_count': String(ev.count),
    'viva.stage_deadline': String(ev.deadline ?? ''),
  });
}

/** stageLabel is "Stage n of N — Title" (n 1-based). */
export function stageLabel(stage) {
  if (!stage) return t('waiting');
  return t('stage_n_of_count', { n: stage.index + 1, count: stage.count, title: stage.title });
}

/**
 * formatCountdown shows the time left until deadlineMs as mm:ss, rounded up
 * to the second and never negative.
 */
export function formatCountdown(deadlineMs, nowMs) {
  const left = Math.max(0, Math.ceil((deadlineMs - nowMs) / 1000));
  const m = Math.floor(left / 60);
  const s = left % 60;
  return `${String(m).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

/**
 * levelFromRms maps the RMS of full-scale float samples to a 0–100 meter
 * level: -60 dBFS and below is 0, 0 dBFS is 100.
 */
export function levelFromRms(rms) {
  if (!(rms > 0)) return 0;
  const db = 20 * Math.log10(rms);
  return Math.round(Math.min(100, Math.max(0, ((db + 60) / 60) * 100)));
}

/**
 * micProblem explains a getUserMedia failure to the candidate. kind is
 * denied, missing, busy, insecure or other; message says what to do next.
 */
export function micProblem(err) {
  const name = (err && err.name) || '';
  switch (name) {
    case 'NotAllowedError':
    case 'PermissionDeniedError':
    case 'SecurityError':
      return {
        kind: 'denied',
        message: t('mic_denied'),
      };
    case 'NotFoundError':
    case 'DevicesNotFoundError':
    case 'OverconstrainedError':
      return {
        kind: 'missing',
        message: t('mic_missing'),
      };
    case 'NotReadableError':
    case 'TrackStartError':
    case 'AbortError':
      return {
        kind: 'busy',
        message: t('mic_busy'),
      };
    case 'InsecureContext':
      return {
        kind: 'insecure',
        message: t('mic_insecure'),
      };
    default:
      return {
        kind: 'other',
        message: t('mic_other', { detail: err && err.message ? ` (${err.message})` : '' }),
      };
  }
}

/**
 * reconnectDelay is the wait before reconnect attempt n (1-based): 1 s,
 * 2 s, 4 s, 8 s, then 10 s, with up to 20% added jitter (random in [0,1)).
 */
export function reconnectDelay(attempt, random = 0) {
  const base = Math.min(10_000, 1000 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (1 + 0.2 * random));
}

/** MAX_RECONNECT_ATTEMPTS bounds the automatic reconnects after a lost connection. */
export const MAX_RECONNECT_ATTEMPTS = 5;

/** audioConstraints are the microphone constraints; raw turns off all processing. */
export function audioConstraints(raw) {
  const on = !raw;
  return { echoCancellation: on, noiseSuppression: on, autoGainControl: on, channelCount: 1 };
}

function titleCase(s) {
  return s ? s.charAt(0).toUpperCase() + s.slice(1).replace(/[_-]+/g, ' ') : s;
}

/**
 * endConfirm is what the End button and its hint say once pressed, waiting
 * for the second press: "Tap" on a touch screen, "Click" with a mouse.
 */
export function endConfirm(touch) {
  return touch
    ? { label: t('tap_to_end'), hint: t('tap_to_leave') }
    : { label: t('click_to_end'), hint: t('click_to_leave') };
}
