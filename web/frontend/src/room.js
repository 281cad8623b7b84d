// The candidate's interview room: consent and the device check before
// joining, microphone, LiveKit connection, the interviewer's voice drawn
// with its state, the stages and the time left, live captions (restored
// after a reload), typed messages, mute and device switching, ending and
// reconnecting, and the integrity signals the notice discloses
// (signals.js). Captions, devices, stages and views are methods kept in
// room*.js modules of their own. Loaded by web/templates/room.html.

import { DisconnectReason, Room, RoomEvent, Track } from 'livekit-client';
import { readTexts, t } from './text.js';
import { CaptionModel, SPEAKER_AGENT } from './captions.js';
import { JoinError, fetchTranscript, requestJoin } from './api.js';
import { LevelMeter } from './meter.js';
import { Visualiser } from './visualiser.js';
import { canChooseSpeaker } from './devices.js';
import { readPlan } from './plan.js';
import { TOPIC_SIGNALS, watchIntegrity } from './signals.js';
import { captionMethods, isAgent } from './roomcaptions.js';
import { deviceMethods } from './roomdevices.js';
import { stageMethods } from './roomstages.js';
import { viewMethods } from './roomviews.js';
import {
  ATTR_THINKING,
  MAX_RECONNECT_ATTEMPTS,
  audioConstraints,
  endConfirm,
  micProblem,
  parseStage,
  readEvent,
  reconnectDelay,
  stageFromEvent,
  stateView,
} from './format.js';

/** Topics and attributes shared with the interviewer (agent/worker). */
const TOPIC_TRANSCRIPTION = 'lk.transcription';
const TOPIC_CHAT = 'lk.chat';
const TOPIC_EVENTS = 'viva.events';
const ATTR_AGENT_STATE = 'lk.agent.state';
/** RPC_END_INTERVIEW tells the interviewer the candidate is ending, so the
 * interview is over at once rather than held open for a rejoin. */
const RPC_END_INTERVIEW = 'viva.end_interview';
const RPC_END_TIMEOUT_MS = 5000;

/** END_CONFIRM_MS is how long "Click (or Tap) again to end" stays armed. */
const END_CONFIRM_MS = 6000;

const byId = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

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
    this.skippedStages = new Set(); // indices of the stages the interview passed over
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
    this.micBlocked = false; // the browser blocks the microphone for this site
    this.checkPermission();
    this.stopWatching = watchIntegrity({
      win: window,
      doc: document,
      input: this.el.chatInput,
      send: (json) => this.sendSignal(json),
      live: () => this.phase === 'live',
    });
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
    this.showJoinReason();
  }

  /** showJoinReason says under Join what stands in the way of joining:
   * the agreement not ticked (why Join is disabled), or a blocked
   * microphone (they may join and type). */
  showJoinReason() {
    if (this.phase !== 'prejoin') return;
    let text = '';
    if (!this.agreed()) text = t('tick_agree');
    else if (this.micBlocked) text = t('mic_blocked_join');
    this.el.joinStatus.textContent = text;
  }

  // ---- mute ----

  // ---- joining ----

  /** checkPermission warns before Join when the microphone is already blocked. */
  async checkPermission() {
    try {
      const status = await navigator.permissions.query({ name: 'microphone' });
      const show = () => {
        this.micBlocked = status.state === 'denied';
        this.showJoinReason();
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
        // Whatever stops the microphone, typing still works.
        this.showProblem(problem.message, () => this.join(), true);
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
        this.showProblem(t('link_unusable', { error: err.message }), null, false);
        this.el.join.disabled = true;
      } else {
        this.showProblem(t('could_not_join', { error: err.message }), () => this.join(), false);
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
        this.el.micOff.textContent = t('mic_stopped');
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
      this.el.endHint.textContent = t('not_sent');
    }
  }

  /** sendSignal reports an integrity signal (signals.js) to the interviewer only. */
  sendSignal(json) {
    const room = this.room;
    if (!room || !this.agentIdentity) return;
    room.localParticipant
      .publishData(new TextEncoder().encode(json), {
        reliable: true,
        topic: TOPIC_SIGNALS,
        destinationIdentities: [this.agentIdentity],
      })
      .catch(() => {});
  }

  // ---- audio playback ----

  // ---- ending ----

  onEndClick() {
    if (this.phase === 'ended') return;
    if (!this.endArmed) {
      this.endArmed = true;
      const words = endConfirm(!!(window.matchMedia && window.matchMedia('(pointer: coarse)').matches));
      this.el.end.textContent = words.label;
      this.el.end.dataset.armed = 'true';
      this.el.endHint.textContent = words.hint;
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
    this.stopWatching();
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
      this.showProblem(t('other_tab'), () => this.reconnect(), false);
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
    this.showProblem(t('no_reconnect'), () => this.reconnect(), false);
  }

  // ---- views ----

}

// The page's other jobs, each in its own module, are methods of RoomPage.
Object.assign(RoomPage.prototype, captionMethods, deviceMethods, stageMethods, viewMethods);

const root = document.getElementById('room');
if (root) new RoomPage(root);
