// Package mail sends plain-text emails over SMTP: the message that tells a
// candidate their interview feedback is ready. It always upgrades the
// connection with STARTTLS before authenticating or sending anything, so
// a password and a candidate's address never cross the network in clear.
package mail

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"mime"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/smtp"
	"net/url"
	"strings"
	"time"
)

// DefaultPort is the submission port used when the URL names none.
const DefaultPort = "587"

// DefaultTimeout bounds one Send when the context has no deadline.
const DefaultTimeout = 30 * time.Second

// Sender sends emails through one SMTP server. It is safe for concurrent
// use: every Send opens its own connection.
type Sender struct {
	addr     string // host:port
	host     string
	user     string
	password string
	from     string
	tls      *tls.Config
	redacted string
}

// Option changes a Sender made by New.
type Option func(*Sender)

// WithTLSConfig sets the TLS settings of STARTTLS (tests trust their own
// certificate with it); ServerName defaults to the URL's host.
func WithTLSConfig(cfg *tls.Config) Option {
	return func(s *Sender) { s.tls = cfg.Clone() }
}

// New parses an SMTP URL, smtp://user:password@host:587, optionally with
// ?from=viva@example.com (the sender address; default: the user when it
// is an address, else viva@host). Its errors never contain the password.
func New(rawURL string, opts ...Option) (*Sender, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, errors.New("mail: the SMTP URL is not a URL: write it as smtp://user:password@host:587")
	}
	if u.Scheme != "smtp" || u.Hostname() == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("mail: SMTP URL %q is not of the form smtp://user:password@host:587", u.Redacted())
	}
	s := &Sender{host: u.Hostname(), redacted: u.Redacted()}
	port := u.Port()
	if port == "" {
		port = DefaultPort
	}
	s.addr = net.JoinHostPort(s.host, port)
	if u.User != nil {
		s.user = u.User.Username()
		s.password, _ = u.User.Password()
	}
	s.from = u.Query().Get("from")
	switch {
	case s.from != "":
	case strings.Contains(s.user, "@"):
		s.from = s.user
	default:
		s.from = "viva@" + s.host
	}
	if _, err := mail.ParseAddress(s.from); err != nil {
		return nil, fmt.Errorf("mail: sender address %q is not an email address: set ?from=viva@example.com in the SMTP URL", s.from)
	}
	s.tls = &tls.Config{MinVersion: tls.VersionTLS12}
	for _, o := range opts {
		o(s)
	}
	if s.tls.ServerName == "" {
		s.tls.ServerName = s.host
	}
	return s, nil
}

// String is the server's URL without its password, for logs.
func (s *Sender) String() string { return s.redacted }

// Send emails text to one address with subject. It fails when the server
// offers no STARTTLS, refuses the login or the message.
func (s *Sender) Send(ctx context.Context, to, subject, text string) error {
	rcpt, err := mail.ParseAddress(to)
	if err != nil {
		return fmt.Errorf("mail: recipient %q is not an email address", to)
	}
	if strings.ContainsAny(subject, "\r\n") {
		return errors.New("mail: the subject has a line break")
	}
	msg, err := s.message(rcpt.Address, subject, text)
	if err != nil {
		return err
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", s.addr)
	if err != nil {
		return fmt.Errorf("mail: connecting to %s: %w", s.addr, err)
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	c, err := smtp.NewClient(conn, s.host)
	if err != nil {
		return fmt.Errorf("mail: greeting %s: %w", s.addr, err)
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return fmt.Errorf("mail: EHLO to %s: %w", s.addr, err)
	}
	if ok, _ := c.Extension("STARTTLS"); !ok {
		return fmt.Errorf("mail: %s offers no STARTTLS; refusing to send in clear", s.addr)
	}
	if err := c.StartTLS(s.tls); err != nil {
		return fmt.Errorf("mail: STARTTLS with %s: %w", s.addr, err)
	}
	if s.user != "" {
		if err := c.Auth(smtp.PlainAuth("", s.user, s.password, s.host)); err != nil {
			return fmt.Errorf("mail: signing in to %s as %s: %w", s.addr, s.user, err)
		}
	}
	if err := c.Mail(s.from); err != nil {
		return fmt.Errorf("mail: MAIL FROM %s: %w", s.from, err)
	}
	if err := c.Rcpt(rcpt.Address); err != nil {
		return fmt.Errorf("mail: RCPT TO %s: %w", rcpt.Address, err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("mail: DATA: %w", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fmt.Errorf("mail: writing the message: %w", err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("mail: the server refused the message: %w", err)
	}
	if err := c.Quit(); err != nil {
		return fmt.Errorf("mail: QUIT: %w", err)
	}
	return nil
}

// message is the RFC 5322 message: UTF-8 text, quoted-printable, the
// subject encoded when it is not ASCII.
func (s *Sender) message(to, subject, text string) ([]byte, error) {
	var id [12]byte
	if _, err := rand.Read(id[:]); err != nil {
		return nil, fmt.Errorf("mail: message id: %w", err)
	}
	var b bytes.Buffer
	hdr := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	hdr("From", s.from)
	hdr("To", to)
	hdr("Subject", mime.QEncoding.Encode("utf-8", subject))
	hdr("Date", time.Now().Format(time.RFC1123Z))
	hdr("Message-ID", "<"+hex.EncodeToString(id[:])+"@"+s.host+">")
	hdr("MIME-Version", "1.0")
	hdr("Content-Type", "text/plain; charset=utf-8")
	hdr("Content-Transfer-Encoding", "quoted-printable")
	b.WriteString("\r\n")
	qp := quotedprintable.NewWriter(&b)
	if _, err := qp.Write([]byte(strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n"))); err != nil {
		return nil, fmt.Errorf("mail: encoding the text: %w", err)
	}
	if err := qp.Close(); err != nil {
		return nil, fmt.Errorf("mail: encoding the text: %w", err)
	}
	return b.Bytes(), nil
}
