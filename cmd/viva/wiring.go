package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/postgres"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/web"
)

// candidate holds the flags that describe a candidate for commands that
// start an interview directly.
type candidate struct {
	name, email, role, level, blueprint *string
}

func candidateFlags(fs *flag.FlagSet) candidate {
	return candidate{
		name:      fs.String("name", "", "the candidate's name (required)"),
		email:     fs.String("email", "", "the candidate's email address"),
		role:      fs.String("role", "Software engineer", "the role interviewed for"),
		level:     fs.String("level", "mid", "seniority level: "+strings.Join(stages.Levels, ", ")),
		blueprint: fs.String("blueprint", stages.DefaultName, "a built-in blueprint ("+strings.Join(stages.BuiltinNames(), ", ")+"), one of the design library (NAME or NAME@VERSION) or a YAML file"),
	}
}

// record validates the candidate's flags (as interviews.Candidate does
// for every candidate) and returns a new record of the candidate; the
// blueprint flag is read with the design library (see chatDesigns).
func (c candidate) record() (*interviews.Record, error) {
	cand := interviews.Candidate{Name: *c.name, Email: *c.email, Role: *c.role, Level: *c.level}
	cand.Normalize()
	if fe, ok := errors.AsType[interviews.FieldErrors](cand.Validate()); ok {
		var errs []error
		for _, f := range slices.Sorted(maps.Keys(fe)) {
			errs = append(errs, fmt.Errorf("--%s: %s", f, fe[f]))
		}
		return nil, errors.Join(errs...)
	}
	return &interviews.Record{Candidate: cand}, nil
}

// installedTemplates returns the role templates shipped in this binary as
// the web form offers them: by name, with their titles.
func installedTemplates() ([]web.TemplateChoice, error) {
	var out []web.TemplateChoice
	for _, name := range stages.TemplateNames() {
		t, err := stages.BuiltinTemplate(name)
		if err != nil {
			return nil, err
		}
		out = append(out, web.TemplateChoice{Name: t.Name, Title: t.Title})
	}
	return out, nil
}

// openStore opens the interview records — in PostgreSQL when a database
// URL is set, else as JSON files in the data directory — and checks that
// records can be saved there, with the secrets key (when set) that seals
// interviews' own provider keys: an unwritable store stops viva at start
// instead of losing the interviews it would take. Close it with closeStore.
func openStore(ctx context.Context, cfg *config.Config, log *slog.Logger) (interviews.Store, error) {
	store, err := openBackend(cfg, log)
	if err != nil {
		return nil, err
	}
	if err := store.CheckWritable(ctx); err != nil {
		closeStore(store)
		return nil, err
	}
	// Interviews a dead process left in progress are over unless a live
	// session holds them: the reviewer list must not call them running.
	swept, err := store.SweepCrashed(ctx)
	if len(swept) > 0 {
		log.Warn("interviews left in progress by a stopped process were saved as failed (worker_crashed); a new dispatch resumes them",
			"count", len(swept), "interview_ids", swept)
	}
	if err != nil {
		log.Error("some interviews left in progress could not be checked", "err", err)
	}
	return store, nil
}

// sealedStore is a store that can be given the secrets key.
type sealedStore interface {
	interviews.Store
	SetSealer(*interviews.Sealer)
}

// openBackend opens the configured store with its secrets key, without
// checks.
func openBackend(cfg *config.Config, log *slog.Logger) (interviews.Store, error) {
	var store sealedStore
	if cfg.DatabaseURL != "" {
		pg, err := postgres.Open(context.Background(), cfg.DatabaseURL)
		if err != nil {
			return nil, fmt.Errorf("opening the records database (--database-url or VIVA_DATABASE_URL): %w", err)
		}
		log.Info("interview records are kept in PostgreSQL", "database", pg.Where())
		store = pg
	} else {
		fs, err := filestore.Open(cfg.DataDir)
		if err != nil {
			return nil, fmt.Errorf("opening the data directory: %w", err)
		}
		store = fs
	}
	key, err := cfg.SecretsKeyBytes()
	if err == nil && key != nil {
		var sealer *interviews.Sealer
		if sealer, err = interviews.NewSealer(key); err == nil {
			store.SetSealer(sealer)
		}
	}
	if err != nil {
		closeStore(store)
		return nil, err
	}
	return store, nil
}

// closeStore releases what a store holds open (a database's connections).
func closeStore(store interviews.Store) {
	if c, ok := store.(interface{ Close() }); ok {
		c.Close()
	}
}

// allowNoRoomPageFlag lets viva web and viva dev serve from a binary built
// without the room page's script, for API-only use; candidates then see a
// message instead of their interview.
const allowNoRoomPageFlag = "allow-missing-room-page"

// roomPageFlag registers allowNoRoomPageFlag on a command's flags.
func roomPageFlag(fs *flag.FlagSet) *bool {
	return fs.Bool(allowNoRoomPageFlag, false, "serve the web app even though this binary was built without the room page's script (candidates cannot join)")
}

// checkRoomPage stops viva web and viva dev at start when the binary lacks
// the room page's script (check is web.CheckRoomBundle), unless allow is
// set: then it only warns.
func checkRoomPage(check func() error, allow bool, log *slog.Logger) error {
	err := check()
	switch {
	case err == nil:
		return nil
	case allow:
		log.Warn("serving without the room page's script: candidates see a message instead of their interview", "err", err)
		return nil
	}
	return fmt.Errorf("%w; or pass --%s to serve the rest of the web app anyway", err, allowNoRoomPageFlag)
}
