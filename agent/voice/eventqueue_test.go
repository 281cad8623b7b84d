package voice

import (
	"fmt"
	"log/slog"
	"slices"
	"testing"
	"time"
)

// TestEventQueue emits and reads events on a queue with a two-event
// channel and room for three held back. Ops: "s", "f", "i" emit a
// SpeechStarted, a final or an interim transcript (numbered in order);
// "r" reads one event from the channel; "d" lets the delivery loop send
// the oldest held-back event if the channel has room. The test reads what
// catches up at the end.
func TestEventQueue(t *testing.T) {
	for _, tc := range []struct {
		name string
		ops  string
		want []string // events read, in order
	}{
		{"within the buffer", "sf", []string{"s0", "f1"}},
		{"interims dropped when full", "ssi", []string{"s0", "s1"}},
		{"others held back and delivered in order", "ssfs", []string{"s0", "s1", "f2", "s3"}},
		{"delivered as the reader catches up", "ssfsrdrd", []string{"s0", "s1", "f2", "s3"}},
		// While events are held back, an interim is dropped even though
		// the channel has room: it would overtake them.
		{"no interim overtakes held events", "ssfrid", []string{"s0", "s1", "f2"}},
		{"interims flow again once the backlog is gone", "ssfrrdi", []string{"s0", "s1", "f2", "i3"}},
		// Beyond three held-back events the reader is taken for gone.
		{"held back at most three", "ssssss", []string{"s0", "s1", "s2", "s3", "s4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := newEventQueue(2, 3, slog.New(slog.DiscardHandler))
			var got []string
			read := func() {
				select {
				case ev := <-q.events():
					got = append(got, describeEvent(ev))
				default:
					t.Fatalf("nothing to read")
				}
			}
			n := 0
			for _, op := range tc.ops {
				at := time.Unix(int64(n), 0)
				switch op {
				case 's':
					q.emit(SpeechStarted{At: at})
				case 'f':
					q.emit(Transcript{Text: fmt.Sprint(n), Final: true, At: at})
				case 'i':
					q.emit(Transcript{Text: fmt.Sprint(n), At: at})
				case 'r':
					read()
				case 'd':
					out, head := q.pending()
					if out == nil {
						t.Fatalf("op %d: nothing pending", n)
					}
					select {
					case out <- head:
						q.delivered()
					default:
					}
				}
				if op == 's' || op == 'f' || op == 'i' {
					n++
				}
			}
			// The reader catches up.
			for {
				for len(q.events()) > 0 {
					read()
				}
				out, head := q.pending()
				if out == nil {
					break
				}
				out <- head
				q.delivered()
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("read %v, want %v", got, tc.want)
			}
		})
	}
}

func describeEvent(ev Event) string {
	switch e := ev.(type) {
	case SpeechStarted:
		return fmt.Sprintf("s%d", e.At.Unix())
	case Transcript:
		if e.Final {
			return "f" + e.Text
		}
		return "i" + e.Text
	}
	return fmt.Sprintf("%T", ev)
}

func TestEventQueueWakesDeliveryLoop(t *testing.T) {
	q := newEventQueue(1, 4, slog.New(slog.DiscardHandler))
	q.emit(SpeechStarted{})
	select {
	case <-q.woken():
		t.Fatal("woken with nothing held back")
	default:
	}
	q.emit(SpeechEnded{})
	select {
	case <-q.woken():
	default:
		t.Fatal("not woken when an event was held back")
	}
}

func TestEventQueueClose(t *testing.T) {
	q := newEventQueue(2, 4, slog.New(slog.DiscardHandler))
	q.emit(SpeechStarted{})
	q.emit(SpeechStarted{})
	q.emit(SpeechEnded{}) // held back
	q.close()
	q.emit(SpeechStarted{})
	var n int
	for range q.events() {
		n++
	}
	if n != 2 {
		t.Errorf("read %d events after close, want the 2 already buffered", n)
	}
	if out, _ := q.pending(); out != nil {
		t.Error("events still held back after close")
	}
}
