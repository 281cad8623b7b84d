package filestore_test

import (
	"path/filepath"
	"testing"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/storetest"
)

// TestConformance runs the store suite on the JSON files: each
// opener is another Store on the same directory, as another process
// sharing the data directory has.
func TestConformance(t *testing.T) {
	storetest.Run(t, opener)
	storetest.RunDesigns(t, opener)
}

func opener(t *testing.T) storetest.Opener {
	dir := filepath.Join(t.TempDir(), "interviews")
	return func(o storetest.Options) interviews.Store {
		s, err := filestore.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		s.SetClock(o.Now)
		s.SetSealer(o.Sealer)
		return s
	}
}
