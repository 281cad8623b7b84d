package fakeopenai

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
)

// pipeHost is the host name of a piped server's URL; it resolves nowhere,
// so only the client NewPiped returns can reach the server.
const pipeHost = "fakeopenai.pipe"

// NewPiped starts a server that listens on in-memory connections (net.Pipe)
// instead of a socket, and returns it with the only HTTP client that reaches
// it. Everything it does is channels and goroutines, so a test may run it
// inside a testing/synctest bubble and let fake time run out a client's
// timeouts while the server stalls or hangs. Close the server, then the
// client's idle connections, before the bubble ends.
func NewPiped() (*Server, *http.Client) {
	s := &Server{}
	l := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(s.auth(s.mux()))
	_ = s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	return s, &http.Client{Transport: &http.Transport{DialContext: l.dial}}
}

// pipeListener hands the server one end of each net.Pipe a client dials.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// Accept returns the server end of the next dialled pipe.
func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; later dials fail.
func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is the piped server's made-up address.
func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

// dial connects a client to the server through a new pipe.
func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pipeAddr is the address of a piped server.
type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return pipeHost + ":80" }
