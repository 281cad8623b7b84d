package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"

	"github.com/viva-interviews/viva/accounts"
	apostgres "github.com/viva-interviews/viva/accounts/postgres"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/postgres"
	"github.com/viva-interviews/viva/interviews/recordings"
	"github.com/viva-interviews/viva/interviews/recordings/s3"
)

// userAccounts are the web app's users and, with a database, the
// sessions and rate limits every web app shares.
type userAccounts struct {
	*accounts.Service
	// Where names where the users are kept, for messages.
	Where string
	// Sessions and Limiter are nil without a database: each web app keeps
	// its own in memory.
	Sessions accounts.Sessions
	Limiter  func(name string, perMinute int) accounts.Limiter
	// close releases the database connections opened for the accounts.
	close func()
}

// Close releases what openAccounts opened.
func (u *userAccounts) Close() {
	if u.close != nil {
		u.close()
	}
}

// openAccounts opens the users with the production hashing parameters:
// in PostgreSQL with VIVA_DATABASE_URL (on store's connections when store
// is that database's), else in the users file.
func openAccounts(ctx context.Context, cfg *config.Config, store interviews.Store) (*userAccounts, error) {
	if cfg.DatabaseURL == "" {
		file, err := accounts.OpenFile(cfg.ResolvedUsersFile())
		if err != nil {
			return nil, err
		}
		svc, err := accounts.NewService(file, accounts.DefaultParams, nil)
		return &userAccounts{Service: svc, Where: file.Path()}, err
	}
	u := &userAccounts{}
	pg, ok := store.(*postgres.Store)
	if !ok {
		var err error
		if pg, err = postgres.Open(ctx, cfg.DatabaseURL); err != nil {
			return nil, fmt.Errorf("opening the accounts' database (--database-url or VIVA_DATABASE_URL): %w", err)
		}
		u.close = pg.Close
	}
	db, err := apostgres.Open(ctx, pg, nil)
	if err != nil {
		u.Close()
		return nil, err
	}
	if u.Service, err = accounts.NewService(db.Store(), accounts.DefaultParams, nil); err != nil {
		u.Close()
		return nil, err
	}
	u.Where = "PostgreSQL (" + pg.Where() + ")"
	if err := copyUsersFile(ctx, cfg, db.Store(), u.Where); err != nil {
		u.Close()
		return nil, err
	}
	u.Sessions = db.Sessions(accounts.SessionLimits{})
	u.Limiter = func(name string, perMinute int) accounts.Limiter { return db.Limiter(name, perMinute) }
	return u, nil
}

// copyUsersFile copies into the database the users of the users file
// that it lacks, once a database is configured: nobody has to be added
// again.
func copyUsersFile(ctx context.Context, cfg *config.Config, to accounts.Store, where string) error {
	if _, err := os.Stat(cfg.ResolvedUsersFile()); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	file, err := accounts.OpenFile(cfg.ResolvedUsersFile())
	if err != nil {
		return err
	}
	n, err := accounts.Copy(ctx, file, to)
	if n > 0 {
		slog.Info("users copied from the users file into the database", "users", n, "file", file.Path(), "database", where)
	}
	return err
}

// openRecordings returns the recordings directory, uploading to the
// object store when one is configured. create makes the directory (the
// worker, which writes there); readers find nothing while it is missing.
func openRecordings(ctx context.Context, cfg *config.Config, create bool) (*recordings.Dir, error) {
	dir := recordings.At(cfg.ResolvedRecordingsDir())
	if create {
		var err error
		if dir, err = recordings.Open(cfg.ResolvedRecordingsDir()); err != nil {
			return nil, err
		}
	}
	if cfg.RecordingsS3Bucket == "" {
		return dir, nil
	}
	objects, err := s3.Open(ctx, s3.Options{Endpoint: cfg.RecordingsS3Endpoint, Bucket: cfg.RecordingsS3Bucket, Region: cfg.RecordingsS3Region,
		AccessKeyID: cfg.S3AccessKeyID, SecretAccessKey: cfg.S3SecretAccessKey})
	if err != nil {
		return nil, fmt.Errorf("opening the recordings' object storage: %w", err)
	}
	return dir.WithObjects(objects), nil
}
