// Package lkurl reads the address of a LiveKit server as operators give it
// (LIVEKIT_URL), for the agent worker (package lkagent) and for any
// LiveKit client, such as a web app issuing room links, alike. It uses the
// standard library only.
package lkurl

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// example is the address a message suggests: livekit-server --dev.
const example = "ws://127.0.0.1:7880"

// Parse checks raw and returns the websocket address clients connect to:
// ws:// or wss:// (http:// and https:// become ws:// and wss://), a host, and
// the server's path prefix if it has one, without a trailing slash. User
// info, a query or a fragment is an error: the address names a server, not
// a request.
func Parse(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("no LiveKit URL: set LIVEKIT_URL, such as " + example)
	}
	u, err := url.Parse(raw)
	if err == nil && u.User != nil {
		// Not repeated in the message: it would put a credential in a log.
		return nil, errors.New("the LiveKit URL holds a user name or password: give the server's address alone; LIVEKIT_API_KEY and LIVEKIT_API_SECRET carry the credentials")
	}
	if err != nil || u.Host == "" || u.Opaque != "" {
		return nil, fmt.Errorf("LiveKit URL %q is not a ws://, wss://, http:// or https:// address such as %s", raw, example)
	}
	switch u.Scheme {
	case "ws", "wss":
	case "http":
		u.Scheme = "ws"
	case "https":
		u.Scheme = "wss"
	default:
		return nil, fmt.Errorf("LiveKit URL %q has scheme %q: use ws://, wss://, http:// or https://", raw, u.Scheme)
	}
	if u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return nil, fmt.Errorf("LiveKit URL %q has a query or fragment: give the server's address alone, such as %s", raw, example)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	return u, nil
}
