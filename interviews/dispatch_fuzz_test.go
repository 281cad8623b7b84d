package interviews

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// FuzzParseDispatch feeds arbitrary metadata to ParseDispatch. It must
// never panic; what it accepts is exactly one JSON object within
// MaxDispatchBytes, passes Validate, and comes back unchanged through
// Encode and ParseDispatch (and Encode is stable).
func FuzzParseDispatch(f *testing.F) {
	seeds := []string{
		`{"interview_id":"abc123"}`,
		`  {"interview_id": "abc123"}` + "\n",
		`{"name":"Ada Lovelace","email":"ada@example.com","role":"Backend engineer","level":"senior","blueprint":"system-design"}`,
		`{"name":" Ada\n Lovelace\u2028","role":"Eng\u0000ineer","level":"Senior "}`,
		`{"name":"<script>alert(1)</script>","role":"x"}`,
		`{"name":"\ud800","role":"\udfff"}`,
		"{\"name\":\"\xff\xfe\",\"role\":\"r\"}",
		`{"name":"x"}garbage`,
		`{"interview_id":"abc"} {"interview_id":"def"}`,
		`{"interview_id":"abc"}]`,
		`{"interview_id":"abc"`,
		`{"interview_id":"../etc/passwd"}`,
		`{"blueprint":"/etc/passwd","name":"a","role":"b"}`,
		`{"interview_id":"abc","interview_id":"def"}`,
		`{"INTERVIEW_ID":"abc"}`,
		`{"interview_id":null}`,
		`{"interview_id":5}`,
		`null`,
		`[]`,
		`"abc"`,
		"",
		`{"name":"` + strings.Repeat("é", 300) + `","role":"r"}`,
		strings.Repeat("[", 5000),
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, meta string) {
		d, err := ParseDispatch(meta)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "interviews: dispatch metadata") {
				t.Fatalf("error does not say it is about dispatch metadata: %v", err)
			}
			return
		}
		trimmed := bytes.TrimSpace([]byte(meta))
		if len(meta) > MaxDispatchBytes || !json.Valid(trimmed) || trimmed[0] != '{' {
			t.Fatalf("accepted metadata that is not one JSON object within %d bytes: %q", MaxDispatchBytes, meta)
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("accepted a dispatch that Validate refuses: %v", err)
		}
		enc, err := d.Encode()
		if err != nil {
			t.Fatalf("Encode of an accepted dispatch %+v: %v", d, err)
		}
		again, err := ParseDispatch(enc)
		if err != nil {
			t.Fatalf("ParseDispatch(Encode(d)) = %v\nmeta: %q\nencoded: %q", err, meta, enc)
		}
		if !reflect.DeepEqual(d, again) {
			t.Fatalf("round trip changed the dispatch\nmeta: %q\nbefore: %+v %+v\nafter: %+v %+v", meta, d, d.Candidate, again, again.Candidate)
		}
		if enc2, err := again.Encode(); err != nil || enc2 != enc {
			t.Fatalf("Encode is not stable: %q then %q (%v)", enc, enc2, err)
		}
	})
}
