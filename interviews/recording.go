package interviews

import (
	"fmt"
	"time"
)

// RecordingContentType is the media type of interview recordings: both
// voices mixed, Opus in an Ogg container.
const RecordingContentType = "audio/ogg; codecs=opus"

// Recording is one stretch of the interview's audio: both voices, mixed,
// from when a session joined the room until it left. An interview the
// candidate rejoined, or that a second worker recovered, has one recording
// per session, in order.
type Recording struct {
	// Name is the recording's name in the recordings store: the interview
	// id, a dash, the part number and ".ogg" ("k3…-1.ogg").
	Name string `json:"name"`
	// ContentType is RecordingContentType.
	ContentType string `json:"content_type"`
	// StartedAt is the wall-clock time of the first sample: what was said
	// at time t plays at offset t − StartedAt.
	StartedAt time.Time `json:"started_at"`
	// DurationMS is the recording's length in milliseconds.
	DurationMS int64 `json:"duration_ms"`
	// Bytes is the size of the file.
	Bytes int64 `json:"bytes"`
	// DeletedAt is when the audio was removed (retention ran out, or a
	// reviewer deleted it); the entry stays so the record says it existed.
	DeletedAt *time.Time `json:"deleted_at,omitempty"`
}

// Duration is the recording's length.
func (r Recording) Duration() time.Duration { return time.Duration(r.DurationMS) * time.Millisecond }

// Offset returns where in the recording what was said at t plays, and
// whether t falls within it.
func (r Recording) Offset(t time.Time) (time.Duration, bool) {
	d := t.Sub(r.StartedAt)
	return d, d >= 0 && d <= r.Duration()
}

// Validate checks a recording entry.
func (r *Recording) Validate() error {
	switch {
	case r.Name == "" || len(r.Name) > maxIDLen+16:
		return fmt.Errorf("recording has no name, or a name longer than %d bytes", maxIDLen+16)
	case r.StartedAt.IsZero():
		return fmt.Errorf("recording %s has no start time", r.Name)
	case r.DurationMS < 0 || r.Bytes < 0:
		return fmt.Errorf("recording %s has a negative duration or size", r.Name)
	}
	return nil
}
