package candidatebot

import (
	"context"
	"fmt"
	"time"

	"github.com/viva-interviews/viva/agent/tts/flite"
)

// Say plays pcm16k (mono PCM16 at 16 kHz) into the microphone track and
// returns once it has played out, in real time (a 20 ms frame every 20
// ms). Between utterances the track is silent (see micTrack). Calls are
// serialised: a second Say starts after the first has played. If ctx ends
// first, the rest of the utterance is dropped at once (the candidate stops
// talking) and ctx's error is returned.
func (b *Bot) Say(ctx context.Context, pcm16k []int16) error {
	_, err := b.SayTimed(ctx, pcm16k)
	return err
}

// Spoken is when an utterance was spoken: the start of its first frame and
// the end of its audio, as a browser captures audio and sends each 20 ms
// frame once it ends.
type Spoken struct {
	Start, End time.Time
}

// SayTimed is Say that also returns when the utterance was spoken.
func (b *Bot) SayTimed(ctx context.Context, pcm16k []int16) (Spoken, error) {
	select {
	case b.sayTurn <- struct{}{}:
		defer func() { <-b.sayTurn }()
	case <-ctx.Done():
		return Spoken{}, fmt.Errorf("candidatebot: say: waiting for the previous utterance: %w", ctx.Err())
	}
	select {
	case <-b.disconnected:
		return Spoken{}, fmt.Errorf("candidatebot: say: %w", b.disconnectErr())
	default:
	}
	if err := ctx.Err(); err != nil {
		return Spoken{}, fmt.Errorf("candidatebot: say: %w", err)
	}
	if err := b.mic.WriteSample(pcm16k); err != nil {
		return Spoken{}, fmt.Errorf("candidatebot: say: queue %s of audio: %w", pcmDuration16kHz(len(pcm16k)), err)
	}
	played := make(chan struct{})
	var spoken Spoken
	go func() {
		spoken = b.mic.WaitForPlayout()
		close(played)
	}()
	select {
	case <-played:
		return spoken, nil
	case <-ctx.Done():
		b.mic.ClearQueue() // also releases WaitForPlayout
		<-played
		return Spoken{}, fmt.Errorf("candidatebot: say: %w", ctx.Err())
	case <-b.disconnected:
		b.mic.ClearQueue()
		<-played
		return Spoken{}, fmt.Errorf("candidatebot: say: %w", b.disconnectErr())
	}
}

// SayText speaks text with flite's slt voice (the offline engine the agent's
// sphinx recogniser understands best) and returns once it has played out;
// see Say.
func (b *Bot) SayText(ctx context.Context, text string) error {
	pcm, err := b.Speech(ctx, text)
	if err != nil {
		return err
	}
	return b.Say(ctx, pcm)
}

// Speech synthesises text with flite as 16 kHz mono PCM16 without playing
// it: for tests that want to know what SayText will send (its duration,
// its voiced length) or to play it later with Say.
func (b *Bot) Speech(ctx context.Context, text string) ([]int16, error) {
	b.ttsOnce.Do(func() { b.tts, b.ttsErr = flite.New(flite.Options{Logger: b.log}) })
	if b.ttsErr != nil {
		return nil, fmt.Errorf("candidatebot: speech: %w", b.ttsErr)
	}
	if rate := b.tts.SampleRate(); rate != MicSampleRateHz {
		return nil, fmt.Errorf("candidatebot: speech: flite speaks at %d Hz, the microphone takes %d Hz", rate, MicSampleRateHz)
	}
	var pcm []int16
	err := b.tts.Synthesize(ctx, text, func(chunk []int16) error {
		pcm = append(pcm, chunk...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("candidatebot: speech: synthesise %d characters: %w", len(text), err)
	}
	return pcm, nil
}

// pcmDuration16kHz is the duration of n samples of 16 kHz mono audio.
func pcmDuration16kHz(n int) time.Duration {
	return time.Duration(n) * time.Second / MicSampleRateHz
}
