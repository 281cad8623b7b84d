// The room page's microphone and speaker: the check before joining, the
// level meters' audio context, switching devices and muting. Methods of
// RoomPage (room.js), kept apart by job.

import { Track } from 'livekit-client';
import { fillSelect, listDevices, playTestTone } from './devices.js';
import { micProblem } from './format.js';
import { t } from './text.js';

export const deviceMethods = {
  ensureAudioContext() {
    if (!this.audioCtx) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (Ctx) this.audioCtx = new Ctx();
    }
    if (this.audioCtx && this.audioCtx.state === 'suspended') this.audioCtx.resume().catch(() => {});
    return this.audioCtx;
  },

  /** checkMicrophone opens the microphone before joining: level meter and device lists. */
  async checkMicrophone() {
    if (!this.agreed()) return;
    this.ensureAudioContext();
    this.el.checkStatus.textContent = t('asking_mic');
    try {
      if (!this.mic) this.mic = await this.openMicrophone();
    } catch (err) {
      this.el.checkStatus.textContent = micProblem(err).message;
      return;
    }
    this.el.checkStatus.textContent = t('speak_check');
    if (this.audioCtx) this.checkMeter.start(this.audioCtx, this.mic);
    await this.refreshDevices();
  },

  /** refreshDevices fills every microphone and speaker list. */
  async refreshDevices() {
    const mics = await listDevices('audioinput');
    const speakers = await listDevices('audiooutput');
    const current = this.mic && this.mic.getSettings ? this.mic.getSettings().deviceId || this.micDevice : this.micDevice;
    for (const sel of [this.el.micSelect, this.el.liveMicSelect]) {
      fillSelect(sel, mics, current, 'microphone_n');
      sel.disabled = false;
    }
    for (const sel of [this.el.speakerSelect, this.el.liveSpeakerSelect]) fillSelect(sel, speakers, this.speakerDevice, 'speaker_n');
  },

  /** chooseMicrophone switches to deviceId, before joining or in the room. */
  async chooseMicrophone(deviceId) {
    this.micDevice = deviceId;
    for (const sel of [this.el.micSelect, this.el.liveMicSelect]) sel.value = deviceId;
    if (!this.mic) return;
    let next;
    try {
      next = await this.openMicrophone();
    } catch (err) {
      this.el.checkStatus.textContent = micProblem(err).message;
      this.el.endHint.textContent = micProblem(err).message;
      return;
    }
    const old = this.mic;
    this.mic = next;
    const pub = this.room && this.room.localParticipant.getTrackPublication(Track.Source.Microphone);
    if (pub && pub.track) {
      try {
        await pub.track.replaceTrack(next, true);
        // The new microphone stays silent while the candidate is muted.
        if (this.muted) await pub.track.mute();
      } catch {
        this.el.endHint.textContent = t('mic_switch_failed');
      }
    }
    old.stop();
    if (this.audioCtx) {
      if (this.phase === 'prejoin') this.checkMeter.start(this.audioCtx, next);
      else if (!this.el.live.hidden) this.meter.start(this.audioCtx, next);
    }
  },

  /** chooseSpeaker plays the interviewer (and the test sound) on deviceId. */
  async chooseSpeaker(deviceId) {
    this.speakerDevice = deviceId;
    for (const sel of [this.el.speakerSelect, this.el.liveSpeakerSelect]) sel.value = deviceId;
    if (this.room) {
      await this.room.switchActiveDevice('audiooutput', deviceId || 'default').catch(() => {});
    }
    for (const a of this.el.audioSink.querySelectorAll('audio')) {
      if (typeof a.setSinkId === 'function') a.setSinkId(deviceId).catch(() => {});
    }
  },

  /** testSound plays a short tone so the candidate can check the speaker. */
  async testSound() {
    const ctx = this.ensureAudioContext();
    if (!ctx) {
      this.el.checkStatus.textContent = t('no_sound');
      return;
    }
    this.el.testSound.disabled = true;
    this.el.testSound.dataset.played = 'playing';
    this.el.checkStatus.textContent = t('playing_tone');
    try {
      await playTestTone(ctx, this.speakerDevice);
      this.el.checkStatus.textContent = t('heard_tone');
      this.el.testSound.dataset.played = 'true';
    } catch {
      this.el.checkStatus.textContent = t('tone_failed');
      this.el.testSound.dataset.played = 'false';
    } finally {
      this.el.testSound.disabled = false;
    }
  },

  async toggleMute() {
    const room = this.room;
    if (!room || !this.mic) return;
    const mute = !this.muted;
    try {
      await room.localParticipant.setMicrophoneEnabled(!mute);
    } catch {
      this.el.endHint.textContent = t('mic_switch_retry');
      return;
    }
    this.setMuted(mute);
  },

  setMuted(muted) {
    this.muted = muted;
    this.el.mute.setAttribute('aria-pressed', String(muted));
    this.el.mute.textContent = muted ? t('unmute') : t('mute');
    this.el.meter.dataset.muted = String(muted);
  },
};
