// Package structured asks a language model for an answer in JSON against a
// schema (structured output), and checks and retries what comes back: the
// reply must be a JSON object with every required key, of the right types,
// and pass the caller's validation, else the call is made again, up to a
// number of attempts. Answer analysis and the feedback report share it.
package structured

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/viva-interviews/viva/agent/llm"
)

// Schema is a structured-output contract: its name, the JSON Schema and
// the top-level keys a reply must have.
type Schema struct {
	Name     string
	Schema   json.RawMessage
	Required []string
}

// Prop is one property of an object schema, in order.
type Prop struct {
	Name   string
	Schema map[string]any
}

// Object is a strict object schema: every property required, no others
// allowed (what strict structured output demands).
func Object(props ...Prop) map[string]any {
	properties := map[string]any{}
	required := make([]string, len(props))
	for i, p := range props {
		properties[p.Name] = p.Schema
		required[i] = p.Name
	}
	return map[string]any{"type": "object", "properties": properties, "required": required, "additionalProperties": false}
}

// String is a string schema.
func String() map[string]any { return map[string]any{"type": "string"} }

// Boolean is a boolean schema.
func Boolean() map[string]any { return map[string]any{"type": "boolean"} }

// Number is a number schema.
func Number() map[string]any { return map[string]any{"type": "number"} }

// Array is an array schema of items.
func Array(items map[string]any) map[string]any {
	return map[string]any{"type": "array", "items": items}
}

// Enum is a string schema allowing only values.
func Enum(values ...string) map[string]any {
	return map[string]any{"type": "string", "enum": values}
}

// New names and renders a top-level object schema.
func New(name string, props ...Prop) Schema {
	b, err := json.Marshal(Object(props...))
	if err != nil {
		panic(err) // the schemas are built from maps of plain values
	}
	s := Schema{Name: name, Schema: b}
	for _, p := range props {
		s.Required = append(s.Required, p.Name)
	}
	return s
}

// Call is one structured question to a model.
type Call struct {
	// Client is the model asked.
	Client llm.Client
	// Attempts is how many calls the question may make in all while the
	// answers are malformed (at least one).
	Attempts int
	// Timeout bounds each call; zero means no bound beyond ctx's.
	Timeout time.Duration
	// Schema is what the answer must fit.
	Schema Schema
	// System and User are the two messages of the request.
	System, User string
}

// MalformedError says that every attempt answered with something that
// does not fit the schema or the validation; Last is the last reason.
type MalformedError struct {
	Attempts int
	Last     error
}

// Error says how many attempts were made and why the last was refused.
func (e *MalformedError) Error() string {
	return fmt.Sprintf("malformed after %d attempt(s): %v", e.Attempts, e.Last)
}

// Unwrap returns the last reason.
func (e *MalformedError) Unwrap() error { return e.Last }

// Ask makes the call, retried while the answer is malformed: the reply
// must parse as JSON with every required key, and validate (when not nil)
// must accept it. An error from the client is returned at once (clients
// retry transport failures themselves); when every attempt was malformed
// the error is a *MalformedError.
func Ask[T any](ctx context.Context, c Call, validate func(*T) error) (T, error) {
	var zero T
	req := llm.Request{
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: c.System}, {Role: llm.RoleUser, Content: c.User}},
		Format:   &llm.Format{Name: c.Schema.Name, Schema: c.Schema.Schema},
	}
	attempts := max(c.Attempts, 1)
	var last error
	for range attempts {
		cctx, cancel := ctx, context.CancelFunc(func() {})
		if c.Timeout > 0 {
			cctx, cancel = context.WithTimeout(ctx, c.Timeout)
		}
		resp, err := c.Client.Complete(cctx, req, nil)
		cancel()
		if err != nil {
			return zero, err
		}
		var out T
		if err := Decode(resp.Text, c.Schema.Required, &out); err != nil {
			last = err
			continue
		}
		if validate != nil {
			if err := validate(&out); err != nil {
				last = err
				continue
			}
		}
		return out, nil
	}
	return zero, &MalformedError{Attempts: attempts, Last: last}
}

// Decode parses a model's JSON answer (a code fence around it is
// tolerated) and checks that every required key is present.
func Decode(text string, required []string, v any) error {
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "```") {
		text = strings.TrimPrefix(strings.TrimPrefix(text, "```json"), "```")
		text = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(text), "```"))
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &keys); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	for _, k := range required {
		if _, ok := keys[k]; !ok {
			return fmt.Errorf("missing %q", k)
		}
	}
	if err := json.Unmarshal([]byte(text), v); err != nil {
		return fmt.Errorf("wrong types: %w", err)
	}
	return nil
}
