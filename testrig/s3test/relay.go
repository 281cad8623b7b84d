package s3test

import (
	"io"
	"net"
	"strings"
	"sync"
	"testing"
)

// Relay forwards TCP connections from a port of its own to a server's S3
// gateway, and can be cut (the port refuses connections, as a store that
// is down) and restored on the same port.
type Relay struct {
	// Endpoint is the relayed gateway's URL, http://127.0.0.1:PORT.
	Endpoint string

	addr, to string
	mu       sync.Mutex
	ln       net.Listener
	conns    []net.Conn
	wg       sync.WaitGroup
}

// StartRelay relays a port of 127.0.0.1 to srv's gateway until the test
// ends.
func StartRelay(t testing.TB, srv *Server) *Relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Relay{addr: ln.Addr().String(), to: strings.TrimPrefix(srv.Endpoint, "http://")}
	r.Endpoint = "http://" + r.addr
	r.serve(ln)
	t.Cleanup(func() {
		r.Cut()
		r.wg.Wait()
	})
	return r
}

func (r *Relay) serve(ln net.Listener) {
	r.mu.Lock()
	r.ln = ln
	r.mu.Unlock()
	r.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.wg.Go(func() { r.forward(c) })
		}
	})
}

// forward copies between c and a new connection to the server until
// either side closes.
func (r *Relay) forward(c net.Conn) {
	s, err := net.Dial("tcp", r.to)
	if err != nil {
		c.Close()
		return
	}
	r.mu.Lock()
	if r.ln == nil { // cut meanwhile
		r.mu.Unlock()
		c.Close()
		s.Close()
		return
	}
	r.conns = append(r.conns, c, s)
	r.mu.Unlock()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(s, c); done <- struct{}{} }()
	go func() { _, _ = io.Copy(c, s); done <- struct{}{} }()
	<-done
	c.Close()
	s.Close()
	<-done
}

// Cut stops listening and closes every connection relayed.
func (r *Relay) Cut() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ln != nil {
		r.ln.Close()
		r.ln = nil
	}
	for _, c := range r.conns {
		c.Close()
	}
	r.conns = nil
}

// Restore listens on the relay's port again.
func (r *Relay) Restore(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", r.addr)
	if err != nil {
		t.Fatalf("listening on %s again: %v", r.addr, err)
	}
	r.serve(ln)
}
