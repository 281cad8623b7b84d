package voice

import (
	"fmt"
	"math"
	"math/bits"
	"time"
	"unsafe"

	webrtcvad "github.com/maxhawkins/go-webrtcvad"
)

// vadWarmupFrames is how many frames at the start of a stream only train
// the VAD's noise model (200 ms).
const vadWarmupFrames = 10

// tailFloorRMS is the level (PCM16 RMS, about -50 dBFS) under which a
// frame inside an utterance counts as silence whatever the classifier
// says. webrtc's VAD adapts its model to the voice it hears: after a few
// turns of the same speaker it takes the inaudible fade after the last
// word (-55 to -65 dBFS in flite's speech) for voice, and the end of the
// candidate's speech, from which endpointing counts, comes up to 160 ms
// late. Onsets keep the classifier's answer alone, so a quiet speaker is
// still heard.
const tailFloorRMS = 100

// vadHistoryFrames is how many frames of voicing history voiceActivity
// keeps; the detection window must fit in it.
const vadHistoryFrames = 64

// maxMinSpeech bounds MinSpeech so that the detection window (MinSpeech +
// two frames) fits the voicing history.
const maxMinSpeech = 1 * time.Second

// framesCeil is the number of 20 ms frames covering d.
func framesCeil(d time.Duration) int {
	return int((d + VADFrameDuration - 1) / VADFrameDuration)
}

// frameClassifier says whether one 20 ms frame of 16 kHz audio is voiced.
// The Listener uses webrtc's VAD; tests script the answers, so the rules
// built on it run without audio.
type frameClassifier interface {
	voiced(frame *[vadFrameSamples16kHz]int16) (bool, error)
}

// webrtcClassifier is the frameClassifier of production: webrtc's VAD at
// one aggressiveness mode.
type webrtcClassifier struct {
	vad *webrtcvad.VAD
}

// newWebrtcClassifier creates a VAD at mode 1, 2 or 3. Its errors are
// for the caller to prefix.
func newWebrtcClassifier(mode int) (webrtcClassifier, error) {
	vad, err := webrtcvad.New()
	if err != nil {
		return webrtcClassifier{}, fmt.Errorf("create VAD: %w", err)
	}
	if err := vad.SetMode(mode); err != nil {
		return webrtcClassifier{}, fmt.Errorf("set VAD mode %d: %w", mode, err)
	}
	return webrtcClassifier{vad: vad}, nil
}

func (c webrtcClassifier) voiced(frame *[vadFrameSamples16kHz]int16) (bool, error) {
	v, err := c.vad.Process(InputSampleRate, frameBytes(frame))
	if err != nil {
		return false, fmt.Errorf("voice: vad: %w", err)
	}
	return v, nil
}

// frameRMS is the root mean square of a frame in PCM16 units.
func frameRMS(f *[vadFrameSamples16kHz]int16) float64 {
	var sum int64
	for _, v := range f {
		sum += int64(v) * int64(v)
	}
	return math.Sqrt(float64(sum) / float64(len(f)))
}

// frameBytes views a frame as the native-endian bytes the VAD reads,
// without copying.
func frameBytes(f *[vadFrameSamples16kHz]int16) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*2)
}

// framer16kHz cuts 16 kHz audio of any chunk size into whole 20 ms frames,
// keeping a partial frame until the next chunk completes it. The zero
// value is ready.
type framer16kHz struct {
	frame       [vadFrameSamples16kHz]int16
	fillSamples int
	// markedSilence counts the samples of the frame being assembled that
	// the sender marked as silence (fillSilence).
	markedSilence int
}

// zeroFrame is one frame of digital silence, read only.
var zeroFrame [vadFrameSamples16kHz]int16

// fill copies the start of pcm into the frame being assembled and returns
// the rest of pcm. When full is true, frame holds a whole frame, valid
// until the next call.
func (f *framer16kHz) fill(pcm []int16) (rest []int16, full bool) {
	n := copy(f.frame[f.fillSamples:], pcm)
	f.fillSamples += n
	if f.fillSamples < vadFrameSamples16kHz {
		return pcm[n:], false
	}
	f.fillSamples = 0
	return pcm[n:], true
}

// fillSilence is fill for audio the sender marked as silence: a frame made
// only of it is not shown to the classifier.
func (f *framer16kHz) fillSilence(pcm []int16) (rest []int16, full bool) {
	rest, full = f.fill(pcm)
	f.markedSilence += len(pcm) - len(rest)
	return rest, full
}

// frameActivity is what voiceActivity concluded about one frame.
type frameActivity struct {
	// index is the frame's number since the stream began, from 0.
	index int64
	// voiced is the classifier's answer (false during the warm-up).
	voiced bool
	// inUtterance means the frame falls inside an utterance that began
	// before it (it may be the frame that ends it).
	inUtterance bool
	// started means an utterance starts with this frame's decision;
	// onsetFramesAgo is how many frames before this one its first voiced
	// frame lies (0: this frame), windowVoicedFrames how many frames of
	// the detection window were voiced.
	started            bool
	onsetFramesAgo     int
	windowVoicedFrames int
	// ended means the utterance ends with this frame; silentFrames is how
	// many unvoiced frames followed its last voiced one, this one included.
	ended        bool
	silentFrames int
}

// speaking reports whether an utterance is in progress after the frame.
func (a frameActivity) speaking() bool {
	return a.started || (a.inUtterance && !a.ended)
}

// voiceActivity decides when the candidate starts and stops speaking. It
// frames the audio (framer16kHz), asks a frameClassifier about each frame
// and applies two rules: an utterance starts when startFrames of the last
// startFrames + 2 frames were voiced, and ends after endFrames unvoiced
// frames in a row. The first vadWarmupFrames only train the classifier,
// whose noise model starts empty and calls the first frames of any noisy
// stream voiced.
type voiceActivity struct {
	framer16kHz
	classifier frameClassifier
	// startFrames voiced frames within the window (windowMask, the last
	// startFrames + 2 bits of voicedBits) start an utterance; endFrames
	// unvoiced frames end it.
	startFrames int
	windowMask  uint64
	endFrames   int

	frameIdx   int64  // frames classified so far
	voicedBits uint64 // voicing history, newest frame in bit 0
	inSpeech   bool
	silentRun  int // consecutive unvoiced frames in the utterance
	// tailFloor, when above zero, is the RMS under which a frame inside
	// an utterance is unvoiced (tailFloorRMS in production).
	tailFloor float64
}

// newVoiceActivity applies the start rule of minSpeech and the end rule of
// minSilence to the answers of c. minSpeech must be in (0, maxMinSpeech].
func newVoiceActivity(c frameClassifier, minSpeech, minSilence time.Duration) voiceActivity {
	a := voiceActivity{
		classifier:  c,
		startFrames: framesCeil(minSpeech),
		endFrames:   framesCeil(minSilence),
	}
	a.windowMask = 1<<a.windowFrames() - 1
	return a
}

// windowFrames is the length of the detection window: the frames an onset
// may lie before the decision.
func (a *voiceActivity) windowFrames() int { return a.startFrames + 2 }

// classify judges the frame the framer holds. On a classifier error the
// frame is not counted and the state does not change.
func (a *voiceActivity) classify() (frameActivity, error) {
	voiced := false
	silent := a.markedSilence >= vadFrameSamples16kHz
	a.markedSilence = 0
	if !silent {
		v, err := a.classifier.voiced(&a.frame)
		if err != nil {
			return frameActivity{}, err
		}
		voiced = v
	}
	idx := a.frameIdx
	a.frameIdx++
	if idx < vadWarmupFrames {
		voiced = false
	}
	a.voicedBits <<= 1
	if voiced {
		a.voicedBits |= 1
	}
	act := frameActivity{index: idx, voiced: voiced, inUtterance: a.inSpeech}
	if !a.inSpeech {
		window := bits.OnesCount64(a.voicedBits & a.windowMask)
		if voiced && window >= a.startFrames {
			a.inSpeech = true
			a.silentRun = 0
			act.started = true
			// The onset is the oldest voiced frame of the window.
			act.onsetFramesAgo = vadHistoryFrames - 1 - bits.LeadingZeros64(a.voicedBits&a.windowMask)
			act.windowVoicedFrames = window
		}
		return act, nil
	}
	if voiced && (a.tailFloor <= 0 || frameRMS(&a.frame) >= a.tailFloor) {
		a.silentRun = 0
	} else {
		a.silentRun++
	}
	if a.silentRun >= a.endFrames {
		a.inSpeech = false
		act.ended = true
		act.silentFrames = a.silentRun
	}
	return act, nil
}
