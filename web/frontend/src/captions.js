// Captions of both speakers: one line per `lk.segment_id`, interim text
// replaced by later updates and by the final one, typed messages shown at
// once and merged with the agent's echo of them, interviewer turns the
// candidate cut off marked as interrupted, and the turns said before a
// reload restored from the record.

import { t } from './text.js';

/** Speakers of a caption line. */
export const SPEAKER_YOU = 'you';
export const SPEAKER_AGENT = 'agent';
export const SPEAKER_OTHER = 'other';

/** speakerLabel is the name shown in front of a line. */
export function speakerLabel(speaker) {
  switch (speaker) {
    case SPEAKER_YOU:
      return t('you');
    case SPEAKER_AGENT:
      return t('interviewer');
    default:
      return t('participant');
  }
}

const normalize = (s) => s.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * CaptionModel holds the caption lines in order of first appearance. It
 * knows nothing of the DOM: apply and addTyped return the line that
 * changed, and the page renders it.
 */
export class CaptionModel {
  constructor() {
    /** @type {Array<{id:number, segmentId:string, speaker:string, identity:string, text:string, final:boolean, pending:boolean, at:number, interrupted:boolean, restored:boolean}>} */
    this.lines = [];
    this.bySegment = new Map();
    this.nextId = 1;
  }

  /**
   * apply takes one caption update (the segment's whole text so far; at
   * is when it was sent, in ms). It returns {line, created} or null when
   * the update changes nothing: empty text for a new segment, an interim
   * arriving after the final, or an interim older than the text shown.
   */
  apply({ segmentId, speaker, identity = '', text, final, at = 0, interrupted = false }) {
    text = (text || '').trim();
    interrupted = !!(final && interrupted);
    let line = this.bySegment.get(segmentId);
    if (line) {
      if (line.final && !final) return null;
      if (!final && at < line.at) return null;
      if (line.text === text && line.final === final && line.interrupted === interrupted) return null;
      line.text = text;
      line.final = final;
      line.interrupted = interrupted;
      line.at = Math.max(line.at, at);
      return { line, created: false };
    }
    if (!text) return null;
    if (speaker === SPEAKER_YOU && final) {
      // The agent echoes a typed message as the candidate's caption: adopt
      // the line shown when it was sent instead of adding a duplicate.
      const typed = this.lines.find((l) => l.pending && normalize(l.text) === normalize(text));
      if (typed) {
        typed.pending = false;
        typed.at = at;
        typed.segmentId = segmentId;
        typed.text = text;
        typed.final = true;
        this.bySegment.set(segmentId, typed);
        return { line: typed, created: false };
      }
    }
    line = { id: this.nextId++, segmentId, speaker, identity, text, final, pending: false, at, interrupted, restored: false };
    this.lines.push(line);
    this.bySegment.set(segmentId, line);
    return { line, created: true };
  }

  /**
   * identify names the speaker of everything identity has sent so far. A
   * caption can arrive before the room knows who its sender is (the text
   * stream and the participant list travel apart); once it does, the
   * earlier lines change with it. It returns the lines that changed.
   */
  identify(identity, speaker) {
    const changed = [];
    for (const line of this.lines) {
      if (identity && line.identity === identity && line.speaker !== speaker) {
        line.speaker = speaker;
        changed.push(line);
      }
    }
    return changed;
  }

  /** addTyped shows a message the candidate typed, pending its echo. */
  addTyped(text) {
    const line = {
      id: this.nextId++,
      segmentId: '',
      speaker: SPEAKER_YOU,
      identity: '',
      text: text.trim(),
      final: true,
      pending: true,
      at: 0,
      interrupted: false,
      restored: false,
    };
    this.lines.push(line);
    return line;
  }

  /**
   * restore adds the turns said before this page was loaded (the record's
   * transcript: {speaker: "agent"|"candidate", text, interrupted}), in
   * order, ahead of anything live. It returns the lines added.
   */
  restore(turns) {
    const added = [];
    for (const t of turns || []) {
      const text = typeof t.text === 'string' ? t.text.trim() : '';
      if (!text) continue;
      const speaker = t.speaker === 'agent' ? SPEAKER_AGENT : t.speaker === 'candidate' ? SPEAKER_YOU : SPEAKER_OTHER;
      added.push({
        id: this.nextId++,
        segmentId: '',
        speaker,
        identity: '',
        text,
        final: true,
        pending: false,
        at: 0,
        interrupted: speaker === SPEAKER_AGENT && !!t.interrupted,
        restored: true,
      });
    }
    this.lines = [...added, ...this.lines];
    return added;
  }

  /** remove drops a line (a typed message that could not be sent). */
  remove(line) {
    this.lines = this.lines.filter((l) => l !== line);
    if (line.segmentId) this.bySegment.delete(line.segmentId);
  }
}
