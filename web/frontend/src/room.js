// The candidate's interview room: consent and the device check before
// joining, microphone, LiveKit connection, the interviewer's voice drawn
// with its state, the stages and the time left, live captions (restored
// after a reload), typed messages, mute and device switching, ending and
// reconnecting. Loaded by web/templates/room.html.

import { DisconnectReason, ParticipantKind, Room, RoomEvent, Track } from 'livekit-client';
import { readTexts, t } from './text.js';
import { CaptionModel, SPEAKER_AGENT, SPEAKER_OTHER, SPEAKER_YOU, speakerLabel } from './captions.js';
import { JoinError, fetchTranscript, requestJoin } from './api.js';
import { LevelMeter } from './meter.js';
import { Visualiser } from './visualiser.js';
import { canChooseSpeaker, fillSelect, listDevices, playTestTone } from './devices.js';
import { formatMinutesLeft, readPlan, stepperStages, totalLeftMs } from './plan.js';
import {
  ATTR_THINKING,
  MAX_RECONNECT_ATTEMPTS,
  audioConstraints,
  formatCountdown,
  micProblem,
  parseStage,
  readEvent,
  reconnectDelay,
  stageFromEvent,
  stageLabel,
  stateView,
} from './format.js';

/** Topics and attributes shared with the interviewer (agent/worker). */
const TOPIC_TRANSCRIPTION = 'lk.transcription';
const TOPIC_CHAT = 'lk.chat';
const TOPIC_EVENTS = 'viva.events';
const ATTR_AGENT_STATE = 'lk.agent.state';
const ATTR_PUBLISH_ON_BEHALF = 'lk.publish_on_behalf';
const ATTR_SEGMENT_ID = 'lk.segment_id';
const ATTR_FINAL = 'lk.transcription_final';
/** ATTR_INTERRUPTED marks the final caption of an interviewer turn the candidate cut off. */
const ATTR_INTERRUPTED = 'viva.interrupted';
/** RPC_END_INTERVIEW tells the interviewer the candidate is ending, so the
 * interview is over at once rather than held open for a rejoin. */
const RPC_END_INTERVIEW = 'viva.end_interview';
const RPC_END_TIMEOUT_MS = 5000;

/** END_CONFIRM_MS is how long "Click again to end" stays armed. */
const END_CONFIRM_MS = 6000;
/** SCROLL_STICK_PX: captions follow new lines while within this of the bottom. */
const SCROLL_STICK_PX = 64;

const byId = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** isAgent tells the interviewer apart, as LiveKit's own components do. */
function isAgent(p) {
  return !!p && p.kind === ParticipantKind.AGENT && !(p.attributes && p.attributes[ATTR_PUBLISH_ON_BEHALF]);
}

class RoomPage {
  constructor(root) {
    this.id = root.dataset.interviewId || '';
    this.name = root.dataset.candidateName || '';
    this.raw = new URLSearchParams(window.location.search).get('raw') === '1';
    this.consentVersion = root.dataset.consentVersion || '';
    readTexts((byId('room-text') || {}).textContent);
    this.plan = readPlan((byId('room-plan') || {}).textContent);

    this.el = {
      banner: byId('banner'),
      problem: byId('problem'),
      problemText: byId('problem-text'),
      retry: byId('retry'),
      noMic: byId('no-mic'),
      prejoin: byId('prejoin'),
      consent: byId('consent'),
      check: byId('check'),
      checkMic: byId('check-mic'),
      testSound: byId('test-sound'),
      micSelect: byId('mic-select'),
      speakerSelect: byId('speaker-select'),
      checkMeter: byId('check-meter'),
      checkStatus: byId('check-status'),
      joinActions: byId('join-actions'),
      join: byId('join'),
      joinStatus: byId('join-status'),
      live: byId('live'),
      agentState: byId('agent-state'),
      agentStateText: byId('agent-state-text'),
      stepper: byId('stepper'),
      totalWrap: byId('total-wrap'),
      totalLeft: byId('total-left'),
      visualiser: byId('visualiser'),
      mute: byId('mute'),
      liveMicSelect: byId('live-mic-select'),
      liveSpeakerSelect: byId('live-speaker-select'),
      stage: byId('stage'),
      countdownWrap: byId('countdown-wrap'),
      countdown: byId('countdown'),
      meter: byId('meter'),
      micOff: byId('mic-off'),
      startAudio: byId('start-audio'),
      captions: byId('captions'),
      chat: byId('chat'),
      chatInput: byId('chat-input'),
      chatSend: byId('chat-send'),
      end: byId('end'),
      endHint: byId('end-hint'),
      closing: byId('closing'),
      closingTitle: byId('closing-title'),
      closingText: byId('closing-text'),
      feedbackLink: byId('feedback-link'),
      audioSink: byId('audio-sink'),
    };

    this.phase = 'prejoin'; // prejoin → joining → live ⇄ reconnecting → ended
    this.room = null;
    this.mic = null; // MediaStreamTrack of the candidate's microphone
    this.micOff = false; // the candidate chose to type only
    this.audioCtx = null;
    this.meter = new LevelMeter(this.el.meter);
    this.checkMeter = new LevelMeter(this.el.checkMeter);
    this.visualiser = new Visualiser(this.el.visualiser);
    this.micDevice = ''; // chosen microphone deviceId; '' is the default
    this.speakerDevice = ''; // chosen speaker deviceId; '' is the default
    this.muted = false;
    this.restored = false; // the transcript was restored after a reload
    this.agentIdentity = '';
    this.stage = null;
    this.countdownTimer = 0;
    this.endArmed = false;
    this.endTimer = 0;
    this.ending = false; // the interviewer announced the end
    this.retryAction = null;
    this.captions = new CaptionModel();
    this.lineEls = new Map();

    this.el.join.addEventListener('click', () => this.join());
    this.el.consent.addEventListener('change', () => this.onConsent());
    this.el.checkMic.addEventListener('click', () => this.checkMicrophone());
    this.el.testSound.addEventListener('click', () => this.testSound());
    for (const sel of [this.el.micSelect, this.el.liveMicSelect]) {
      sel.addEventListener('change', () => this.chooseMicrophone(sel.value));
    }
    for (const sel of [this.el.speakerSelect, this.el.liveSpeakerSelect]) {
      sel.addEventListener('change', () => this.chooseSpeaker(sel.value));
    }
    this.el.mute.addEventListener('click', () => this.toggleMute());
    if (!canChooseSpeaker()) {
      for (const el of document.querySelectorAll('.room-speaker-field')) el.hidden = true;
    }
    this.onConsent();
    this.renderStepper();
    this.el.retry.addEventListener('click', () => {
      const action = this.retryAction;
      this.hideProblem();
      if (action) action();
    });
    this.el.noMic.addEventListener('click', () => {
      this.micOff = true;
      this.hideProblem();
      this.join();
    });
    this.el.chat.addEventListener('submit', (e) => {
      e.preventDefault();
      this.sendTyped();
    });
    this.el.end.addEventListener('click', () => this.onEndClick());
    this.el.end.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') this.disarmEnd();
    });
    this.el.startAudio.addEventListener('click', () => this.startAudio());
    this.checkPermission();
  }

  // ---- consent and the device check ----

  /** agreed says whether the candidate ticked "I agree". */
  agreed() {
    return this.el.consent.checked;
  }

  onConsent() {
    const ok = this.agreed();
    if (this.phase === 'prejoin') this.el.join.disabled = !ok;
    this.el.checkMic.disabled = !ok;
    if (this.phase === 'prejoin' && this.el.joinStatus.textContent === t('tick_agree')) this.el.joinStatus.textContent = '';
    if (!ok && this.phase === 'prejoin') this.el.joinStatus.textContent = t('tick_agree');
  }

  ensureAudioContext() {
    if (!this.audioCtx) {
      const Ctx = window.AudioContext || window.webkitAudioContext;
      if (Ctx) this.audioCtx = new Ctx();
    }
    if (this.audioCtx && this.audioCtx.state === 'suspended') this.audioCtx.resume().catch(() => {});
    return this.audioCtx;
  }

  /** checkMicrophone opens the microphone before joining: level meter and device lists. */
  async checkMicrophone() {
    if (!this.agreed()) return;
    this.ensureAudioContext();
    this.el.checkStatus.textContent = 'Asking for your microphone…';
    try {
      if (!this.mic) this.mic = await this.openMicrophone();
    } catch (err) {
      this.el.checkStatus.textContent = micProblem(err).message;
      return;
    }
    this.el.checkStatus.textContent = 'Speak: the bar moves when your microphone hears you.';
    if (this.audioCtx) this.checkMeter.start(this.audioCtx, this.mic);
    await this.refreshDevices();
  }

  /** refreshDevices fills every microphone and speaker list. */
  async refreshDevices() {
    const mics = await listDevices('audioinput');
    const speakers = await listDevices('audiooutput');
    const current = this.mic && this.mic.getSettings ? this.mic.getSettings().deviceId || this.micDevice : this.micDevice;
    for (const sel of [this.el.micSelect, this.el.liveMicSelect]) {
      fillSelect(sel, mics, current, 'Microphone');
      sel.disabled = false;
    }
    for (const sel of [this.el.speakerSelect, this.el.liveSpeakerSelect]) fillSelect(sel, speakers, this.speakerDevice, 'Speaker');
  }

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
        this.el.endHint.textContent = 'The microphone could not be switched. Try another one, or reload the page.';
      }
    }
    old.stop();
    if (this.audioCtx) {
      if (this.phase === 'prejoin') this.checkMeter.start(this.audioCtx, next);
      else if (!this.el.live.hidden) this.meter.start(this.audioCtx, next);
    }
  }

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
  }

  /** testSound plays a short tone so the candidate can check the speaker. */
  async testSound() {
    const ctx = this.ensureAudioContext();
    if (!ctx) {
      this.el.checkStatus.textContent = 'This browser cannot play sound from the page.';
      return;
    }
    this.el.testSound.disabled = true;
    this.el.testSound.dataset.played = 'playing';
    this.el.checkStatus.textContent = 'Playing a test sound…';
    try {
      await playTestTone(ctx, this.speakerDevice);
      this.el.checkStatus.textContent = 'Did you hear a tone? If not, check your volume or choose another speaker.';
      this.el.testSound.dataset.played = 'true';
    } catch {
      this.el.checkStatus.textContent = 'The test sound could not play. Check your speaker, then try again.';
      this.el.testSound.dataset.played = 'false';
    } finally {
      this.el.testSound.disabled = false;
    }
  }

  // ---- mute ----

  async toggleMute() {
    const room = this.room;
    if (!room || !this.mic) return;
    const mute = !this.muted;
    try {
      await room.localParticipant.setMicrophoneEnabled(!mute);
    } catch {
      this.el.endHint.textContent = 'The microphone could not be switched. Try again.';
      return;
    }
    this.setMuted(mute);
  }

  setMuted(muted) {
    this.muted = muted;
    this.el.mute.setAttribute('aria-pressed', String(muted));
    this.el.mute.textContent = muted ? t('unmute') : t('mute');
    this.el.meter.dataset.muted = String(muted);
  }

  // ---- joining ----

  /** checkPermission warns before Join when the microphone is already blocked. */
  async checkPermission() {
    try {
      const status = await navigator.permissions.query({ name: 'microphone' });
      const show = () => {
        this.el.joinStatus.textContent =
          status.state === 'denied' && this.phase === 'prejoin'
            ? 'Your browser is blocking the microphone for this site. Allow it in the address bar, or join and type your answers.'
            : '';
      };
      show();
      status.addEventListener('change', show);
    } catch {
      // Permissions API unavailable: getUserMedia will tell.
    }
  }

  /** join runs on the Join click: microphone, token, room. */
  async join() {
    if (this.phase !== 'prejoin') return;
    if (!this.agreed()) {
      this.el.joinStatus.textContent = t('tick_agree');
      this.el.consent.focus();
      return;
    }
    this.phase = 'joining';
    this.el.join.disabled = true;
    this.hideProblem();
    // Audio may only start after a user gesture: create the context now.
    this.ensureAudioContext();

    if (!this.micOff && !this.mic) {
      this.el.joinStatus.textContent = t('asking_mic');
      try {
        this.mic = await this.openMicrophone();
      } catch (err) {
        const problem = micProblem(err);
        this.phase = 'prejoin';
        this.el.join.disabled = false;
        this.el.joinStatus.textContent = '';
        this.showProblem(problem.message, () => this.join(), problem.kind === 'missing' || problem.kind === 'busy');
        return;
      }
    }
    this.el.joinStatus.textContent = t('connecting');
    try {
      await this.connect();
    } catch (err) {
      this.phase = 'prejoin';
      this.el.join.disabled = false;
      this.el.joinStatus.textContent = '';
      if (err instanceof JoinError && err.gone) {
        this.showProblem(`${err.message} This interview link can no longer be used.`, null, false);
        this.el.join.disabled = true;
      } else {
        this.showProblem(`Could not join the interview: ${err.message} Press Try again.`, () => this.join(), false);
      }
      return;
    }
    this.phase = 'live';
    this.showLive();
  }

  async openMicrophone() {
    if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
      const err = new Error('no media devices');
      err.name = 'InsecureContext';
      throw err;
    }
    const audio = audioConstraints(this.raw);
    if (this.micDevice) audio.deviceId = { exact: this.micDevice };
    const stream = await navigator.mediaDevices.getUserMedia({ audio, video: false });
    const [track] = stream.getAudioTracks();
    if (!track) {
      const err = new Error('no audio track');
      err.name = 'NotFoundError';
      throw err;
    }
    track.addEventListener('ended', () => {
      if (this.phase === 'live' && track === this.mic) {
        this.el.micOff.textContent = 'Your microphone stopped. Type your answers below, or reload the page to use it again.';
        this.el.micOff.hidden = false;
        this.meter.stop();
      }
    });
    return track;
  }

  /**
   * connect fetches a fresh token and joins a new Room with it, publishing
   * the microphone. A new Room each time keeps handlers from doubling up
   * after a reconnect.
   */
  async connect() {
    const info = await requestJoin(this.id, this.consentVersion);
    if (info.name) this.name = info.name;
    if (!this.restored) {
      // After a reload: what was said before, ahead of anything live.
      this.restored = true;
      this.restoreCaptions(await fetchTranscript(this.id));
    }
    const room = new Room({
      adaptiveStream: false,
      dynacast: false,
      stopLocalTrackOnUnpublish: false, // the microphone outlives one connection
      disconnectOnPageLeave: true,
    });
    this.bindRoom(room);
    this.room = room;
    try {
      await room.connect(info.livekit_url, info.token, { autoSubscribe: true });
      if (this.mic) {
        // DTX off: continuous audio keeps the interviewer's end-of-speech timing steady.
        await room.localParticipant.publishTrack(this.mic, {
          source: Track.Source.Microphone,
          name: 'microphone',
          dtx: false,
        });
        // A reconnect keeps the candidate's choice to be muted.
        if (this.muted) await room.localParticipant.setMicrophoneEnabled(false);
      }
    } catch (err) {
      room.removeAllListeners();
      await room.disconnect().catch(() => {});
      if (this.room === room) this.room = null;
      throw err;
    }
    for (const p of room.remoteParticipants.values()) this.considerParticipant(p);
    if (this.speakerDevice) await room.switchActiveDevice('audiooutput', this.speakerDevice).catch(() => {});
    this.startAudio();
    this.setChatEnabled(true);
  }

  bindRoom(room) {
    room
      .on(RoomEvent.ParticipantConnected, (p) => this.considerParticipant(p))
      .on(RoomEvent.ParticipantAttributesChanged, (_changed, p) => this.considerParticipant(p))
      .on(RoomEvent.ParticipantDisconnected, (p) => {
        if (room === this.room && p.identity === this.agentIdentity && this.phase !== 'ended' && !this.ending) {
          this.setAgentState('left');
        }
      })
      .on(RoomEvent.TrackSubscribed, (track, _pub, p) => {
        if (track.kind !== Track.Kind.Audio) return;
        this.el.audioSink.append(track.attach());
        if (isAgent(p) && this.audioCtx && track.mediaStreamTrack) {
          this.visualiser.attach(this.audioCtx, track.mediaStreamTrack);
        }
      })
      .on(RoomEvent.TrackUnsubscribed, (track, _pub, p) => {
        for (const el of track.detach()) el.remove();
        if (isAgent(p)) this.visualiser.detach();
      })
      .on(RoomEvent.MediaDevicesChanged, () => this.refreshDevices())
      .on(RoomEvent.AudioPlaybackStatusChanged, () => this.updatePlayback())
      .on(RoomEvent.Reconnecting, () => this.showBanner(t('lost_reconnecting')))
      .on(RoomEvent.SignalReconnecting, () => this.showBanner(t('lost_reconnecting')))
      .on(RoomEvent.Reconnected, () => this.hideBanner())
      .on(RoomEvent.Disconnected, (reason) => this.onDisconnected(room, reason))
      .on(RoomEvent.DataReceived, (payload, participant, _kind, topic) => this.onData(payload, participant, topic));
    room.registerTextStreamHandler(TOPIC_TRANSCRIPTION, (reader, from) => this.onCaption(room, reader, from.identity));
  }

  // ---- the interviewer ----

  considerParticipant(p) {
    if (!isAgent(p)) return;
    this.agentIdentity = p.identity;
    for (const line of this.captions.identify(p.identity, SPEAKER_AGENT)) this.renderLine(line);
    const attrs = p.attributes || {};
    this.setAgentState(attrs[ATTR_AGENT_STATE], attrs[ATTR_THINKING]);
    const stage = parseStage(attrs);
    if (stage) this.setStage(stage);
  }

  setAgentState(state, thinking) {
    if (this.phase === 'ended') return;
    const view = stateView(state, thinking);
    this.el.agentState.dataset.state = view.state;
    this.el.agentStateText.textContent = view.text;
    this.visualiser.setState(view.state);
  }

  setStage(stage) {
    // The plan's title is in the interview's language; the agent's is the
    // design's own.
    const planned = this.plan.stages.find((st) => st.name === stage.name);
    if (planned && planned.title) stage = { ...stage, title: planned.title };
    const prev = this.stage;
    this.stage = stage;
    this.el.stage.textContent = stageLabel(stage);
    if (!prev || prev.name !== stage.name) this.el.stage.dataset.stage = stage.name;
    if (!prev || prev.index !== stage.index || prev.count !== stage.count) this.renderStepper();
    if (stage.deadline > 0) {
      this.el.countdownWrap.hidden = false;
      this.tickCountdown();
      if (!this.countdownTimer) this.countdownTimer = setInterval(() => this.tickCountdown(), 500);
    } else {
      this.el.countdownWrap.hidden = true;
      this.tickCountdown();
    }
  }

  /** renderStepper shows every stage, the done ones and the current one. */
  renderStepper() {
    const items = stepperStages(this.plan, this.stage);
    const list = this.el.stepper;
    list.replaceChildren(
      ...items.map((it, i) => {
        const li = document.createElement('li');
        li.className = 'room-step';
        li.dataset.state = it.state;
        if (it.state === 'current') li.setAttribute('aria-current', 'step');
        const n = document.createElement('span');
        n.className = 'room-step-n';
        n.setAttribute('aria-hidden', 'true');
        n.textContent = it.state === 'done' ? '✓' : String(i + 1);
        const t = document.createElement('span');
        t.className = 'room-step-title';
        t.textContent = it.title;
        const sr = document.createElement('span');
        sr.className = 'visually-hidden';
        sr.textContent = it.state === 'done' ? ' (done)' : it.state === 'current' ? ' (now)' : '';
        li.append(n, t, sr);
        return li;
      }),
    );
    list.hidden = items.length === 0;
    this.tickTotal();
  }

  tickCountdown() {
    this.tickTotal();
    if (!this.stage || !this.stage.deadline) return;
    const left = this.stage.deadline - Date.now();
    this.el.countdown.textContent = formatCountdown(this.stage.deadline, Date.now());
    this.el.countdownWrap.dataset.urgent = left < 30_000 ? 'true' : 'false';
  }

  /** tickTotal shows the time left in the whole interview, when known. */
  tickTotal() {
    const left = totalLeftMs(this.plan, this.stage, Date.now());
    this.el.totalWrap.hidden = left < 0;
    if (left >= 0) {
      this.el.totalLeft.textContent = formatMinutesLeft(left);
      this.el.totalLeft.dataset.ms = String(left);
    }
  }

  onData(payload, participant, topic) {
    if (topic !== TOPIC_EVENTS) return;
    const ev = readEvent(payload, !participant ? 'unknown' : isAgent(participant) ? 'agent' : 'other');
    switch (ev && ev.type) {
      case 'stage_change': {
        const stage = stageFromEvent(ev);
        if (stage) this.setStage(stage);
        break;
      }
      case 'interview_ending':
      case 'interview_saved':
        this.ending = true;
        // A refused interview says why in one sentence (its message).
        this.finish(false, typeof ev.message === 'string' ? ev.message : '');
        break;
      default:
    }
  }

  // ---- captions ----

  speakerOf(room, identity) {
    if (identity === room.localParticipant.identity) return SPEAKER_YOU;
    if (identity === this.agentIdentity || isAgent(room.remoteParticipants.get(identity))) return SPEAKER_AGENT;
    return SPEAKER_OTHER;
  }

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
  }

  applyCaption(update) {
    const changed = this.captions.apply(update);
    if (changed) this.renderLine(changed.line);
  }

  /** restoreCaptions shows the turns said before a reload, ahead of the live ones. */
  restoreCaptions(turns) {
    const lines = this.captions.restore(turns);
    if (lines.length === 0) return;
    const first = this.el.captions.firstChild;
    for (const line of lines) this.renderLine(line, first);
    this.el.captions.scrollTop = this.el.captions.scrollHeight;
  }

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
      mark.textContent = 'interrupted';
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
  }

  removeLine(line) {
    this.captions.remove(line);
    const el = this.lineEls.get(line.id);
    if (el) el.remove();
    this.lineEls.delete(line.id);
  }

  // ---- typing ----

  setChatEnabled(on) {
    this.el.chatInput.disabled = !on;
    this.el.chatSend.disabled = !on;
  }

  async sendTyped() {
    const input = this.el.chatInput;
    const text = input.value.trim();
    const room = this.room;
    if (!text || !room || this.phase !== 'live') return;
    const line = this.captions.addTyped(text);
    this.renderLine(line);
    input.value = '';
    try {
      await room.localParticipant.sendText(text, { topic: TOPIC_CHAT });
    } catch (err) {
      this.removeLine(line);
      if (!input.value) input.value = text;
      this.el.endHint.textContent = 'Your message was not sent. Check your connection, then press Send again.';
    }
  }

  // ---- audio playback ----

  startAudio() {
    if (!this.room) return;
    this.room
      .startAudio()
      .catch(() => {})
      .finally(() => this.updatePlayback());
  }

  updatePlayback() {
    this.el.startAudio.hidden = !this.room || this.room.canPlaybackAudio || this.phase === 'ended';
  }

  // ---- ending ----

  onEndClick() {
    if (this.phase === 'ended') return;
    if (!this.endArmed) {
      this.endArmed = true;
      this.el.end.textContent = t('click_to_end');
      this.el.end.dataset.armed = 'true';
      this.el.endHint.textContent = t('press_to_leave');
      this.endTimer = setTimeout(() => this.disarmEnd(), END_CONFIRM_MS);
      return;
    }
    this.finish(true);
  }

  disarmEnd() {
    clearTimeout(this.endTimer);
    this.endArmed = false;
    this.el.end.textContent = t('end');
    this.el.end.dataset.armed = 'false';
    this.el.endHint.textContent = '';
  }

  /** finish leaves the room and shows the closing screen. byCandidate: the
   * candidate pressed End, so the interviewer is told before the page leaves.
   * message, when set, replaces the closing words: why the interview could
   * not run. */
  finish(byCandidate = false, message = '') {
    if (this.phase === 'ended') return;
    this.phase = 'ended';
    clearTimeout(this.endTimer);
    clearInterval(this.countdownTimer);
    const room = this.room;
    if (room) {
      const told =
        byCandidate && this.agentIdentity
          ? room.localParticipant
              .performRpc({
                destinationIdentity: this.agentIdentity,
                method: RPC_END_INTERVIEW,
                payload: '',
                responseTimeout: RPC_END_TIMEOUT_MS,
              })
              .catch(() => {})
          : Promise.resolve();
      told.finally(() => room.disconnect().catch(() => {}));
    }
    this.meter.stop();
    this.checkMeter.stop();
    this.visualiser.stop();
    if (this.mic) this.mic.stop();
    if (this.audioCtx) this.audioCtx.close().catch(() => {});
    this.setChatEnabled(false);
    this.hideBanner();
    this.hideProblem();
    this.el.prejoin.hidden = true;
    this.el.live.hidden = true;
    const who = this.name ? t('thank_you_name', { name: this.name }) : t('thank_you');
    this.el.closingText.textContent = message ? t('close_tab', { message }) : t('saved', { who });
    // The feedback page exists only when the plan gives candidates
    // feedback and the interview ran; it waits for the report itself.
    if (this.el.feedbackLink && !message) this.el.feedbackLink.hidden = false;
    this.el.closing.hidden = false;
    this.el.closingTitle.focus();
  }

  // ---- connection loss ----

  onDisconnected(room, reason) {
    if (room !== this.room || this.phase === 'ended') return;
    this.setChatEnabled(false);
    if (reason === DisconnectReason.ROOM_DELETED || this.ending) {
      this.finish();
      return;
    }
    if (reason === DisconnectReason.CLIENT_INITIATED) return;
    this.room = null;
    if (reason === DisconnectReason.DUPLICATE_IDENTITY) {
      this.showProblem(
        'This interview was opened in another tab or window. Close the other one, then press Try again to continue here.',
        () => this.reconnect(),
        false,
      );
      return;
    }
    this.reconnect();
  }

  /** reconnect joins again with fresh tokens, a bounded number of times. */
  async reconnect() {
    if (this.phase === 'ended' || this.phase === 'reconnecting') return;
    this.phase = 'reconnecting';
    this.showBanner(t('lost_reconnecting'));
    for (let attempt = 1; attempt <= MAX_RECONNECT_ATTEMPTS; attempt++) {
      await sleep(reconnectDelay(attempt, Math.random()));
      if (this.phase !== 'reconnecting') return;
      try {
        await this.connect();
        this.phase = 'live';
        this.hideBanner();
        return;
      } catch (err) {
        if (err instanceof JoinError && err.gone) {
          // The interview was closed and saved while we were away.
          this.finish();
          return;
        }
      }
    }
    this.phase = 'live';
    this.hideBanner();
    this.showProblem(
      'We could not reconnect to the interview. Check your internet connection, then press Try again.',
      () => this.reconnect(),
      false,
    );
  }

  // ---- views ----

  showLive() {
    this.el.prejoin.hidden = true;
    this.el.live.hidden = false;
    this.checkMeter.stop();
    this.visualiser.start();
    if (this.mic && this.audioCtx) {
      this.meter.start(this.audioCtx, this.mic);
      this.el.micOff.hidden = true;
      this.el.mute.hidden = false;
    } else {
      this.el.meter.hidden = true;
      this.el.micOff.hidden = false;
      this.el.mute.hidden = true;
    }
    this.refreshDevices();
    this.updatePlayback();
    this.el.captions.focus();
  }

  /** showProblem says what went wrong; its buttons are then the only
   * actions offered (Join hides), so one primary action stands at a time. */
  showProblem(message, retry, offerNoMic) {
    this.retryAction = retry;
    this.el.problemText.textContent = message;
    this.el.retry.hidden = !retry;
    this.el.noMic.hidden = !offerNoMic;
    this.el.problem.hidden = false;
    this.el.joinActions.hidden = this.phase === 'prejoin' || this.phase === 'joining';
    (retry ? this.el.retry : this.el.problemText).focus?.();
  }

  hideProblem() {
    this.el.problem.hidden = true;
    this.el.joinActions.hidden = false;
    this.retryAction = null;
  }

  showBanner(text) {
    if (this.phase === 'ended') return;
    this.el.banner.textContent = text;
    this.el.banner.hidden = false;
  }

  hideBanner() {
    this.el.banner.hidden = true;
  }
}

const root = document.getElementById('room');
if (root) new RoomPage(root);
