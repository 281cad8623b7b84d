// Package linelog keeps the output of a child process the program or a test
// started: every byte goes to a log file, for people to read afterwards, and
// every complete line is kept in memory, so callers can wait for the line
// that says the process reached a state (ready, registered) instead of
// polling or sleeping.
package linelog

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
)

// Log is an io.Writer for a process's stdout and stderr. It is safe for
// concurrent use.
type Log struct {
	path string

	mu      sync.Mutex
	f       *os.File // nil after Close
	partial []byte   // bytes after the last newline
	lines   []string
	changed chan struct{} // closed and replaced whenever a line arrives
}

// Create creates (or truncates) the file at path and returns a Log writing
// to it.
func Create(path string) (*Log, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create log: %w", err)
	}
	return &Log{path: path, f: f, changed: make(chan struct{})}, nil
}

// Path is the log file's path.
func (l *Log) Path() string { return l.path }

// Write appends b to the file and keeps the lines it completes. It never
// fails, so a full disk does not stall the process writing its output.
func (l *Log) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		_, _ = l.f.Write(b)
	}
	l.partial = append(l.partial, b...)
	added := false
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			break
		}
		l.lines = append(l.lines, string(l.partial[:i]))
		l.partial = l.partial[i+1:]
		added = true
	}
	if added {
		l.notify()
	}
	return len(b), nil
}

// Close keeps a trailing partial line as the last line (the process has
// ended, nothing will complete it) and closes the file. It is idempotent;
// lines stay readable after it.
func (l *Log) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 {
		l.lines = append(l.lines, string(l.partial))
		l.partial = nil
		l.notify()
	}
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	if err != nil {
		return fmt.Errorf("close log %s: %w", l.path, err)
	}
	return nil
}

// notify wakes every Wait; l.mu is held.
func (l *Log) notify() {
	close(l.changed)
	l.changed = make(chan struct{})
}

// Lines is a snapshot of the complete lines so far.
func (l *Log) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// Wait returns the first line, from the beginning of the log, that match
// accepts, waiting for it until ctx ends. Lines logged before the call
// count, so there is no race with the event being waited for.
func (l *Log) Wait(ctx context.Context, match func(line string) bool) (string, error) {
	next := 0
	for {
		l.mu.Lock()
		for ; next < len(l.lines); next++ {
			if line := l.lines[next]; match(line) {
				l.mu.Unlock()
				return line, nil
			}
		}
		changed := l.changed
		l.mu.Unlock()
		select {
		case <-changed:
		case <-ctx.Done():
			return "", fmt.Errorf("no such line in %s: %w", l.path, ctx.Err())
		}
	}
}

// ContainsAll matches a line that contains every one of substrings.
func ContainsAll(substrings ...string) func(line string) bool {
	return func(line string) bool {
		for _, sub := range substrings {
			if !strings.Contains(line, sub) {
				return false
			}
		}
		return true
	}
}
