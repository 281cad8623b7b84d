package worker

import (
	"context"
	"fmt"

	"github.com/viva-interviews/viva/agent/stt"
	"github.com/viva-interviews/viva/agent/tts"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/lkagent"
)

// inLanguage returns the engines for an interview in the language tag:
// the recogniser and the voice told the language (stt.InLanguage,
// tts.InLanguage). An engine that works in English only — the offline
// recogniser, voice or interviewer — cannot hold an interview in another
// language: the error says which, and the candidate is told
// (lang.RefuseLanguage). The web app refuses such a registration when it
// knows the worker's engines; this is the check for when it does not.
func (e Engines) inLanguage(tag string) (Engines, error) {
	if lang.IsDefault(tag) {
		return e, nil
	}
	if e.Names.LLM == config.EngineScripted {
		return Engines{}, fmt.Errorf("the interview is in %s and this worker's interviewer is the offline one, which speaks English only: set OPENAI_API_KEY", lang.Lookup(tag).Name)
	}
	var err error
	out := e
	if out.STT, err = stt.InLanguage(e.STT, tag); err != nil {
		return Engines{}, fmt.Errorf("the interview is in %s: %w", lang.Lookup(tag).Name, err)
	}
	if out.TTS, err = tts.InLanguage(e.TTS, tag); err != nil {
		return Engines{}, fmt.Errorf("the interview is in %s: %w", lang.Lookup(tag).Name, err)
	}
	return out, nil
}

// dispatchLanguage is the language of the interview a job's dispatch
// names, for telling the candidate why it cannot run: the record's when
// it can be read, the direct dispatch's, else English.
func (s *Sessions) dispatchLanguage(ctx context.Context, job lkagent.Job) string {
	d, err := interviews.ParseDispatch(job.Metadata)
	if err != nil {
		return ""
	}
	if d.InterviewID == "" {
		tag, _ := lang.Parse(d.Language)
		return tag
	}
	rec, err := s.Store.Get(ctx, d.InterviewID)
	if err != nil {
		return ""
	}
	return rec.Language
}
