// Package spoken holds the spoken half of an interview, whatever carries
// its audio: the candidate's Opus packets go through the listener (package
// agent/voice) to the conversation loop's inputs, and the loop's replies go
// out through the speaker and the playout as Opus frames. A Session is the
// agent.Transport of a spoken interview. It knows nothing of LiveKit: the
// room session (package agent/worker) wraps it with tracks, captions and
// attributes, and the in-process benchmark feeds it packets directly.
package spoken

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/agent/voice"
	"github.com/viva-interviews/viva/interviews"
)

// State is what the interviewer is doing, as a room shows it.
type State int

// The interviewer's states while the interview runs.
const (
	// StateListening: the interviewer waits for the candidate to speak.
	StateListening State = iota + 1
	// StateThinking: the interviewer prepares its reply.
	StateThinking
	// StateSpeaking: the reply's audio is playing.
	StateSpeaking
)

// Display is what a room shows of a spoken interview besides its audio:
// captions, the agent's state and the current stage. The LiveKit session
// publishes them; the in-process benchmark shows nothing.
type Display interface {
	// Caption shows the candidate's words.
	Caption(t voice.Transcript)
	// AgentCaption shows the agent's words of one reply segment so far;
	// interrupted marks a final caption cut off by the candidate.
	AgentCaption(segment, text string, final, interrupted bool)
	// State shows the agent's state.
	State(state State)
	// Thinking shows or stops showing that the interviewer waits out the
	// candidate's thinking pause.
	Thinking(on bool)
	// StageEntered shows the interview's new stage.
	StageEntered(sc agent.StageChange)
}

// NoDisplay shows nothing: a Session without a room.
type NoDisplay struct{}

// Caption does nothing.
func (NoDisplay) Caption(voice.Transcript) {}

// AgentCaption does nothing.
func (NoDisplay) AgentCaption(string, string, bool, bool) {}

// State does nothing.
func (NoDisplay) State(State) {}

// Thinking does nothing.
func (NoDisplay) Thinking(bool) {}

// StageEntered does nothing.
func (NoDisplay) StageEntered(agent.StageChange) {}

// Options configure a Session.
type Options struct {
	// STT and TTS are the interview's speech engines. Required.
	STT stt.Engine
	TTS tts.Engine
	// Listener is the template of the input pipeline's options (its STT
	// and Logger are set here).
	Listener voice.ListenerOptions
	// Pacer sends the agent's audio; one is shared by every session of a
	// process. Required.
	Pacer *voice.Pacer
	// Silence writes the candidate's pauses as they happen when the
	// browser stops sending (discontinuous transmission); nil: the one
	// clock every session of the process shares.
	Silence *voice.SilenceClock
	// Out carries the agent's encoded audio (the room's track). Required.
	Out voice.PacketWriter
	// Display shows captions, state and stage (nil: NoDisplay).
	Display Display
	// CandidateTap, when set, sees the candidate's decoded 16 kHz PCM;
	// AgentTap the agent's PCM at the TTS rate as it is encoded (both with
	// their Opus packets when those hold one 20 ms frame), and
	// AgentCleared is called when audio AgentTap saw is dropped unsent (the
	// candidate cut in). They are where a recording attaches.
	CandidateTap, AgentTap voice.PCMTap
	AgentCleared           func()
	// Segment prefixes the agent's caption segment ids (the job id).
	Segment string
	// Logger is the session's logger.
	Logger *slog.Logger
}

// Session is the spoken half of one interview, whatever carries its audio:
// the candidate's Opus packets go in (WritePacket through an OpusInput),
// through the listener, to the conversation loop's inputs; the loop's
// replies go out through the speaker and the playout, as Opus frames sent
// on the shared pacing clock. It is the agent.Transport of a spoken
// interview: the LiveKit session wraps it with tracks, captions and
// attributes, and the in-process benchmark feeds it packets directly.
type Session struct {
	log      *slog.Logger
	display  Display
	segment  string
	candTap  voice.PCMTap
	listener *voice.Listener
	speaker  *voice.Speaker
	playout  *voice.Playout
	silence  *voice.SilenceClock

	micMu sync.Mutex
	mics  []*voice.OpusInput // the candidate's inputs (one per track it published), closed with the session

	inputs   chan agent.Input
	done     chan struct{}
	listened chan struct{}
	closing  sync.Once

	thinking atomic.Bool
	segments atomic.Int64 // agent caption segments so far
}

// New opens the listener's recognition stream and readies the
// speaker; it starts turning what the listener hears into inputs. Close
// it when the interview ends. An error names what failed: the speech
// recogniser (errors.Is ErrSTT) or the voice (ErrTTS).
func New(ctx context.Context, opts Options) (*Session, error) {
	log := opts.Logger
	if log == nil {
		log = slog.Default()
	}
	display := opts.Display
	if display == nil {
		display = NoDisplay{}
	}
	lopts := opts.Listener
	lopts.STT = opts.STT
	if lopts.Logger == nil {
		lopts.Logger = log
	}
	playout, err := voice.NewPlayout(voice.PlayoutOptions{SampleRateHz: opts.TTS.SampleRate(), Pacer: opts.Pacer, Out: opts.Out, Tap: opts.AgentTap, TapCleared: opts.AgentCleared})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTTS, err)
	}
	speaker, err := voice.NewSpeaker(voice.SpeakerOptions{TTS: opts.TTS, Sink: playout, Logger: log})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrTTS, err)
	}
	listener, err := voice.NewListener(ctx, lopts)
	if err != nil {
		return nil, fmt.Errorf("%w: starting speech recognition: %w", ErrSTT, err)
	}
	silence := opts.Silence
	if silence == nil {
		silence = sharedSilenceClock()
	}
	v := &Session{log: log, display: display, segment: opts.Segment, candTap: opts.CandidateTap,
		listener: listener, speaker: speaker, playout: playout, silence: silence,
		inputs: make(chan agent.Input, 64), done: make(chan struct{}), listened: make(chan struct{})}
	go v.listen()
	return v, nil
}

// Errors New wraps, naming the engine that failed.
var (
	// ErrSTT: the speech recogniser could not start.
	ErrSTT = errors.New("speech recognition")
	// ErrTTS: the voice could not be readied.
	ErrTTS = errors.New("speech synthesis")
)

// NewCandidateInput returns a decoder of one candidate microphone track's
// Opus packets into the listener; a candidate who rejoins brings a new
// track and gets a new one. Its pauses are written on the session's silence
// clock; Close it when its track ends (the session's Close closes it too).
func (v *Session) NewCandidateInput() (*voice.OpusInput, error) {
	in, err := voice.NewOpusInput(v.listener, v.candTap)
	if err != nil {
		return nil, err
	}
	v.micMu.Lock()
	v.mics = append(v.mics, in)
	v.micMu.Unlock()
	v.silence.Add(in)
	return in, nil
}

// Post hands an input to the loop (the room's own: joined, left, typed
// text, …) without blocking a callback forever.
func (v *Session) Post(in agent.Input) {
	select {
	case v.inputs <- in:
	case <-v.done:
	case <-time.After(5 * time.Second):
		v.log.Warn("session loop is not keeping up; dropped an input", "input", fmt.Sprintf("%T", in))
	}
}

// Close stops listening and playing; later posts are dropped.
func (v *Session) Close() error {
	var err error
	v.closing.Do(func() {
		close(v.done)
		v.micMu.Lock()
		for _, in := range v.mics {
			in.Close()
		}
		v.mics = nil
		v.micMu.Unlock()
		err = v.listener.Close()
		<-v.listened
		v.speaker.Interrupt()
		_ = v.playout.Close()
	})
	return err
}

// listen turns the listener's events into the loop's inputs (and the
// candidate's captions) until the session closes.
func (v *Session) listen() {
	defer close(v.listened)
	events := v.listener.Events()
	for {
		var ev voice.Event
		select {
		case e, ok := <-events:
			if !ok {
				return
			}
			ev = e
		case <-v.done:
			return
		}
		var in agent.Input
		switch e := ev.(type) {
		case voice.SpeechStarted:
			v.setThinking(false)
			in = agent.SpeechStarted{At: e.At}
		case voice.SpeechEnded:
			in = agent.SpeechEnded{}
		case voice.Transcript:
			v.display.Caption(e)
			if strings.TrimSpace(e.Text) == "" {
				continue
			}
			in = agent.Heard{Text: e.Text}
		case voice.LikelyEndOfTurn:
			in = agent.TurnLikely{Text: e.Text}
		case voice.ThinkingPause:
			v.setThinking(true)
			continue
		case voice.STTStopped:
			v.log.Error("the speech recogniser failed: the interview will be saved as failed")
			in = agent.Closed{Status: interviews.StatusFailed, Reason: interviews.EndedByProviderError("stt")}
		case voice.Interruption:
			in = agent.BargeIn{}
		case voice.EndOfTurn:
			v.setThinking(false)
			in = agent.CandidateTurn{Text: e.Text, Source: agent.SourceVoice, StartedAt: e.SpeechEndedAt, EndedAt: e.SpeechEndedAt,
				Endpointing: e.Metrics, STTConfidence: e.STTConfidence}
		default:
			continue
		}
		v.Post(in)
	}
}

// sharedSilenceClock writes the candidate's pauses for every session of
// the process that sets no Options.Silence. It has no goroutine while no
// candidate track is open.
var sharedSilenceClock = sync.OnceValue(func() *voice.SilenceClock { return voice.NewSilenceClock(nil) })

// setThinking shows (or stops showing) that the interviewer waits while
// the candidate thinks mid-answer.
func (v *Session) setThinking(on bool) {
	if v.thinking.Swap(on) == on {
		return
	}
	v.display.Thinking(on)
}

// Inputs yields what the candidate says and does.
func (v *Session) Inputs() <-chan agent.Input { return v.inputs }

// Listening shows the agent as listening.
func (v *Session) Listening() { v.display.State(StateListening) }

// StageEntered shows the new stage.
func (v *Session) StageEntered(sc agent.StageChange) { v.display.StageEntered(sc) }

// Say plays a reply: its text streams to the speaker as it is generated,
// and to the agent's captions sentence by sentence.
func (v *Session) Say(ctx context.Context, r *agent.Reply) agent.Playback {
	p := &playback{v: v, reply: r, segment: fmt.Sprintf("%s-agent-%d", v.segment, v.segments.Add(1))}
	v.display.State(StateThinking)
	deltas := make(chan string, 64)
	go func() {
		defer close(deltas)
		var split voice.SentenceSplitter
		var said []string
		for d := range r.Deltas() {
			select {
			case deltas <- d:
			case <-ctx.Done():
				return
			}
			if done := split.Write(d); len(done) > 0 {
				said = append(said, done...)
				v.display.AgentCaption(p.segment, strings.Join(said, " "), false, false)
			}
		}
	}()
	p.utt = v.speaker.Say(ctx, deltas)
	v.listener.SetAgentSpeaking(true)
	go func() {
		select {
		case <-p.utt.Started():
			p.started.Store(time.Now().UnixNano())
			v.display.State(StateSpeaking)
		case <-p.utt.Done():
		}
	}()
	return p
}

// playback is one reply being spoken.
type playback struct {
	v        *Session
	reply    *agent.Reply
	utt      *voice.Utterance
	segment  string
	once     sync.Once
	delivery agent.Delivery
	started  atomic.Int64 // unix ns of the first audio; 0 before
}

// StartedAt is when the reply's first audio played; zero before.
func (p *playback) StartedAt() time.Time {
	if ns := p.started.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return time.Time{}
}

// Done is closed when the reply has finished playing or was cut.
func (p *playback) Done() <-chan struct{} { return p.utt.Done() }

// Interrupt stops the reply's audio at once.
func (p *playback) Interrupt() { p.utt.Interrupt() }

// Wait returns what was played of the reply, and shows it as the
// segment's final caption.
func (p *playback) Wait() agent.Delivery {
	p.once.Do(func() {
		res := p.utt.Wait()
		text, _ := p.reply.Wait()
		played := res.PlayedText
		if !res.Interrupted && res.Err == nil {
			played = res.Text
			if played == "" {
				played = text
			}
		}
		p.delivery = agent.Delivery{Text: played, Interrupted: res.Interrupted, EndedAt: time.Now(), TTSFirstByte: res.TTSFirstByte}
		if res.Started {
			p.delivery.StartedAt = res.FirstAudioAt
		}
		p.v.listener.SetAgentSpeaking(false)
		if played != "" {
			p.v.display.AgentCaption(p.segment, played, true, res.Interrupted)
		}
	})
	return p.delivery
}
