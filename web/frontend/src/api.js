// The web server's room API.

import { t } from './text.js';

/**
 * JoinError is a failed join request. gone is true when the interview is
 * unknown or already finished (404/410): retrying cannot help.
 */
export class JoinError extends Error {
  constructor(message, status) {
    super(message);
    this.name = 'JoinError';
    this.status = status;
    this.gone = status === 404 || status === 410;
  }
}

/**
 * requestJoin asks the server for a fresh LiveKit token for the interview:
 * {token, livekit_url, room, identity, name}. consentVersion is the version
 * of the notice the candidate agreed to (the server refuses a first join
 * without it). The token is kept in memory only, never in storage.
 */
export async function requestJoin(interviewId, consentVersion) {
  let res;
  try {
    res = await fetch(`/api/interviews/${encodeURIComponent(interviewId)}/join`, {
      method: 'POST',
      headers: { Accept: 'application/json', 'Content-Type': 'application/json' },
      body: JSON.stringify({ consent: !!consentVersion, consent_version: consentVersion || '' }),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (err) {
    throw new JoinError(t('server_unreachable'), 0);
  }
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  if (res.ok && body && typeof body.token === 'string' && typeof body.livekit_url === 'string') {
    return body;
  }
  const message = body && typeof body.error === 'string' && body.error ? body.error : t('server_answered', { status: res.status });
  throw new JoinError(message, res.status);
}

/**
 * fetchTranscript reads what was said so far in the interview (after a
 * reload): [{speaker, text, interrupted, at, stage}]. It resolves to an
 * empty list when the server cannot answer: captions are a convenience.
 */
export async function fetchTranscript(interviewId) {
  try {
    const res = await fetch(`/api/interviews/${encodeURIComponent(interviewId)}/transcript`, {
      headers: { Accept: 'application/json' },
      credentials: 'same-origin',
      cache: 'no-store',
    });
    if (!res.ok) return [];
    const body = await res.json();
    return Array.isArray(body && body.turns) ? body.turns : [];
  } catch {
    return [];
  }
}
