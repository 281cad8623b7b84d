package worker

import (
	"context"

	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/recording"
	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/recordings"
)

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
	// in the record left that part behind: never write over it.
	for ; ; part++ {
		exists, err := dir.Exists(ctx, recordings.Name(id, part))
		if err != nil {
			ss.log.Error("not recording this session's audio", "err", err)
			return nil
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
