package voice

import (
	"crypto/rand"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// captionSegments turns STT results into Transcript events with segment
// ids: every interim of one piece of speech and its final share an id, the
// next piece gets the next one. Blank interims are not shown; a blank
// final is shown only to clear interim text of its segment.
type captionSegments struct {
	prefix string // unique per Listener, so ids are unique per Listener
	n      int    // number of the current segment
	shown  bool   // the current segment has shown interim text
}

// segmentIDPrefix is the start of every segment id.
const segmentIDPrefix = "SG_"

// newCaptionSegments numbers segments after a random prefix.
func newCaptionSegments() captionSegments {
	var id [6]byte
	_, _ = rand.Read(id[:])
	return captionSegments{prefix: fmt.Sprintf("%s%x_", segmentIDPrefix, id)}
}

// id is the current segment's id.
func (s *captionSegments) id() string {
	return s.prefix + strconv.Itoa(s.n)
}

// interim returns the caption update for interim text at at; ok is false
// when there is nothing to show.
func (s *captionSegments) interim(text string, at time.Time) (tr Transcript, ok bool) {
	if strings.TrimSpace(text) == "" {
		return Transcript{}, false
	}
	s.shown = true
	return Transcript{SegmentID: s.id(), Text: text, At: at}, true
}

// final returns the final caption for text (trimmed) at at and moves on to
// the next segment; ok is false for a blank final after no interim text.
func (s *captionSegments) final(text string, at time.Time) (tr Transcript, ok bool) {
	text = strings.TrimSpace(text)
	if text == "" && !s.shown {
		return Transcript{}, false
	}
	tr = Transcript{SegmentID: s.id(), Text: text, Final: true, At: at}
	s.n++
	s.shown = false
	return tr, true
}
