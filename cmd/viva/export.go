package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/privacy"
	"github.com/viva-interviews/viva/interviews/recordings"
)

// exportName is the export command's name, for loadConfig and its help.
const exportName = "export"

// runExport is "viva export --out DIR": it writes every record of the
// configured store (PostgreSQL or a data directory), or those in one
// status, as <id>.json files in DIR, the format of the file store, so that
// reviewers' tools and "viva web --data-dir DIR" read them. With --email
// it writes everything held about one candidate (a subject access
// request): their records, whole, and their recordings in DIR/recordings.
// The store is only read: no sweep, no write check.
func runExport(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	var out, status, email *string
	cfg, err := loadConfig(exportName, args, stderr, func(fs *flag.FlagSet) {
		out = fs.String("out", "", "directory to write the records to, one <id>.json each (created when missing; required)")
		status = fs.String("status", "", "export only the interviews in this status: "+strings.Join(statusNames(), ", "))
		email = fs.String("email", "", "export everything held about the candidate with this email address: their records and, in DIR/recordings, their recordings")
	})
	if err != nil {
		return err
	}
	if *out == "" {
		return cli.UsageError("--out DIR is required: the directory to write the records to")
	}
	st := interviews.Status(*status)
	if st != "" && !st.Valid() {
		return cli.UsageError("--status %q is not a status: use one of %s", *status, strings.Join(statusNames(), ", "))
	}
	if err := checkEmailFlag(*email, false); err != nil {
		return err
	}
	log := newLogger(stderr, cfg.LogLevel)
	src, err := openBackend(cfg, log)
	if err != nil {
		return err
	}
	defer closeStore(src)
	if fs, ok := src.(*filestore.Store); ok && sameDir(fs.Dir(), *out) {
		return cli.UsageError("--out %s is the data directory the records are read from: choose another directory", *out)
	}
	dst, err := filestore.Open(*out)
	if err != nil {
		return err
	}
	opts := interviews.ListOptions{Status: st, Email: *email}
	var rec *recordings.Dir
	recOut := ""
	if *email != "" {
		if rec, err = openRecordings(ctx, cfg, false); err != nil {
			return err
		}
		recOut = filepath.Join(dst.Dir(), privacy.RecordingsDirName)
	}
	n, err := privacy.Export(ctx, src, dst, opts, rec, recOut)
	if err != nil {
		return fmt.Errorf("exported %d interviews to %s, then: %w", n.Records, dst.Dir(), err)
	}
	switch {
	case *email == "":
		fmt.Fprintf(stdout, "exported %d interviews to %s\n", n.Records, dst.Dir())
	case n.Records == 0:
		fmt.Fprintf(stdout, "no interviews of %s are stored: nothing exported\n", *email)
	default:
		fmt.Fprintf(stdout, "exported %d interviews of %s to %s, and %d recordings to %s\n", n.Records, *email, dst.Dir(), n.Recordings, recOut)
	}
	return nil
}

// checkEmailFlag checks the --email flag: required or not, an address.
func checkEmailFlag(email string, required bool) error {
	switch {
	case email == "" && required:
		return cli.UsageError("--email ADDRESS is required: the candidate's email address, as registered")
	case email != "" && !strings.Contains(email, "@"):
		return cli.UsageError("--email %q is not an email address: give the candidate's address as registered, such as ada@example.com", email)
	}
	return nil
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
