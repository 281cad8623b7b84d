package interviews

import (
	"errors"
)

// Errors of CheckWritable; test with errors.Is.
var (
	// ErrNotWritable means records cannot be written in the data directory.
	ErrNotWritable = errors.New("interviews: data directory is not writable")
	// ErrFull means the data directory's disk is full or nearly so.
	ErrFull = errors.New("interviews: data directory is full")
)
