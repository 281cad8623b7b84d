package worker_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/viva-interviews/viva/agent/recording"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
)

// TestSessionRecordsBothVoices runs an interview over a real livekit-server
// with the interviewer's voice at 24 kHz (the OpenAI fake) and the
// candidate's at 16 kHz, and reads the recording back: it is a valid
// Ogg/Opus file named in the record, it lasts as long as the session, and
// there is sound where each of them spoke and quiet between.
func TestSessionRecordsBothVoices(t *testing.T) {
	_, sessions := startFakes(t, fullAnswers, interviewerPolicy(""))
	dir, err := recordings.Open(filepath.Join(t.TempDir(), "recordings"))
	if err != nil {
		t.Fatal(err)
	}
	sessions.Recordings = dir
	h := startHarness(t, sessions)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	room := leaveAfterFirstAnswer(t, ctx, h)
	rec := h.record(t, ctx, room, func(r *interviews.Record) bool { return r.Status.Finished() && len(r.Recordings) > 0 })

	if len(rec.Recordings) != 1 {
		t.Fatalf("recordings %+v", rec.Recordings)
	}
	entry := rec.Recordings[0]
	if entry.Name != recordings.Name(rec.ID, 1) || entry.ContentType != interviews.RecordingContentType {
		t.Fatalf("entry %+v", entry)
	}
	data, err := os.ReadFile(filepath.Join(dir.Path(), entry.Name))
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir.Path()); len(entries) != 1 {
		t.Errorf("the directory holds %d files, want the recording alone", len(entries))
	}
	stream, err := recording.Inspect(data)
	if err != nil {
		t.Fatal(err)
	}
	if entry.Bytes != int64(len(data)) || stream.Duration() != entry.Duration() {
		t.Fatalf("entry says %d bytes and %v; the file has %d bytes and plays %v", entry.Bytes, entry.Duration(), len(data), stream.Duration())
	}
	// The session ran from the recording's start until the interview
	// ended (the candidate left): the recording covers it, to 5 %, and runs
	// on past its end by no more than the time a loaded machine takes to
	// close the session.
	if rec.StartedAt == nil || rec.EndedAt == nil || rec.StartedAt.Before(entry.StartedAt) {
		t.Fatalf("interview %v–%v, recording from %v", rec.StartedAt, rec.EndedAt, entry.StartedAt)
	}
	session := rec.EndedAt.Sub(entry.StartedAt)
	if diff := entry.Duration() - session; float64(diff) < -0.05*float64(session) || diff > 2*time.Second {
		t.Fatalf("recording %v, session %v", entry.Duration(), session)
	}
	t.Logf("recording %v (%d bytes), session %v", entry.Duration(), entry.Bytes, session)
	pcm, err := stream.Decode()
	if err != nil {
		t.Fatal(err)
	}
	// level is the RMS of the middle half of [from, to].
	level := func(from, to time.Time) float64 {
		a, _ := entry.Offset(from)
		b, _ := entry.Offset(to)
		q := (b - a) / 4
		i, j := samplesAt(a+q), samplesAt(b-q)
		if i < 0 || j > len(pcm) || j <= i {
			t.Fatalf("%v–%v is outside the recording (%d samples)", a, b, len(pcm))
		}
		return rms(pcm[i:j])
	}
	// Where one voice speaks alone, the recording holds the packets it was
	// heard in: the candidate's browser-like SILK, the interviewer's CELT
	// at its TTS engine's rate, never the recorder's own coding.
	own := recorderTOC(t)
	carried := func(from, to time.Time) (n, of int) {
		a, _ := entry.Offset(from)
		b, _ := entry.Offset(to)
		for _, p := range stream.Packets[a/recording.FrameDuration : min(len(stream.Packets), int(b/recording.FrameDuration))] {
			of++
			if p[0] != own {
				n++
			}
		}
		return n, of
	}
	spoke := map[interviews.Role]bool{}
	for _, turn := range rec.Turns {
		if turn.Text == "" || turn.EndedAt.Sub(turn.StartedAt) < 400*time.Millisecond {
			continue
		}
		if n, of := carried(turn.StartedAt, turn.EndedAt); n < of*8/10 {
			t.Errorf("%s's turn %q: %d of its %d frames are the packets it was heard in, want most", turn.Role, turn.Text, n, of)
		}
		if l := level(turn.StartedAt, turn.EndedAt); l < 300 {
			t.Errorf("%s's turn %q (%v–%v) is quiet in the recording: rms %.0f", turn.Role, turn.Text, turn.StartedAt, turn.EndedAt, l)
		} else {
			spoke[turn.Role] = true
			t.Logf("%s's turn %q: rms %.0f", turn.Role, turn.Text, l)
		}
	}
	if !spoke[interviews.RoleAgent] || !spoke[interviews.RoleCandidate] {
		t.Fatalf("voices heard in the recording: %v\n%s", spoke, dump(rec))
	}
	// Before anyone spoke, it is quiet.
	if first := rec.Turns[0].StartedAt; first.Sub(entry.StartedAt) > 400*time.Millisecond {
		if l := level(entry.StartedAt, first.Add(-100*time.Millisecond)); l > 100 {
			t.Errorf("before the greeting: rms %.0f", l)
		}
	}
}

// recorderTOC is the table-of-contents byte of the packets a recording's
// own encoder makes of speech.
func recorderTOC(t *testing.T) byte {
	var buf bytes.Buffer
	tone := make([]int16, recording.SampleRateHz/2)
	for i := range tone {
		tone[i] = int16(8000 * math.Sin(2*math.Pi*440*float64(i)/recording.SampleRateHz))
	}
	if _, err := recording.Encode(&buf, tone); err != nil {
		t.Fatal(err)
	}
	s, err := recording.Inspect(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return s.Packets[10][0]
}

// samplesAt is the sample index of offset d in decoded audio.
func samplesAt(d time.Duration) int { return int(d * recording.SampleRateHz / time.Second) }

func rms(s []int16) float64 {
	var sum float64
	for _, v := range s {
		sum += float64(v) * float64(v)
	}
	return math.Sqrt(sum / float64(max(1, len(s))))
}
