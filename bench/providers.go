package bench

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/viva-interviews/viva/testrig/fakeopenai"
)

const (
	// candidateAnswer is what the fake recogniser hears in every candidate
	// utterance: a finished sentence, so the endpointing delay is the
	// finished-sentence one (see voice.FinishedFactor).
	candidateAnswer = "I built payment systems in Go for five years."
	// interviewerReply is what the fake model says where it asks nothing
	// (the closing): about four seconds of speech, long enough for the bot
	// to talk over it.
	interviewerReply = "Thank you, that is helpful. Could you tell me a little more about how you did that?"
	// interviewerAck is the fake model's text before each question it asks
	// with ask_question, as a diligent model writes it.
	interviewerAck = "Thank you, that is helpful."
	// answerSchemaName is the structured output the answer analysis asks
	// the model for; other structured requests are refused, and the worker
	// falls back to its offline rules for them.
	answerSchemaName = "answer_analysis"
	// scriptedTranscripts is how many transcripts the fake recogniser is
	// given: more than any run asks for.
	scriptedTranscripts = 1 << 20
)

// providers are the fake OpenAI endpoints (chat, speech, transcription)
// behind a proxy that holds every request for a fixed latency before
// passing it on, as a remote provider's time to first byte.
type providers struct {
	fake  *fakeopenai.Server
	proxy *http.Server
	// url is the base URL the worker is given (OPENAI_BASE_URL).
	url string
}

// startProviders starts the fake and its latency proxy on 127.0.0.1.
func startProviders(latency time.Duration) (*providers, error) {
	fake := fakeopenai.New()
	answers := make([]string, scriptedTranscripts)
	for i := range answers {
		answers[i] = candidateAnswer
	}
	fake.ScriptTranscripts(answers...)
	fake.ChatFunc(interviewerPolicy)
	// The reply's voice starts with its first frame, so the bot hears the
	// agent's audio when it arrives, not after the voice's lead-in.
	fake.SpeakSynthetic()
	target, err := url.Parse(fake.URL)
	if err != nil {
		fake.Close()
		return nil, err
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(&url.URL{Scheme: target.Scheme, Host: target.Host})
			r.Out.URL.Path = r.In.URL.Path
		},
		FlushInterval: -1, // stream chat events and speech as they come
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fake.Close()
		return nil, err
	}
	p := &providers{fake: fake, url: "http://" + ln.Addr().String() + "/v1"}
	p.proxy = &http.Server{Handler: delayed(latency, rp), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.proxy.Serve(ln) }()
	return p, nil
}

// delayed holds every provider request (not the model list the worker
// checks its key with) for latency before next serves it.
func delayed(latency time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if latency > 0 && !strings.HasSuffix(r.URL.Path, "/models") {
			t := time.NewTimer(latency)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// close stops the proxy and the fake.
func (p *providers) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = p.proxy.Shutdown(ctx)
	p.fake.Close()
}

// interviewerPolicy is the fake model. It interviews as a capable model
// does with viva's prompt: a short acknowledgement as text and the next
// question through ask_question in the same response (so a question turn
// costs one model call, and a refused question a second), never moving
// the stage on itself, so every turn costs the same; where no tool is
// offered (the closing) it only speaks. The answer analysis gets a valid
// answer.
func interviewerPolicy(req fakeopenai.Request) fakeopenai.Reply {
	switch req.SchemaName() {
	case "":
		if len(req.Tools) == 0 {
			return fakeopenai.Reply{Text: interviewerReply}
		}
		args, _ := json.Marshal(map[string]string{"question": benchQuestion(asked(req))})
		return fakeopenai.Reply{Text: interviewerAck, ToolCalls: []fakeopenai.ToolCall{{Name: "ask_question", Arguments: string(args)}}}
	case answerSchemaName:
		return fakeopenai.Reply{JSON: map[string]any{
			"confidence": "high", "declined": false, "facts": []string{"Built payment systems in Go."},
			"fills": []any{}, "follow_up": "", "discovered": []any{}, "skills": []string{"Go"}, "absent": []string{},
		}}
	default:
		return fakeopenai.Reply{Status: http.StatusBadRequest, Text: "the benchmark's model answers only the answer analysis"}
	}
}

// asked counts the ask_question calls in a request's history.
func asked(req fakeopenai.Request) int {
	n := 0
	for _, m := range req.Messages {
		for _, c := range m.ToolCalls {
			if c.Name == "ask_question" {
				n++
			}
		}
	}
	return n
}

// benchTopics make the fake model's questions, each about its own topic so
// the interview's repeat check accepts them.
var benchTopics = []string{
	"the ledger migration", "your on-call rotation", "the payments API", "code review on your team",
	"the reconciliation job", "your database schema changes", "the incident last winter", "mentoring new engineers",
	"the Kafka consumers", "your test strategy", "the fraud checks", "capacity planning",
	"the release process", "the monitoring dashboards", "vendor integrations", "the data retention rules",
	"your design documents", "the mobile checkout", "cost reduction work", "the search service",
	"the authentication flow", "feature flags", "the batch exports", "your hiring interviews",
}

// benchQuestion is the fake model's n-th question.
func benchQuestion(n int) string {
	t := benchTopics[n%len(benchTopics)]
	if n >= len(benchTopics) {
		return "Looking back at " + t + ", what would you change today?"
	}
	return "Could you walk me through " + t + " and your own part in it?"
}
