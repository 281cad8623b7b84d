// The room page's views: the live room, the problem panel with its one
// primary action, the connection banner and the interviewer's sound.
// Methods of RoomPage (room.js), kept apart by job.

export const viewMethods = {
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
  },

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
  },

  hideProblem() {
    this.el.problem.hidden = true;
    this.el.joinActions.hidden = false;
    this.retryAction = null;
  },

  showBanner(text) {
    if (this.phase === 'ended') return;
    this.el.banner.textContent = text;
    this.el.banner.hidden = false;
  },

  hideBanner() {
    this.el.banner.hidden = true;
  },

  startAudio() {
    if (!this.room) return;
    this.room
      .startAudio()
      .catch(() => {})
      .finally(() => this.updatePlayback());
  },

  updatePlayback() {
    this.el.startAudio.hidden = !this.room || this.room.canPlaybackAudio || this.phase === 'ended';
  },
};
