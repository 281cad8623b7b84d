package candidatebot

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/livekit/protocol/livekit"
	lksdk "github.com/livekit/server-sdk-go/v2"
)

// tone is d of a 440 Hz sine at 16 kHz whose RMS is rmsLevel.
func tone(d time.Duration, rmsLevel float64) []int16 {
	n := int(d * MicSampleRateHz / time.Second)
	out := make([]int16, n)
	amp := rmsLevel * math.Sqrt2
	for i := range out {
		out[i] = int16(math.Round(amp * math.Sin(2*math.Pi*440*float64(i)/MicSampleRateHz)))
	}
	return out
}

// feedAsync runs feed in a goroutine and returns a channel closed when it
// is done.
func feedAsync(s *audioSink, pcm []int16, chunk int) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		feed(s, pcm, chunk)
	}()
	return done
}

// feed writes pcm to the sink in chunks of chunk samples, each after the
// real-time duration of the previous one (fake time inside synctest).
func feed(s *audioSink, pcm []int16, chunk int) {
	for len(pcm) > 0 {
		k := min(chunk, len(pcm))
		_ = s.WriteSample(pcm[:k])
		time.Sleep(pcmDuration16kHz(k))
		pcm = pcm[k:]
	}
}

func concat(parts ...[]int16) []int16 {
	var out []int16
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func TestAgentAudioCountsVoicedFrames(t *testing.T) {
	tests := []struct {
		name        string
		voicedRMS   float64 // Options.VoicedRMS
		pcm         []int16
		chunk       int // samples per WriteSample
		wantVoiced  time.Duration
		wantReceive time.Duration
	}{
		{"silence is not voiced", 0, tone(time.Second, 0), 320, 0, time.Second},
		{"quiet tone below the default threshold", 0, tone(time.Second, 250), 320, 0, time.Second},
		{"tone above the default threshold", 0, tone(time.Second, 400), 320, time.Second, time.Second},
		{"frames assembled across odd chunk sizes", 0, concat(tone(500*time.Millisecond, 0), tone(700*time.Millisecond, 3000)), 113, 700 * time.Millisecond, 1200 * time.Millisecond},
		{"custom threshold rejects a tone the default accepts", 500, tone(time.Second, 400), 160, 0, time.Second},
		{"trailing partial frame is received but not judged", 0, tone(30*time.Millisecond, 3000), 480, 20 * time.Millisecond, 30 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				b := newBot(Options{VoicedRMS: tc.voicedRMS})
				feed(&audioSink{bot: b}, tc.pcm, tc.chunk)
				got := b.AgentAudio()
				if got.Voiced != tc.wantVoiced || got.Received != tc.wantReceive {
					t.Errorf("voiced %s received %s, want %s and %s", got.Voiced, got.Received, tc.wantVoiced, tc.wantReceive)
				}
				if (tc.wantVoiced > 0) == got.FirstVoicedAt.IsZero() {
					t.Errorf("FirstVoicedAt = %v with %s voiced", got.FirstVoicedAt, got.Voiced)
				}
				if want := VoicedDuration(tc.pcm, b.voicedRMS); want != tc.wantVoiced {
					t.Errorf("VoicedDuration = %s, want %s (same measure as received audio)", want, tc.wantVoiced)
				}
			})
		})
	}
}

func TestWaitAgentSpeechAndSilenceFollowTheAudio(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBot(Options{})
		sink := &audioSink{bot: b}
		start := time.Now()
		// 300 ms silence, 1 s speech, 2 s silence, as 20 ms packets.
		fed := feedAsync(sink, concat(tone(300*time.Millisecond, 0), tone(time.Second, 2000), tone(2*time.Second, 0)), 320)
		defer func() { <-fed }()

		ctx := context.Background()
		if err := b.WaitAgentSpeech(ctx, 500*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if got, want := time.Since(start), 780*time.Millisecond; got != want {
			t.Errorf("WaitAgentSpeech(500ms) returned after %s, want %s (the 25th voiced packet starts at 780 ms)", got, want)
		}
		if !b.AgentSpeaking() {
			t.Errorf("AgentSpeaking = false in the middle of speech")
		}
		if err := b.WaitAgentSilence(ctx, 400*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		// The last voiced frame arrives at 1.28 s (written when it starts,
		// in one packet); silence of 400 ms then ends at 1.68 s.
		if got, want := time.Since(start), 1680*time.Millisecond; got != want {
			t.Errorf("WaitAgentSilence(400ms) returned after %s, want %s", got, want)
		}
		if b.AgentSpeaking() {
			t.Errorf("AgentSpeaking = true 400 ms after the last voiced frame")
		}
		stats := b.AgentAudio()
		if stats.Voiced != time.Second || stats.LastVoicedAt.Sub(stats.FirstVoicedAt) != 980*time.Millisecond {
			t.Errorf("stats = %+v, want 1 s voiced spanning 980 ms", stats)
		}

		// Speech that has already been heard does not satisfy a new wait.
		wctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		err := b.WaitAgentSpeech(wctx, 20*time.Millisecond)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "heard 0s") {
			t.Errorf("WaitAgentSpeech after the speech ended = %v, want a deadline error saying 0s heard", err)
		}
	})
}

func TestWaitAgentSilenceWithoutAudioCountsFromJoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBot(Options{})
		start := time.Now()
		if err := b.WaitAgentSilence(context.Background(), 700*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(start); got != 700*time.Millisecond {
			t.Errorf("returned after %s, want 700ms", got)
		}
	})
}

func TestWaitAgentSilenceFailsWhileTheAgentKeepsTalking(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBot(Options{})
		fed := feedAsync(&audioSink{bot: b}, tone(3*time.Second, 2000), 320)
		defer func() { <-fed }()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		err := b.WaitAgentSilence(ctx, 300*time.Millisecond)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("err = %v, want deadline exceeded", err)
		}
	})
}

func TestEventsKeepJSONObjectsOnTheEventsTopic(t *testing.T) {
	tests := []struct {
		name    string
		topic   string
		payload string
		kept    bool
	}{
		{"stage change", topicEvents, `{"type":"stage_change","stage":"intro"}`, true},
		{"other topic", "lk.other", `{"type":"stage_change"}`, false},
		{"not JSON", topicEvents, `stage_change`, false},
		{"JSON array", topicEvents, `[{"type":"stage_change"}]`, false},
		{"JSON null", topicEvents, `null`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBot(Options{})
			b.onDataPacket(&lksdk.UserDataPacket{Topic: tc.topic, Payload: []byte(tc.payload)}, lksdk.DataReceiveParams{SenderIdentity: "agent"})
			if got := len(b.Events()); got != map[bool]int{true: 1, false: 0}[tc.kept] {
				t.Fatalf("Events() has %d, kept = %v", got, tc.kept)
			}
		})
	}
}

func TestWaitsEndWhenTheBotIsDisconnected(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newBot(Options{})
		b.onDataPacket(&lksdk.UserDataPacket{Topic: topicEvents, Payload: []byte(`{"type":"interview_ending"}`)}, lksdk.DataReceiveParams{})
		done := make(chan error, 1)
		go func() {
			_, err := b.WaitEvent(context.Background(), "interview_saved")
			done <- err
		}()
		synctest.Wait()
		b.markDisconnected(livekit.DisconnectReason_ROOM_DELETED)
		err := <-done
		if !errors.Is(err, ErrDisconnected) || !strings.Contains(err.Error(), "ROOM_DELETED") {
			t.Errorf("WaitEvent = %v, want ErrDisconnected with the reason", err)
		}
		// What was observed before the disconnection still satisfies a wait.
		if ev, err := b.WaitEvent(context.Background(), "interview_ending"); err != nil || ev["type"] != "interview_ending" {
			t.Errorf("WaitEvent(interview_ending) after disconnect = %v, %v", ev, err)
		}
		select {
		case <-b.Disconnected():
		default:
			t.Errorf("Disconnected() not closed")
		}
	})
}

func TestPublicationSIDHandlesTypedNil(t *testing.T) {
	var remote *lksdk.RemoteTrackPublication
	var local *lksdk.LocalTrackPublication
	for name, pub := range map[string]lksdk.TrackPublication{"nil": nil, "typed nil remote": remote, "typed nil local": local} {
		if got := publicationSID(pub); got != "" {
			t.Errorf("%s: publicationSID = %q, want empty", name, got)
		}
	}
}

// TestVoicedSpansAndLateFrames: voiced arrivals within 100 ms of each other
// make one span; a gap inside agent speech longer than the previous
// packet's audio by more than 40 ms counts the 20 ms frames missing from it, a pause between utterances does not, nor
// does the silence of a sender that sends nothing between utterances.
func TestVoicedSpansAndLateFrames(t *testing.T) {
	b := newBot(Options{})
	t0 := time.Now()
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for ms := 0; ms <= 200; ms += 20 {
		b.addAudio(at(ms), samplesPer20msAt16kHz, 1)
	}
	b.addAudio(at(300), samplesPer20msAt16kHz, 1) // 100 ms gap: 4 frames missing
	for ms := 320; ms <= 1000; ms += 20 {
		b.addAudio(at(ms), samplesPer20msAt16kHz, 0) // silence after the utterance
	}
	b.addAudio(at(2000), samplesPer20msAt16kHz, 1) // the next utterance, after silence
	// A sender that sends nothing between utterances: its next one, 3 s
	// after its last voiced frame, is a new talkspurt, not late audio.
	b.addAudio(at(5000), samplesPer20msAt16kHz, 1)
	spans := b.VoicedSpans()
	if len(spans) != 3 || !spans[0].Start.Equal(at(0)) || !spans[0].End.Equal(at(300)) || !spans[1].Start.Equal(at(2000)) || !spans[2].Start.Equal(at(5000)) {
		t.Fatalf("spans %+v", spans)
	}
	if got := b.AgentAudio().LateFrames; got != 4 {
		t.Errorf("late frames %d, want 4", got)
	}

	// Packets of 40 ms every 40 ms, up to 30 ms late, are on time; one
	// that ends a 100 ms gap after a 40 ms packet misses 60 ms: 3 frames.
	b = newBot(Options{})
	for i, ms := range []int{0, 40, 110, 120, 160, 200, 300} {
		b.addAudio(at(ms), 2*samplesPer20msAt16kHz, 1)
		if got, want := b.AgentAudio().LateFrames, map[bool]int{true: 3, false: 0}[i == 6]; got != want {
			t.Errorf("40 ms packets: after the one at %d ms, %d late frames, want %d", ms, got, want)
		}
	}
}
