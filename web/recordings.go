package web

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
)

// recordingsView is the reviewer page's audio: a player per recording
// still kept, and a line for each one deleted.
type recordingsView struct {
	// Parts are the recordings that can be played, in order.
	Parts []recordingPart
	// Deleted are the recordings whose audio was removed.
	Deleted []deletedRecording
	// Uploading are the parts (from 1) that neither the web app's
	// directory nor the object store holds yet: the worker that recorded
	// them is still uploading them.
	Uploading []int
	// Several is true when the interview has more than one recording, so
	// each is named by its part.
	Several bool
}

// recordingPart is one playable recording.
type recordingPart struct {
	interviews.Recording
	// Part numbers the recording from 1, in the record's order.
	Part int
	// PlayerID is the id of its audio element.
	PlayerID string
	// URL serves the audio.
	URL string
}

// deletedRecording is a recording whose audio is gone.
type deletedRecording struct {
	Part      int
	DeletedAt time.Time
}

// playView is a turn's play control: which player, and where.
type playView struct {
	// PlayerID is the audio element that holds the turn.
	PlayerID string
	// Seconds is the turn's offset in that recording.
	Seconds float64
	// At is the offset as text ("1:05").
	At string
}

// Empty reports whether there is nothing to show.
func (v recordingsView) Empty() bool {
	return len(v.Parts) == 0 && len(v.Deleted) == 0 && len(v.Uploading) == 0
}

// recordingsView lists rec's recordings for the page; none when the web
// app has no recordings directory. A recording that cannot be found (its
// upload is under way, or the object store does not answer) is listed
// as being uploaded, without a player.
func (s *reviewPages) recordingsView(ctx context.Context, rec *interviews.Record) recordingsView {
	var v recordingsView
	if s.recordings == nil {
		return v
	}
	v.Several = len(rec.Recordings) > 1
	for i, r := range rec.Recordings {
		if r.DeletedAt != nil {
			v.Deleted = append(v.Deleted, deletedRecording{Part: i + 1, DeletedAt: *r.DeletedAt})
			continue
		}
		if ok, err := s.recordings.Exists(ctx, r.Name); !ok {
			if err != nil {
				s.log.Warn("web: a recording cannot be read", "interview_id", rec.ID, "recording", r.Name, "err", err)
			}
			v.Uploading = append(v.Uploading, i+1)
			continue
		}
		v.Parts = append(v.Parts, recordingPart{Recording: r, Part: i + 1, PlayerID: fmt.Sprintf("recording-%d", i+1),
			URL: "/review/" + rec.ID + "/recordings/" + r.Name})
	}
	return v
}

// playAt is the play control of what was said at t: the first recording
// that holds t; nil when none does.
func (v recordingsView) playAt(t time.Time) *playView {
	for _, p := range v.Parts {
		if off, ok := p.Offset(t); ok {
			return &playView{PlayerID: p.PlayerID, Seconds: off.Seconds(), At: formatClockOffset(off)}
		}
	}
	return nil
}

// formatClockOffset writes d as m:ss (h:mm:ss past an hour).
func formatClockOffset(d time.Duration) string {
	sec := int(d / time.Second)
	if sec >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", sec/3600, sec/60%60, sec%60)
	}
	return fmt.Sprintf("%d:%02d", sec/60, sec%60)
}

// handleRecording serves one recording of an interview: GET
// /review/{id}/recordings/{name}. The name must be one of the record's
// entries (never a path from the request), and Range requests are
// answered, so players can seek: from the recordings directory, or from
// object storage in ranged reads wherever the recording was made.
func (s *reviewPages) handleRecording(w http.ResponseWriter, r *http.Request) {
	if s.recordings == nil {
		http.NotFound(w, r)
		return
	}
	rec := s.readRecord(w, r, r.PathValue("id"), false)
	if rec == nil {
		return
	}
	name := r.PathValue("name")
	var entry *interviews.Recording
	for i := range rec.Recordings {
		if rec.Recordings[i].Name == name && rec.Recordings[i].DeletedAt == nil {
			entry = &rec.Recordings[i]
		}
	}
	if id, _, ok := recordings.Parse(name); entry == nil || !ok || id != rec.ID {
		http.NotFound(w, r)
		return
	}
	f, err := s.recordings.Open(r.Context(), entry.Name)
	if errors.Is(err, fs.ErrNotExist) {
		http.Error(w, "This recording is being uploaded from the interviewer's machine: try again in a few minutes.", http.StatusNotFound)
		return
	}
	if err != nil {
		s.log.Error("web: opening a recording", "interview_id", rec.ID, "recording", name, "err", err)
		w.Header().Set("Retry-After", "60")
		http.Error(w, "The recordings' storage does not answer right now: try again in a minute.", http.StatusServiceUnavailable)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", interviews.RecordingContentType)
	w.Header().Set("Cache-Control", "private, no-cache")
	http.ServeContent(w, r, name, f.Info().ModTime, f)
}
