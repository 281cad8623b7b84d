// Package fakesmtp is a local SMTP server for tests: it speaks the wire
// protocol (EHLO, STARTTLS with a certificate made at start, AUTH PLAIN,
// MAIL, RCPT, DATA, RSET, NOOP, QUIT) on 127.0.0.1 and keeps the messages
// it accepts. It requires STARTTLS before AUTH and MAIL, as a careful
// submission server does.
package fakesmtp

import (
	"bufio"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"math/big"
	"mime/quotedprintable"
	"net"
	"strings"
	"sync"
	"time"
)

// Message is one accepted email.
type Message struct {
	From string
	To   []string
	// Data is the message as sent, headers and body, with CRLF line ends
	// and dot-stuffing undone.
	Data string
	// User is who signed in with AUTH PLAIN; TLS is true when the message
	// came over STARTTLS.
	User string
	TLS  bool
}

// Text is the message's body as its sender wrote it: the
// quoted-printable body decoded, with \n line ends.
func (m Message) Text() (string, error) {
	_, raw, _ := strings.Cut(m.Data, "\r\n\r\n")
	text, err := io.ReadAll(quotedprintable.NewReader(strings.NewReader(raw)))
	if err != nil {
		return "", fmt.Errorf("fakesmtp: decoding the body: %w", err)
	}
	return strings.ReplaceAll(string(text), "\r\n", "\n"), nil
}

// Server is a running fake SMTP server. Close stops it.
type Server struct {
	// Addr is host:port to connect to.
	Addr string
	// User and Password are the credentials AUTH PLAIN accepts.
	User, Password string

	ln       net.Listener
	tls      *tls.Config
	certPool *x509.CertPool

	mu       sync.Mutex
	messages []Message
	conns    map[net.Conn]bool
	closed   bool
	arrived  chan struct{} // closed and replaced on each message
	wg       sync.WaitGroup
}

// Start listens on 127.0.0.1 with a fresh certificate for 127.0.0.1 and
// "localhost", accepting user and password.
func Start(user, password string) (*Server, error) {
	cert, pool, err := selfSigned()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("fakesmtp: listening: %w", err)
	}
	s := &Server{
		Addr: ln.Addr().String(), User: user, Password: password,
		ln: ln, tls: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		certPool: pool, conns: map[net.Conn]bool{}, arrived: make(chan struct{}),
	}
	s.wg.Add(1)
	go s.serve()
	return s, nil
}

// ClientTLSConfig trusts the server's certificate.
func (s *Server) ClientTLSConfig() *tls.Config {
	return &tls.Config{RootCAs: s.certPool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

// URL is the smtp:// URL of the server with its credentials.
func (s *Server) URL() string {
	return fmt.Sprintf("smtp://%s:%s@%s", s.User, s.Password, s.Addr)
}

// Messages returns the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Arrived returns a channel closed when the next message is accepted.
func (s *Server) Arrived() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.arrived
}

// Close stops listening, closes every connection and waits for them.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		_ = c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

func (s *Server) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			_ = c.Close()
			return
		}
		s.conns[c] = true
		s.wg.Add(1)
		s.mu.Unlock()
		go func() {
			defer s.wg.Done()
			s.session(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			_ = c.Close()
		}()
	}
}

// session is one client's conversation.
func (s *Server) session(conn net.Conn) {
	_ = conn.SetDeadline(time.Now().Add(time.Minute))
	r, w := bufio.NewReader(conn), bufio.NewWriter(conn)
	reply := func(line string) bool {
		_, err := w.WriteString(line + "\r\n")
		return err == nil && w.Flush() == nil
	}
	var (
		secure bool
		user   string
		msg    Message
	)
	if !reply("220 fakesmtp ready") {
		return
	}
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			ext := []string{"250-fakesmtp", "250-8BITMIME"}
			if secure {
				ext = append(ext, "250-AUTH PLAIN")
			} else {
				ext = append(ext, "250-STARTTLS")
			}
			ext = append(ext, "250 SIZE 1048576")
			for _, l := range ext {
				if !reply(l) {
					return
				}
			}
		case "STARTTLS":
			if secure {
				reply("503 already secure")
				continue
			}
			if !reply("220 go ahead") {
				return
			}
			tc := tls.Server(conn, s.tls)
			if err := tc.Handshake(); err != nil {
				return
			}
			conn, secure = tc, true
			r, w = bufio.NewReader(conn), bufio.NewWriter(conn)
			user, msg = "", Message{}
		case "AUTH":
			if !secure {
				reply("530 must issue STARTTLS first")
				continue
			}
			mech, resp, _ := strings.Cut(arg, " ")
			if !strings.EqualFold(mech, "PLAIN") {
				reply("504 unrecognised authentication type")
				continue
			}
			if resp == "" {
				if !reply("334 ") {
					return
				}
				if resp, err = r.ReadString('\n'); err != nil {
					return
				}
				resp = strings.TrimSpace(resp)
			}
			if u, ok := s.checkPlain(resp); ok {
				user = u
				reply("235 authenticated")
			} else {
				reply("535 authentication failed")
			}
		case "MAIL":
			if !secure || user == "" {
				reply("530 authentication required")
				continue
			}
			msg = Message{From: addrArg(arg), User: user, TLS: secure}
			reply("250 ok")
		case "RCPT":
			if msg.From == "" {
				reply("503 need MAIL first")
				continue
			}
			msg.To = append(msg.To, addrArg(arg))
			reply("250 ok")
		case "DATA":
			if len(msg.To) == 0 {
				reply("503 need RCPT first")
				continue
			}
			if !reply("354 end with <CRLF>.<CRLF>") {
				return
			}
			data, err := readData(r)
			if err != nil {
				return
			}
			msg.Data = data
			s.mu.Lock()
			s.messages = append(s.messages, msg)
			close(s.arrived)
			s.arrived = make(chan struct{})
			s.mu.Unlock()
			msg = Message{}
			reply("250 queued")
		case "RSET":
			msg = Message{}
			reply("250 ok")
		case "NOOP":
			reply("250 ok")
		case "QUIT":
			reply("221 bye")
			return
		default:
			reply("502 command not implemented")
		}
	}
}

// checkPlain decodes an AUTH PLAIN response and checks its credentials.
func (s *Server) checkPlain(resp string) (string, bool) {
	raw, err := base64.StdEncoding.DecodeString(resp)
	if err != nil {
		return "", false
	}
	parts := strings.Split(string(raw), "\x00")
	if len(parts) != 3 || parts[1] != s.User || parts[2] != s.Password {
		return "", false
	}
	return parts[1], true
}

// addrArg takes the address out of "FROM:<a@b> SIZE=…".
func addrArg(arg string) string {
	_, rest, _ := strings.Cut(arg, ":")
	rest = strings.TrimSpace(rest)
	if i := strings.IndexByte(rest, '>'); strings.HasPrefix(rest, "<") && i > 0 {
		return rest[1:i]
	}
	return rest
}

// readData reads a DATA body up to the line ".", undoing dot-stuffing.
func readData(r *bufio.Reader) (string, error) {
	var b strings.Builder
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return "", err
		}
		if line == ".\r\n" || line == ".\n" {
			return b.String(), nil
		}
		if strings.HasPrefix(line, "..") {
			line = line[1:]
		}
		b.WriteString(line)
		if b.Len() > 1<<20 {
			return "", errors.New("fakesmtp: message too large")
		}
	}
}

// selfSigned makes a certificate for 127.0.0.1 and localhost, and a pool
// that trusts it.
func selfSigned() (tls.Certificate, *x509.CertPool, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("fakesmtp: key: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "fakesmtp"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("fakesmtp: certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("fakesmtp: certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, pool, nil
}
