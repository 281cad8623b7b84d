// The room page's captions: live lines from the interviewer's text
// streams, the candidate's own typed lines, and the lines restored after a
// reload. Methods of RoomPage (room.js), kept apart by job.

import { ParticipantKind } from 'livekit-client';
import { SPEAKER_AGENT, SPEAKER_OTHER, SPEAKER_YOU, speakerLabel } from './captions.js';
import { t } from './text.js';

const ATTR_PUBLISH_ON_BEHALF = 'lk.publish_on_behalf';
const ATTR_SEGMENT_ID = 'lk.segment_id';
const ATTR_FINAL = 'lk.transcription_final';
/** ATTR_INTERRUPTED marks the final caption of an interviewer turn the candidate cut off. */
const ATTR_INTERRUPTED = 'viva.interrupted';
/** SCROLL_STICK_PX: captions follow new lines while within this of the bottom. */
const SCROLL_STICK_PX = 64;

/** isAgent tells the interviewer apart, as LiveKit's own components do. */
export function isAgent(p) {
  return !!p && p.kind === ParticipantKind.AGENT && !(p.attributes && p.attributes[ATTR_PUBLISH_ON_BEHALF]);
}

export const captionMethods = {
  speakerOf(room, identity) {
    if (identity === room.localParticipant.identity) return SPEAKER_YOU;
    if (identity === this.agentIdentity || isAgent(room.remoteParticipants.get(identity))) return SPEAKER_AGENT;
    return SPEAKER_OTHER;
  },

  async onCaption(room, reader, identity) {
    const attrs = reader.info.attributes || {};
    let text;
    try {
      text = await reader.readAll();
    } catch {
      return;
    }
    if (room !== this.room) return;
    this.applyCaption({
      segmentId: attrs[ATTR_SEGMENT_ID] || reader.info.id,
      speaker: this.speakerOf(room, identity),
      identity,
      text,
      final: attrs[ATTR_FINAL] === 'true',
      interrupted: attrs[ATTR_INTERRUPTED] === 'true',
      at: reader.info.timestamp || 0,
    });
  },

  applyCaption(update) {
    const changed = this.captions.apply(update);
    if (changed) this.renderLine(changed.line);
  },

  /** restoreCaptions shows the turns said before a reload, ahead of the live ones. */
  restoreCaptions(turns) {
    const lines = this.captions.restore(turns);
    if (lines.length === 0) return;
    const first = this.el.captions.firstChild;
    for (const line of lines) this.renderLine(line, first);
    this.el.captions.scrollTop = this.el.captions.scrollHeight;
  },

  /** renderLine shows line; a new one goes before `before` (default: at the end). */
  renderLine(line, before = null) {
    const box = this.el.captions;
    const stick = box.scrollHeight - box.scrollTop - box.clientHeight < SCROLL_STICK_PX;
    let el = this.lineEls.get(line.id);
    if (!el) {
      el = document.createElement('p');
      el.className = 'room-caption';
      const who = document.createElement('span');
      who.className = 'room-caption-who';
      const text = document.createElement('span');
      text.className = 'room-caption-text';
      const mark = document.createElement('span');
      mark.className = 'room-caption-mark';
      mark.textContent = t('interrupted');
      mark.hidden = true;
      el.append(who, text, mark);
      box.insertBefore(el, before);
      this.lineEls.set(line.id, el);
    }
    el.dataset.interrupted = String(!!line.interrupted);
    el.dataset.restored = String(!!line.restored);
    el.querySelector('.room-caption-mark').hidden = !line.interrupted;
    el.dataset.speaker = line.speaker;
    el.querySelector('.room-caption-who').textContent = speakerLabel(line.speaker);
    el.dataset.final = String(line.final);
    el.dataset.pending = String(line.pending);
    if (line.segmentId) el.dataset.segment = line.segmentId;
    el.querySelector('.room-caption-text').textContent = line.text;
    if (stick) box.scrollTop = box.scrollHeight;
  },

  removeLine(line) {
    this.captions.remove(line);
    const el = this.lineEls.get(line.id);
    if (el) el.remove();
    this.lineEls.delete(line.id);
  },
};
