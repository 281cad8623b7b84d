package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
)

// exportName is the export command's name, for loadConfig and its help.
const exportName = "export"

// runExport is "viva export --out DIR": it writes every record of the
// configured store (PostgreSQL or a data directory), or those in one
// status, as <id>.json files in DIR, the format of the file store, so that
// reviewers' tools and "viva web --data-dir DIR" read them. The store is
// only read: no sweep, no write check.
func runExport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var out, status *string
	cfg, err := loadConfig(exportName, args, stderr, func(fs *flag.FlagSet) {
		out = fs.String("out", "", "directory to write the records to, one <id>.json each (created when missing; required)")
		status = fs.String("status", "", "export only the interviews in this status: "+strings.Join(statusNames(), ", "))
	})
	if err != nil {
		return err
	}
	if *out == "" {
		return usageError("--out DIR is required: the directory to write the records to")
	}
	st := interviews.Status(*status)
	if st != "" && !st.Valid() {
		return usageError("--status %q is not a status: use one of %s", *status, strings.Join(statusNames(), ", "))
	}
	log := newLogger(stderr, cfg.LogLevel)
	src, err := openBackend(cfg, log)
	if err != nil {
		return err
	}
	defer closeStore(src)
	if fs, ok := src.(*filestore.Store); ok && sameDir(fs.Dir(), *out) {
		return usageError("--out %s is the data directory the records are read from: choose another directory", *out)
	}
	dst, err := filestore.Open(*out)
	if err != nil {
		return err
	}
	n, err := exportRecords(ctx, src, dst, st)
	if err != nil {
		return fmt.Errorf("exported %d interviews to %s, then: %w", n, dst.Dir(), err)
	}
	fmt.Fprintf(stdout, "exported %d interviews to %s\n", n, dst.Dir())
	return nil
}

// exportRecords copies the records of src in status st (all when empty)
// to dst, newest first, a page at a time, and returns how many it wrote.
// A record that changes meanwhile is written as it is when read.
func exportRecords(ctx context.Context, src interviews.Store, dst *filestore.Store, st interviews.Status) (int, error) {
	n := 0
	for offset := 0; ; {
		page, err := src.List(ctx, interviews.ListOptions{Status: st, Offset: offset, Limit: interviews.MaxListLimit})
		if err != nil {
			return n, err
		}
		for _, sum := range page.Items {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			r, err := src.Get(ctx, sum.ID)
			if errors.Is(err, interviews.ErrNotFound) {
				continue
			}
			if err != nil {
				return n, err
			}
			if err := dst.Save(ctx, r); err != nil {
				return n, err
			}
			n++
		}
		offset += len(page.Items)
		if len(page.Items) == 0 || offset >= page.Total {
			return n, nil
		}
	}
}

// statusNames are the interview statuses, for help and errors.
func statusNames() []string {
	var out []string
	for _, s := range interviews.Statuses {
		out = append(out, string(s))
	}
	return out
}

// sameDir reports whether a and b name one directory.
func sameDir(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && filepath.Clean(aa) == filepath.Clean(bb)
}
