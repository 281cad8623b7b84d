package fakeopenai

import (
	"net/http"
	"net/http/httptest"

	"github.com/viva-interviews/viva/testrig/pipenet"
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
	l := pipenet.Listen(pipeHost)
	s.srv = httptest.NewUnstartedServer(s.auth(s.mux()))
	_ = s.srv.Listener.Close()
	s.srv.Listener = l
	s.srv.Start()
	s.URL = s.srv.URL + "/v1"
	return s, &http.Client{Transport: &http.Transport{DialContext: l.Dial}}
}
