package candidatebot

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	lksdk "github.com/livekit/server-sdk-go/v2"
	"github.com/pion/webrtc/v4"
)

const (
	// DefaultVoicedRMS is the default Options.VoicedRMS: about -40 dBFS.
	// Opus-coded silence decodes to within a few units of zero, the pauses
	// in flite speech measure 10-20 and its voiced frames mostly 1000-9000,
	// so the threshold separates speech from silence with a wide margin.
	DefaultVoicedRMS = 300
	// analysisFrame20ms is the unit of voicing decisions.
	analysisFrame20ms = 20 * time.Millisecond
	// samplesPer20msAt16kHz is one analysis frame of agent audio.
	samplesPer20msAt16kHz = MicSampleRateHz / 50
	// speakingWindow is how recent voiced audio must be for AgentSpeaking.
	speakingWindow = 200 * time.Millisecond
	// talkspurtGap is the arrival gap from which the agent's audio is a new
	// talkspurt rather than a late one: a sender that sends nothing while
	// silent (as viva's does between replies, and a DTX sender does) stops
	// right after its last voiced frame.
	talkspurtGap = time.Second
	// spanJoinGap is the longest pause between voiced arrivals that one
	// VoicedSpan bridges: the spacing of audio packets with room for jitter.
	spanJoinGap = 100 * time.Millisecond
	// maxSpans bounds the voiced spans kept; the oldest are dropped first.
	maxSpans = 100000
	// lateAfter is how much later than the audio of the previous packet
	// ends a packet inside agent speech may arrive before it counts as
	// late: two 20 ms frames, what a browser's jitter buffer absorbs.
	lateAfter = 2 * analysisFrame20ms
)

// VoicedSpan is a run of voiced agent audio as it arrived at the bot: from
// the arrival of its first voiced frame to that of its last, with no pause
// longer than 100 ms between them. Arrival is when the bot read the RTP
// packet from its connection, before any jitter buffer.
type VoicedSpan struct {
	Start, End time.Time
	// Buffered is when the span's first packet left a jitter buffer such
	// as LiveKit's SDKs put before their decoder (see ClientJitterWait):
	// when a client of that kind would start playing it. Zero when the
	// buffer dropped that packet.
	Buffered time.Time
}

// AudioStats summarises the agent audio received since Join, over every
// track of the participants Options.ListenTo selects.
type AudioStats struct {
	// Received is how much audio arrived, silence included (a sender
	// without discontinuous transmission sends silence between
	// utterances).
	Received time.Duration
	// Voiced is how much of it was in 20 ms frames at or above the voiced
	// RMS threshold.
	Voiced time.Duration
	// FirstVoicedAt and LastVoicedAt are when the first and the latest
	// voiced frames arrived; zero until one has.
	FirstVoicedAt, LastVoicedAt time.Time
	// LateFrames counts 20 ms frames missing from gaps in the arrival of
	// agent audio while the agent speaks: a gap between two arrivals (the
	// first within 200 ms of voiced audio, the second voiced) longer than
	// the first one's audio by more than 40 ms and shorter than a second (a
	// longer one starts a new talkspurt) counts each 20 ms of what it
	// exceeds the first one's audio by. It is what a listener
	// hears as a stutter (a pacing miss at the sender, or a delay on the
	// way, the bot's own scheduling included).
	LateFrames int
}

// VoicedSpans is a copy of the runs of voiced agent audio received so far,
// oldest first (the most recent 100000).
func (b *Bot) VoicedSpans() []VoicedSpan {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.spans)
}

// AgentAudio is a snapshot of the agent audio statistics.
func (b *Bot) AgentAudio() AudioStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.audio
}

// AgentSpeaking reports whether voiced agent audio arrived within the last
// 200 ms.
func (b *Bot) AgentSpeaking() bool {
	b.mu.Lock()
	last := b.audio.LastVoicedAt
	b.mu.Unlock()
	return !last.IsZero() && time.Since(last) < speakingWindow
}

// WaitAgentSpeech waits until at least minVoiced of voiced agent audio has
// arrived after the call.
func (b *Bot) WaitAgentSpeech(ctx context.Context, minVoiced time.Duration) error {
	start := b.AgentAudio().Voiced
	err := b.wait(ctx, func() bool { return b.AgentAudio().Voiced-start >= minVoiced })
	if err != nil {
		return fmt.Errorf("candidatebot: waiting for %s of agent speech (heard %s): %w",
			minVoiced, b.AgentAudio().Voiced-start, err)
	}
	return nil
}

// WaitAgentSilence waits until no voiced agent audio has arrived for quiet:
// since the latest voiced frame, or since Join if there was none. Absent
// audio (no agent track, or the bot left the room) counts as silence.
func (b *Bot) WaitAgentSilence(ctx context.Context, quiet time.Duration) error {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		b.mu.Lock()
		since := b.audio.LastVoicedAt
		b.mu.Unlock()
		if since.Before(b.joinedAt) {
			since = b.joinedAt
		}
		remaining := time.Until(since.Add(quiet))
		if remaining <= 0 {
			return nil
		}
		// Sleep until the silence would be long enough, then look again:
		// speech in between moves the deadline.
		if timer == nil {
			timer = time.NewTimer(remaining)
		} else {
			timer.Reset(remaining)
		}
		select {
		case <-timer.C:
		case <-ctx.Done():
			return fmt.Errorf("candidatebot: waiting for %s of agent silence (agent still speaking): %w", quiet, ctx.Err())
		}
	}
}

// onTrackSubscribed listens to the audio tracks of listened-to
// participants.
func (b *Bot) onTrackSubscribed(track *webrtc.TrackRemote, pub *lksdk.RemoteTrackPublication, rp *lksdk.RemoteParticipant) {
	if track.Kind() != webrtc.RTPCodecTypeAudio || !b.listenTo(rp) {
		return
	}
	if track.Codec().MimeType != webrtc.MimeTypeOpus {
		b.log.Error("cannot decode agent audio track: not Opus", "participant", rp.Identity(), "track", pub.SID(), "codec", track.Codec().MimeType)
		return
	}
	r, err := newPacketReader(b, track)
	if err != nil {
		b.log.Error("cannot decode agent audio track", "participant", rp.Identity(), "track", pub.SID(), "error", err)
		return
	}
	// The reader ends when the track does (unsubscribed, or the connection
	// closed).
	go r.run()
	b.log.Debug("listening to audio track", "participant", rp.Identity(), "track", pub.SID())
	b.notify()
}

// audioSink receives one track's decoded 16 kHz mono audio and adds it to
// the bot's statistics in 20 ms frames.
type audioSink struct {
	bot *Bot

	mu    sync.Mutex
	frame [samplesPer20msAt16kHz]int16
	n     int // samples in frame
}

// WriteSample adds pcm as arrived now.
func (s *audioSink) WriteSample(pcm []int16) error {
	s.writeAt(time.Now(), pcm)
	return nil
}

// writeAt adds pcm, arrived at now, and reports whether it started a new
// VoicedSpan.
func (s *audioSink) writeAt(now time.Time, pcm []int16) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	received := len(pcm)
	voiced := 0
	for len(pcm) > 0 {
		k := copy(s.frame[s.n:], pcm)
		s.n += k
		pcm = pcm[k:]
		if s.n == len(s.frame) {
			if rms(s.frame[:]) >= s.bot.voicedRMS {
				voiced++
			}
			s.n = 0
		}
	}
	return s.bot.addAudio(now, received, voiced)
}

// addAudio records samples16kHz of received audio, voicedFrames of it
// voiced, arrived at now, and reports whether it started a new VoicedSpan.
func (b *Bot) addAudio(now time.Time, samples16kHz, voicedFrames int) (started bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.audio.Received += pcmDuration16kHz(samples16kHz)
	last, lastAudio := b.lastArrival, b.lastArrivalAudio
	b.lastArrival, b.lastArrivalAudio = now, pcmDuration16kHz(samples16kHz)
	gap := now.Sub(last)
	if late := gap - lastAudio; voicedFrames > 0 && !last.IsZero() && late > lateAfter && gap < talkspurtGap &&
		!b.audio.LastVoicedAt.IsZero() && last.Sub(b.audio.LastVoicedAt) < speakingWindow {
		b.audio.LateFrames += int(late / analysisFrame20ms)
	}
	if voicedFrames > 0 {
		if n := len(b.spans); n > 0 && now.Sub(b.spans[n-1].End) <= spanJoinGap {
			b.spans[n-1].End = now
		} else {
			if n >= maxSpans {
				b.spans = slices.Delete(b.spans, 0, n-maxSpans+1)
			}
			b.spans = append(b.spans, VoicedSpan{Start: now, End: now})
			started = true
		}
		b.audio.Voiced += time.Duration(voicedFrames) * analysisFrame20ms
		if b.audio.FirstVoicedAt.IsZero() {
			b.audio.FirstVoicedAt = now
		}
		b.audio.LastVoicedAt = now
	}
	b.notifyLocked()
	return started
}

// spanBuffered notes that the first packet of the VoicedSpan that started
// at start left a client's jitter buffer at at.
func (b *Bot) spanBuffered(start, at time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.spans) - 1; i >= 0 && !b.spans[i].Start.Before(start); i-- {
		if b.spans[i].Start.Equal(start) {
			b.spans[i].Buffered = at
			return
		}
	}
}

// rms is the root mean square of pcm in PCM16 units.
func rms(pcm []int16) float64 {
	if len(pcm) == 0 {
		return 0
	}
	var sum float64
	for _, v := range pcm {
		f := float64(v)
		sum += f * f
	}
	return math.Sqrt(sum / float64(len(pcm)))
}

// VoicedDuration is how much of pcm16k (mono, 16 kHz) is in 20 ms frames at
// or above voicedRMS: the measure AgentAudio applies to received audio,
// for comparing what was heard with what was sent. A trailing partial frame
// is ignored.
func VoicedDuration(pcm16k []int16, voicedRMS float64) time.Duration {
	var d time.Duration
	for len(pcm16k) >= samplesPer20msAt16kHz {
		if rms(pcm16k[:samplesPer20msAt16kHz]) >= voicedRMS {
			d += analysisFrame20ms
		}
		pcm16k = pcm16k[samplesPer20msAt16kHz:]
	}
	return d
}
