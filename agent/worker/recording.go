package worker

import (
	"context"
	"os"
	"time"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/recording"
	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
)

// storeCheckTimeout bounds the time a session's start waits on the object
// store to number its recording: the candidate is waiting for the greeting.
const storeCheckTimeout = 2 * time.Second

// startRecording starts recording the session's audio as the interview's
// next part, or returns nil (recording nothing) when the worker has no
// recordings directory or the recording cannot start: the interview runs
// either way.
func (ss *session) startRecording(ctx context.Context, rec *agent.Recorder) *recording.Recorder {
	dir := ss.s.Recordings
	if dir == nil {
		return nil
	}
	var id string
	part := 1
	rec.View(func(r *interviews.Record) { id, part = r.ID, len(r.Recordings)+1 })
	// A session that crashed after saving its file but before naming it
	// in the record left that part behind: never write over it. When the
	// object store does not answer, the directory alone is asked: losing
	// this session's audio would be worse than the slim chance of a part
	// that a crashed session left in the store alone being replaced when
	// this one is uploaded.
	check, cancel := context.WithTimeout(ctx, storeCheckTimeout)
	defer cancel()
	storeDown := false
	for ; ; part++ {
		name := recordings.Name(id, part)
		var exists bool
		var err error
		if !storeDown {
			exists, err = dir.Exists(check, name)
		}
		if err != nil {
			storeDown = true
			ss.log.Warn("the recordings' object store does not answer: numbering this session's recording from the record and the directory alone", "err", err)
		}
		if storeDown {
			exists = inDirectory(dir, name)
		}
		if !exists {
			break
		}
	}
	r, err := recording.Start(recording.Options{Dir: dir, Name: recordings.Name(id, part),
		CandidateSampleRateHz: stt.SampleRate, AgentSampleRateHz: ss.eng.TTS.SampleRate(), Logger: ss.log})
	if err != nil {
		ss.log.Error("not recording this session's audio", "err", err)
		return nil
	}
	return r
}

// inDirectory reports whether the worker's directory holds the recording
// called name.
func inDirectory(dir *recordings.Dir, name string) bool {
	path, err := dir.File(name)
	if err != nil {
		return false
	}
	_, err = os.Stat(path)
	return err == nil
}

// keepRecording ends the session's recording and names it in the record.
func (ss *session) keepRecording(rec *agent.Recorder) {
	if ss.audio == nil {
		return
	}
	entry, err := ss.audio.Stop()
	if err != nil {
		ss.log.Error("the session's audio recording was lost", "err", err)
		return
	}
	rec.Update(func(r *interviews.Record) { r.Recordings = append(r.Recordings, entry) })
	ss.log.Info("audio recorded", "recording", entry.Name, "duration", entry.Duration(), "bytes", entry.Bytes)
}
