// Package pipenet is a net.Listener over in-memory connections (net.Pipe):
// a fake server listens on it and its clients dial it with Dial. Everything
// it does is channels and goroutines, so tests under testing/synctest can use
// it: goroutines blocked on a real socket keep a bubble's fake clock from
// advancing, goroutines blocked on a pipe do not.
package pipenet

import (
	"context"
	"net"
	"sync"
)

// Listener hands a server one end of each pipe a client dials.
type Listener struct {
	host  string
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

var _ net.Listener = (*Listener)(nil)

// Listen returns a listener whose address names host, a made-up host name
// that resolves nowhere, so only Dial reaches the server.
func Listen(host string) *Listener {
	return &Listener{host: host, conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept returns the server end of the next dialled pipe.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops accepting; later dials fail.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is the listener's made-up address: its host on port 80.
func (l *Listener) Addr() net.Addr { return addr(l.host + ":80") }

// Dial connects a client to the server through a new pipe; the network and
// address are ignored, so it serves as an http.Transport's or a websocket
// dialer's DialContext.
func (l *Listener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return nil, &net.OpError{Op: "dial", Net: "pipe", Err: net.ErrClosed}
}

// addr is the address of a piped server.
type addr string

// Network returns "pipe".
func (addr) Network() string { return "pipe" }

// String returns host:port.
func (a addr) String() string { return string(a) }
