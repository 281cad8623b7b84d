// Package voice is the transport-agnostic audio plumbing of a spoken
// interview: it turns the candidate's microphone audio into turns and the
// agent's text into paced speech.
//
// Input: an [OpusInput] decodes the candidate's Opus packets straight to
// 16 kHz and passes silence the sender marked as such on without decoding
// it. A [Listener] takes 16 kHz mono PCM16 (any chunk size), runs voice
// activity detection on 20 ms frames, feeds every frame to an [stt.Stream],
// decides when the candidate's turn has ended (endpointing) and when the
// candidate is talking over the agent (barge-in), and reports all of it as
// ordered [Event] values on one channel.
//
// Output: a [Speaker] takes LLM text deltas, splits them into sentences with
// a [SentenceSplitter], synthesises each sentence with a [tts.Engine] while
// the previous one plays, and writes the audio to a [Sink] never more than
// a small, fixed amount ahead of playout, so that an interruption silences
// the agent at once. The production Sink is a [Playout]: it encodes 20 ms
// Opus frames as the audio arrives, and one [Pacer] per process sends every
// session's frames on a single clock.
//
// Nothing here knows about LiveKit: the worker's track glue hands RTP
// payloads to an OpusInput and sends what a Playout gives its
// [PacketWriter].
package voice

import (
	"log/slog"
	"time"
	"unicode/utf8"

	"github.com/viva-interviews/viva/agent/stt"
)

// InputSampleRate is the rate of the audio a Listener accepts: 16 kHz mono
// PCM16, the rate every STT engine is fed.
const InputSampleRate = stt.SampleRate

// VADFrameDuration is the length of the frames the voice activity detector
// classifies and the STT stream receives: 20 ms.
const VADFrameDuration = 20 * time.Millisecond

// vadFrameSamples16kHz is the number of samples in one 20 ms frame at 16 kHz.
const vadFrameSamples16kHz = InputSampleRate * int(VADFrameDuration/time.Millisecond) / 1000

// SinkFrameDuration is the framing of the output sink (a Playout encodes
// 20 ms Opus frames). The Speaker writes whole frames so that the sink
// never pads a partial frame with silence mid-sentence.
const SinkFrameDuration = OpusFrameDuration

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

func loggerOr(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.Default()
	}
	return l
}

// samplesToDuration converts a sample count at rate Hz to a duration.
func samplesToDuration(n int64, rateHz int) time.Duration {
	return time.Duration(n * int64(time.Second) / int64(rateHz))
}

// durationToSamples converts a duration to a sample count at rate Hz,
// rounding down.
func durationToSamples(d time.Duration, rateHz int) int64 {
	return int64(d) * int64(rateHz) / int64(time.Second)
}

// incompleteRune reports whether b starts with a truncated multi-byte UTF-8
// sequence, so that more bytes are needed before it can be decoded.
func incompleteRune(b []byte) bool {
	return len(b) > 0 && !utf8.FullRune(b)
}
