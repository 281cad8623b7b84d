package mail

import (
	"io"
	"mime"
	"mime/quotedprintable"
	"net/mail"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/testrig/fakesmtp"
)

func TestSendOverSTARTTLSWithAuthPlain(t *testing.T) {
	srv, err := fakesmtp.Start("viva@example.com", "s3cret-pass")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	s, err := New(srv.URL(), WithTLSConfig(srv.ClientTLSConfig()))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(s.String(), "s3cret-pass") {
		t.Errorf("String shows the password: %s", s)
	}
	text := "Hello Zoë,\n\nyour feedback is ready:\nhttps://interviews.example.com/interview/abc/feedback\n"
	if err := s.Send(t.Context(), "zoe@example.com", "Your feedback — ready", text); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages arrived", len(msgs))
	}
	m := msgs[0]
	if !m.TLS || m.User != "viva@example.com" || m.From != "viva@example.com" || len(m.To) != 1 || m.To[0] != "zoe@example.com" {
		t.Errorf("message %+v", m)
	}
	parsed, err := mail.ReadMessage(strings.NewReader(m.Data))
	if err != nil {
		t.Fatal(err)
	}
	subject, err := new(mime.WordDecoder).DecodeHeader(parsed.Header.Get("Subject"))
	if err != nil || subject != "Your feedback — ready" {
		t.Errorf("subject %q, %v", subject, err)
	}
	body, err := io.ReadAll(quotedprintable.NewReader(parsed.Body))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.ReplaceAll(string(body), "\r\n", "\n"); got != text {
		t.Errorf("body %q, want %q", got, text)
	}
}

func TestSendRefusesWrongPasswordAndBadInput(t *testing.T) {
	srv, err := fakesmtp.Start("viva", "right")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	s, err := New("smtp://viva:wrong@"+srv.Addr+"?from=viva@example.com", WithTLSConfig(srv.ClientTLSConfig()))
	if err != nil {
		t.Fatal(err)
	}
	err = s.Send(t.Context(), "a@example.com", "Hi", "text")
	if err == nil || strings.Contains(err.Error(), "wrong") && strings.Contains(err.Error(), ":wrong@") {
		t.Errorf("a wrong password: %v", err)
	}
	if err := s.Send(t.Context(), "a@example.com", "Hi\r\nBcc: x@example.com", "text"); err == nil {
		t.Error("a subject with a line break is sent")
	}
	if err := s.Send(t.Context(), "not an address", "Hi", "text"); err == nil {
		t.Error("a bad recipient is sent to")
	}
	if len(srv.Messages()) != 0 {
		t.Error("a refused message arrived")
	}
	// An unknown certificate is refused: STARTTLS is verified.
	s2, err := New("smtp://viva:right@" + srv.Addr + "?from=viva@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := s2.Send(t.Context(), "a@example.com", "Hi", "text"); err == nil {
		t.Error("an untrusted certificate is accepted")
	}
}

func TestNewChecksTheURL(t *testing.T) {
	for _, bad := range []string{"http://host", "smtp://", "smtp://u:p@host/path", "smtp://u:p@host?from=nobody", "::"} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%q) accepted", bad)
		} else if strings.Contains(err.Error(), ":p@") {
			t.Errorf("New(%q) shows the password: %v", bad, err)
		}
	}
	s, err := New("smtp://mailer@example.com:pw@smtp.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if s.addr != "smtp.example.com:587" || s.from != "mailer@example.com" {
		t.Errorf("addr %q from %q", s.addr, s.from)
	}
}
