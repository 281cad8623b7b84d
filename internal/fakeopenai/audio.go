package fakeopenai

import "net/http"

// audioState is the speech and transcription behaviour (placeholder until implemented).
type audioState struct{}

func (s *Server) handleSpeech(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotImplemented, "not_implemented", "speech is not implemented")
}

func (s *Server) handleTranscription(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotImplemented, "not_implemented", "transcription is not implemented")
}
