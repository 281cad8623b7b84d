package lkurl

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in, want, wantErr string
	}{
		{in: "ws://127.0.0.1:7880", want: "ws://127.0.0.1:7880"},
		{in: "  http://127.0.0.1:7880/ ", want: "ws://127.0.0.1:7880"},
		{in: "https://proj.livekit.cloud", want: "wss://proj.livekit.cloud"},
		{in: "wss://lk.example.com/livekit/", want: "wss://lk.example.com/livekit"},
		{in: "", wantErr: "set LIVEKIT_URL"},
		{in: "ws://", wantErr: "is not a ws://"},
		{in: "127.0.0.1:7880", wantErr: "is not a ws://"},
		{in: "ws://user:pw@host:7880", wantErr: "user name or password"},
		{in: "ftp://host:7880", wantErr: `scheme "ftp"`},
		{in: "wss://lk.example.com/?x=1", wantErr: "query or fragment"},
		{in: "wss://lk.example.com/#x", wantErr: "query or fragment"},
	}
	for _, tc := range tests {
		u, err := Parse(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Parse(%q) = %v, %v; want an error mentioning %q", tc.in, u, err, tc.wantErr)
			}
			continue
		}
		if err != nil || u.String() != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %s", tc.in, u, err, tc.want)
		}
	}
}

func TestParseKeepsCredentialsOutOfErrors(t *testing.T) {
	_, err := Parse("wss://APIkey:s3cr3t@lk.example.com")
	if err == nil {
		t.Fatal("Parse accepted user info")
	}
	if strings.Contains(err.Error(), "s3cr3t") || strings.Contains(err.Error(), "APIkey") {
		t.Fatalf("the error repeats the credentials: %v", err)
	}
}
