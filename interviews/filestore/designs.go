package filestore

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/internal/atomicfile"
	"github.com/viva-interviews/viva/interviews"
)

// The design library lives under <dir>/designs/<kind>/<name>/: one file
// per version, "<version>.json" (the interviews.Design, written once and
// never changed), and "state.json", the design's current version and
// whether it was removed. Names and versions are checked
// (interviews.CheckDesignKey) before they name a path.
const (
	designsDir      = "designs"
	designStateFile = "state.json"
	designLockFile  = ".lock"
)

// designState is a design's state.json.
type designState struct {
	// Current is the version new interviews get.
	Current string `json:"current"`
	// RemovedAt is when the design was removed; nil while in the library.
	RemovedAt *time.Time `json:"removed_at,omitempty"`
}

func (s *Store) designDir(kind interviews.DesignKind, name string) string {
	return filepath.Join(s.dir, designsDir, string(kind), name)
}

// AddDesign implements interviews.DesignStore.
func (s *Store) AddDesign(ctx context.Context, d *interviews.Design) error {
	if err := d.Check(); err != nil {
		return err
	}
	d.PrepareAdd(time.Now())
	dir := s.designDir(d.Kind, d.Name)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("interviews: add %s %s: %w", d.Kind, d.Name, err)
	}
	unlock, err := atomicfile.Lock(filepath.Join(dir, designLockFile), 0o640)
	if err != nil {
		return fmt.Errorf("interviews: add %s %s: locking: %w", d.Kind, d.Name, err)
	}
	defer unlock()
	if old, err := readDesignVersion(dir, d.Version); err == nil {
		d.AddedBy, d.AddedAt = old.AddedBy, old.AddedAt
	} else {
		data, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return fmt.Errorf("interviews: add %s %s: %w", d.Kind, d.Name, err)
		}
		if err := atomicfile.Write(filepath.Join(dir, d.Version+recordExt), append(data, '\n'), atomicfile.Options{Perm: 0o640}); err != nil {
			return fmt.Errorf("interviews: add %s %s: %w", d.Kind, d.Name, err)
		}
	}
	if err := writeDesignState(dir, designState{Current: d.Version}); err != nil {
		return fmt.Errorf("interviews: add %s %s: %w", d.Kind, d.Name, err)
	}
	d.Current = true
	return nil
}

func readDesignVersion(dir, version string) (*interviews.Design, error) {
	data, err := os.ReadFile(filepath.Join(dir, version+recordExt))
	if err != nil {
		return nil, err
	}
	var d interviews.Design
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("design file %s is unreadable: %w: restore it from a backup", filepath.Join(dir, version+recordExt), err)
	}
	return &d, nil
}

func readDesignState(dir string) (designState, error) {
	var st designState
	data, err := os.ReadFile(filepath.Join(dir, designStateFile))
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("design state %s is unreadable: %w: restore it from a backup", filepath.Join(dir, designStateFile), err)
	}
	return st, nil
}

func writeDesignState(dir string, st designState) error {
	data, err := json.Marshal(st)
	if err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, designStateFile), append(data, '\n'), atomicfile.Options{Perm: 0o640})
}

// designError says what failed, a missing file being ErrDesignNotFound.
func designError(kind interviews.DesignKind, name string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("interviews: no %s %q in the library: %w", kind, name, interviews.ErrDesignNotFound)
	}
	return fmt.Errorf("interviews: %s %q: %w", kind, name, err)
}

// Design implements interviews.DesignStore.
func (s *Store) Design(ctx context.Context, kind interviews.DesignKind, name, version string) (*interviews.Design, error) {
	if err := interviews.CheckDesignKey(kind, name, version); err != nil {
		return nil, err
	}
	dir := s.designDir(kind, name)
	st, err := readDesignState(dir)
	if err != nil {
		return nil, designError(kind, name, err)
	}
	if version == "" {
		if st.RemovedAt != nil {
			return nil, fmt.Errorf("interviews: %s %q was removed from the library: %w", kind, name, interviews.ErrDesignNotFound)
		}
		version = st.Current
	}
	d, err := readDesignVersion(dir, version)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("interviews: %s %q has no version %s: %w", kind, name, version, interviews.ErrDesignNotFound)
	}
	if err != nil {
		return nil, designError(kind, name, err)
	}
	d.RemovedAt, d.Current = st.RemovedAt, d.Version == st.Current
	return d, nil
}

// Designs implements interviews.DesignStore.
func (s *Store) Designs(ctx context.Context, kind interviews.DesignKind) ([]interviews.Design, error) {
	if !kind.Valid() {
		return nil, fmt.Errorf("interviews: design kind %q is not one of %s and %s", kind, interviews.KindBlueprint, interviews.KindTemplate)
	}
	entries, err := os.ReadDir(filepath.Join(s.dir, designsDir, string(kind)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("interviews: listing %ss: %w", kind, err)
	}
	var out []interviews.Design
	for _, e := range entries {
		if !e.IsDir() || !interviews.ValidDesignName(e.Name()) {
			continue
		}
		d, err := s.Design(ctx, kind, e.Name(), "")
		if errors.Is(err, interviews.ErrDesignNotFound) {
			continue // removed, or a directory left by a failed add
		}
		if err != nil {
			return nil, err
		}
		out = append(out, *d)
	}
	return out, nil
}

// DesignVersions implements interviews.DesignStore.
func (s *Store) DesignVersions(ctx context.Context, kind interviews.DesignKind, name string) ([]interviews.Design, error) {
	if err := interviews.CheckDesignKey(kind, name, ""); err != nil {
		return nil, err
	}
	dir := s.designDir(kind, name)
	st, err := readDesignState(dir)
	if err != nil {
		return nil, designError(kind, name, err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, designError(kind, name, err)
	}
	var out []interviews.Design
	for _, e := range entries {
		v, ok := strings.CutSuffix(e.Name(), recordExt)
		if !ok || !interviews.ValidDesignVersion(v) || v == interviews.BuiltinVersion {
			continue
		}
		d, err := readDesignVersion(dir, v)
		if err != nil {
			return nil, designError(kind, name, err)
		}
		d.RemovedAt, d.Current = st.RemovedAt, v == st.Current
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b interviews.Design) int {
		return cmp.Or(b.AddedAt.Compare(a.AddedAt), cmp.Compare(a.Version, b.Version))
	})
	return out, nil
}

// RemoveDesign implements interviews.DesignStore.
func (s *Store) RemoveDesign(ctx context.Context, kind interviews.DesignKind, name string) error {
	if err := interviews.CheckDesignKey(kind, name, ""); err != nil {
		return err
	}
	dir := s.designDir(kind, name)
	if _, err := os.Stat(dir); err != nil {
		return designError(kind, name, err)
	}
	unlock, err := atomicfile.Lock(filepath.Join(dir, designLockFile), 0o640)
	if err != nil {
		return fmt.Errorf("interviews: remove %s %s: locking: %w", kind, name, err)
	}
	defer unlock()
	st, err := readDesignState(dir)
	if err != nil {
		return designError(kind, name, err)
	}
	if st.RemovedAt != nil {
		return fmt.Errorf("interviews: %s %q was already removed: %w", kind, name, interviews.ErrDesignNotFound)
	}
	now := time.Now().UTC().Round(0).Truncate(time.Microsecond)
	st.RemovedAt = &now
	if err := writeDesignState(dir, st); err != nil {
		return fmt.Errorf("interviews: remove %s %s: %w", kind, name, err)
	}
	return nil
}
