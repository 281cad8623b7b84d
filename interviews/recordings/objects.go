package recordings

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// Objects is an object store (S3 and what speaks its API: MinIO,
// Cloudflare R2, Google Cloud Storage's interoperability mode) that keeps
// the recordings of every machine, so the web app on one plays what a
// worker on another recorded. Names are recordings' names (see Name).
// Implementations are safe for concurrent use.
type Objects interface {
	// Put stores size bytes read from r as name, replacing any object of
	// that name.
	Put(ctx context.Context, name string, r io.Reader, size int64) error
	// Open returns the object name for reading with seeking (a seek is a
	// ranged request), with its size and time; an error wrapping
	// fs.ErrNotExist when there is none.
	Open(ctx context.Context, name string) (Object, error)
	// Remove deletes name; a missing object is not an error.
	Remove(ctx context.Context, name string) error
	// List returns the objects whose names start with prefix.
	List(ctx context.Context, prefix string) ([]Info, error)
	// Where names the store (endpoint and bucket, no credentials), for
	// messages.
	Where() string
}

// Object is a stored recording open for reading.
type Object interface {
	io.ReadSeekCloser
	// Info is the object's name, size and time.
	Info() Info
}

// Info describes a stored recording.
type Info struct {
	// Name is the recording's name.
	Name string
	// Size is its length in bytes.
	Size int64
	// ModTime is when it was last written.
	ModTime time.Time
}

// WithObjects returns the directory keeping its recordings in objects: a
// recording is written to the directory, uploaded when its session ends
// and then removed from the directory, which holds only recordings being
// written and those waiting for the Uploader (whose upload failed).
// Reading, listing and removing see both.
func (d *Dir) WithObjects(objects Objects) *Dir {
	return &Dir{path: d.path, objects: objects, uploads: newUploads()}
}

// Objects returns the object store the directory uploads to; nil when
// recordings stay in the directory.
func (d *Dir) Objects() Objects { return d.objects }

// Open returns the recording called name for reading, from the directory
// or else the object store; an error wrapping fs.ErrNotExist when neither
// holds it.
func (d *Dir) Open(ctx context.Context, name string) (Object, error) {
	path, err := d.File(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", err, fs.ErrNotExist)
	}
	f, err := os.Open(path)
	if err == nil {
		info, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("recordings: reading %s: %w", name, err)
		}
		return fileObject{File: f, info: Info{Name: name, Size: info.Size(), ModTime: info.ModTime()}}, nil
	}
	if !errors.Is(err, fs.ErrNotExist) || d.objects == nil {
		return nil, fmt.Errorf("recordings: opening %s: %w", name, err)
	}
	o, err := d.objects.Open(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("recordings: opening %s in %s: %w", name, d.objects.Where(), err)
	}
	return o, nil
}

// fileObject is a recording in the directory.
type fileObject struct {
	*os.File
	info Info
}

func (f fileObject) Info() Info { return f.info }

// Exists reports whether the directory or the object store holds the
// recording called name.
func (d *Dir) Exists(ctx context.Context, name string) (bool, error) {
	o, err := d.Open(ctx, name)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	o.Close()
	return true, nil
}
