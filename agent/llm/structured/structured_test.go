package structured

import (
	"context"
	"errors"
	"testing"

	"github.com/viva-interviews/viva/agent/llm"
)

// replies is a client answering with its texts in turn.
type replies struct {
	texts []string
	reqs  []llm.Request
}

func (r *replies) Complete(_ context.Context, req llm.Request, _ func(string)) (llm.Response, error) {
	r.reqs = append(r.reqs, req)
	text := r.texts[0]
	if len(r.texts) > 1 {
		r.texts = r.texts[1:]
	}
	return llm.Response{Text: text}, nil
}

func TestAskRetriesMalformed(t *testing.T) {
	type reply struct {
		Score float64 `json:"score"`
	}
	schema := New("score", Prop{Name: "score", Schema: Number()})
	positive := func(r *reply) error {
		if r.Score <= 0 {
			return errors.New("score is not positive")
		}
		return nil
	}
	client := &replies{texts: []string{`{"scor": 1}`, "```json\n{\"score\": 7}\n```"}}
	got, err := Ask(t.Context(), Call{Client: client, Attempts: 2, Schema: schema, System: "s", User: "u"}, positive)
	if err != nil || got.Score != 7 || len(client.reqs) != 2 {
		t.Fatalf("got %+v, %v after %d requests", got, err, len(client.reqs))
	}
	if f := client.reqs[0].Format; f == nil || f.Name != "score" || string(f.Schema) != string(schema.Schema) {
		t.Errorf("format %+v", f)
	}

	client = &replies{texts: []string{`{"score": -1}`}}
	_, err = Ask(t.Context(), Call{Client: client, Attempts: 3, Schema: schema}, positive)
	var me *MalformedError
	if !errors.As(err, &me) || me.Attempts != 3 || len(client.reqs) != 3 {
		t.Fatalf("error %v after %d requests, want malformed after 3", err, len(client.reqs))
	}
}
