package filestore

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/storetest"
)

// The test binary turns into the interview writer of
// TestKillMidInterviewLeavesValidRecord when writerDirEnv names a store
// directory. With writerPauseEnv=N it stops inside the save of turn N, after
// the new version is written to its temporary file and before the rename,
// prints "paused", and waits there to be killed.
const (
	writerDirEnv   = "VIVA_INTERVIEWS_TEST_WRITER_DIR"
	writerPauseEnv = "VIVA_INTERVIEWS_TEST_WRITER_PAUSE"
)

const killRecordID = "killtest"

func TestMain(m *testing.M) {
	if dir := os.Getenv(writerDirEnv); dir != "" {
		pause, _ := strconv.Atoi(os.Getenv(writerPauseEnv))
		if err := runWriter(dir, pause); err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// runWriter plays an interview that saves its record after every turn and
// prints each saved turn's Seq, until it is killed. It continues the record
// when one is already stored, as a restarted worker would.
func runWriter(dir string, pauseAt int) error {
	s, err := Open(dir)
	if err != nil {
		return err
	}
	r, err := s.Get(context.Background(), killRecordID)
	if errors.Is(err, interviews.ErrNotFound) {
		r = &interviews.Record{
			ID:         killRecordID,
			Candidate:  interviews.Candidate{Name: "Grace Hopper", Role: "Engineer", Level: "staff"},
			Blueprint:  "default",
			ResumeText: strings.Repeat("COBOL compilers and nanoseconds. ", 3<<10), // ~100 KB, the most a record holds
		}
		if err := s.Create(context.Background(), r); err != nil {
			return err
		}
		r.Start(time.Now())
		r.EnterStage("greeting", "Welcome", time.Now(), false, "start")
	} else if err != nil {
		return err
	}
	next := len(r.Turns) + 1
	testHookBeforeRename = func(tmp string) {
		if next == pauseAt {
			fmt.Println("paused", tmp)
			_, _ = io.Copy(io.Discard, os.Stdin) // until killed
		}
	}
	for ; next < 100_000; next++ {
		role := interviews.RoleAgent
		if next%2 == 0 {
			role = interviews.RoleCandidate
		}
		now := time.Now()
		r.AppendTurn(interviews.Turn{Role: role, Stage: "greeting", Text: fmt.Sprintf("turn %d", next), StartedAt: now, EndedAt: now})
		if err := s.Save(context.Background(), r); err != nil {
			return err
		}
		fmt.Println(next)
	}
	return nil
}

// killWriter runs the writer on dir until it prints a line starting with
// until, kills it, and returns the last turn it reported saved.
func killWriter(t *testing.T, dir string, pauseAt int, until string) (saved int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), writerDirEnv+"="+dir, writerPauseEnv+"="+strconv.Itoa(pauseAt))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(out)
	reached := false
	for lines.Scan() {
		line := lines.Text()
		if n, err := strconv.Atoi(line); err == nil {
			saved = n
		}
		if strings.HasPrefix(line, until) {
			reached = true
			break
		}
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if !reached {
		t.Fatalf("writer ended before printing %q: %s", until, stderr.String())
	}
	return saved
}

// checkKilledRecord asserts the store holds a valid record with exactly the
// turns 1..want and that List shows it alone.
func checkKilledRecord(t *testing.T, dir string, want int) {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Get(t.Context(), killRecordID)
	if err != nil {
		t.Fatalf("Get after kill: %v", err)
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("record after kill is invalid: %v", err)
	}
	if len(r.Turns) != want {
		t.Fatalf("record after kill has %d turns, want the %d saved", len(r.Turns), want)
	}
	for i, turn := range r.Turns {
		if turn.Seq != i+1 || turn.Text != fmt.Sprintf("turn %d", i+1) {
			t.Fatalf("turn %d after kill = %+v", i+1, turn)
		}
	}
	page, err := s.List(t.Context(), interviews.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 1 || page.Items[0].ID != killRecordID || page.Items[0].Turns != want {
		t.Fatalf("List after kill = %+v", page)
	}
}

func TestKillMidInterviewLeavesValidRecord(t *testing.T) {
	t.Run("killed between saves", func(t *testing.T) {
		for _, n := range []int{1, 6, 13} {
			dir := t.TempDir()
			// Killed right after reporting turn n saved: it is already
			// working on the next save.
			saved := killWriter(t, dir, 0, strconv.Itoa(n))
			if saved != n {
				t.Fatalf("writer reported %d, want %d", saved, n)
			}
			// The kill lands during the next save, or — on a busy machine
			// — just after it: either way a whole record of every turn
			// saved.
			got := n
			if s, err := Open(dir); err == nil {
				if r, err := s.Get(t.Context(), killRecordID); err == nil && len(r.Turns) == n+1 {
					got = n + 1
				}
			}
			checkKilledRecord(t, dir, got)
		}
	})
	t.Run("killed inside a save, then restarted", func(t *testing.T) {
		dir := t.TempDir()
		killWriter(t, dir, 5, "paused")
		temps, _ := filepath.Glob(filepath.Join(dir, ".killtest.json.tmp-*"))
		if len(temps) != 1 {
			t.Fatalf("temporary files after a kill inside Save = %v, want the one being written", temps)
		}
		// The half-done save holds turn 5; the record keeps turns 1-4.
		checkKilledRecord(t, dir, 4)

		// A restarted writer continues the record beside the leftover file.
		killWriter(t, dir, 9, "paused")
		checkKilledRecord(t, dir, 8)
		temps, _ = filepath.Glob(filepath.Join(dir, ".killtest.json.tmp-*"))
		if len(temps) != 2 {
			t.Fatalf("temporary files after two kills = %v", temps)
		}
	})
}

// t0 is the fixtures' registration time; at(sec) is sec seconds later.
var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func at(sec int) time.Time { return t0.Add(time.Duration(sec) * time.Second) }

func openStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "data", "interviews"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestOpen(t *testing.T) {
	s := openStore(t)
	info, err := os.Stat(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if !info.IsDir() || info.Mode().Perm()&^0o750 != 0 {
		t.Fatalf("store dir mode = %v, want a directory with at most 0750", info.Mode())
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(file); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("Open(file) = %v", err)
	}
	if _, err := Open(""); err == nil || !strings.Contains(err.Error(), "VIVA_DATA_DIR") {
		t.Fatalf(`Open("") = %v`, err)
	}
}

func TestInvalidIDsAreRejected(t *testing.T) {
	s := openStore(t)
	// A file outside the store that a path id would reach.
	outside := filepath.Join(filepath.Dir(s.Dir()), "x.json")
	good := storetest.NewRecord("x", "A", "r", interviews.StatusScheduled, t0)
	data, _ := json.Marshal(good)
	if err := os.WriteFile(outside, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"../x", "", "X", "ABC", "a/b", "..", ".x"} {
		if _, err := s.Get(t.Context(), id); !errors.Is(err, interviews.ErrNotFound) {
			t.Errorf("Get(%q) = %v, want ErrNotFound", id, err)
		}
		if _, err := s.Path(id); !errors.Is(err, interviews.ErrNotFound) {
			t.Errorf("Path(%q) = %v, want ErrNotFound", id, err)
		}
		r := storetest.NewRecord("x", "A", "r", interviews.StatusScheduled, t0)
		r.ID = id
		_ = s.Save(t.Context(), r)
	}
	entries, _ := os.ReadDir(s.Dir())
	if len(entries) != 0 {
		t.Fatalf("rejected ids left files: %v", entries)
	}
	if got, _ := os.ReadFile(outside); !bytes.Equal(got, data) {
		t.Fatal("a rejected id changed a file outside the store")
	}
}

// TestRecordFile: a saved record is the file <id>.json in the data
// directory, readable by nobody else (the round trip itself is the shared
// store suite's, run on this Store too).
func TestRecordFile(t *testing.T) {
	s := openStore(t)
	r := storetest.NewRecord("abcdefghij234567", "Ada Lovelace", "Engineer", interviews.StatusCompleted, t0)
	if err := s.Save(t.Context(), r); err != nil {
		t.Fatal(err)
	}
	path, err := s.Path(r.ID)
	if err != nil || path != filepath.Join(s.Dir(), r.ID+".json") {
		t.Fatalf("Path = %q, %v", path, err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm()&0o007 != 0 {
		t.Fatalf("record file is readable by others: %v", info.Mode())
	}

	bad := r.Clone()
	bad.Candidate.Name = ""
	if err := s.Save(t.Context(), bad); err == nil {
		t.Fatal("Save of an invalid record succeeded")
	}
	if got, _ := s.Get(t.Context(), r.ID); got.Candidate.Name != r.Candidate.Name {
		t.Fatal("a refused Save changed the stored record")
	}
}

func TestAtomicWrite(t *testing.T) {
	s := openStore(t)
	r := storetest.NewRecord("atomic", "A", "Engineer", interviews.StatusInProgress, t0)
	// A crash during an earlier write left a half-written temporary file.
	leftover := filepath.Join(s.Dir(), ".atomic.json.tmp-123456")
	if err := os.WriteFile(leftover, []byte(`{"id":"atomic","candid`), 0o600); err != nil {
		t.Fatal(err)
	}
	page, err := s.List(t.Context(), interviews.ListOptions{})
	if err != nil || page.Total != 0 {
		t.Fatalf("List with only a temporary file = %+v, %v", page, err)
	}
	for i := range 5 {
		r.AppendTurn(interviews.Turn{Role: interviews.RoleCandidate, Text: fmt.Sprint("answer ", i)})
		if err := s.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(s.Dir(), "atomic.json"))
		if err != nil {
			t.Fatal(err)
		}
		var back interviews.Record
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatalf("file after Save is not valid JSON: %v", err)
		}
		if len(back.Turns) != i+1 {
			t.Fatalf("file after save %d has %d turns", i+1, len(back.Turns))
		}
	}
	entries, err := os.ReadDir(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := []string{".atomic.json.tmp-123456", "atomic.json"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("files after saves = %v, want %v (Save leaves no temporary files of its own)", names, want)
	}
	page, err = s.List(t.Context(), interviews.ListOptions{})
	if err != nil || page.Total != 1 || page.Items[0].Turns != 5 {
		t.Fatalf("List = %+v, %v", page, err)
	}
}

func TestCorruptFile(t *testing.T) {
	s := openStore(t)
	if err := s.Save(t.Context(), storetest.NewRecord("good", "A", "Engineer", interviews.StatusScheduled, t0)); err != nil {
		t.Fatal(err)
	}
	corrupt := map[string]string{
		"broken.json":   `{"id":"broken","candidate":{"na`,
		"wrongid.json":  `{"id":"other","candidate":{"name":"B"}}`,
		"badtype.json":  `{"id":"badtype","turns":"many"}`,
		"notjson.json":  "\x00\x01",
		"NotAnID.json":  `{}`, // not a record name: ignored silently
		"readme.txt":    "notes",
		"emptyish.json": "",
	}
	for name, content := range corrupt {
		if err := os.WriteFile(filepath.Join(s.Dir(), name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var logs bytes.Buffer
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	defer slog.SetDefault(old)

	page, err := s.List(t.Context(), interviews.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 1 || page.Items[0].ID != "good" {
		t.Fatalf("List = %+v, want only the good record", page)
	}
	for _, name := range []string{"broken.json", "wrongid.json", "badtype.json", "notjson.json", "emptyish.json"} {
		if !strings.Contains(logs.String(), "file="+name) {
			t.Errorf("log does not name %s:\n%s", name, logs.String())
		}
	}
	if strings.Contains(logs.String(), s.Dir()) {
		t.Errorf("log shows the directory, want file names only:\n%s", logs.String())
	}
	// A second List does not log the same unchanged files again.
	logs.Reset()
	if _, err := s.List(t.Context(), interviews.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 0 {
		t.Errorf("second List logged again:\n%s", logs.String())
	}

	for _, id := range []string{"broken", "wrongid", "badtype", "notjson", "emptyish"} {
		_, err := s.Get(t.Context(), id)
		if err == nil || errors.Is(err, interviews.ErrNotFound) || !strings.Contains(err.Error(), filepath.Join(s.Dir(), id+".json")) {
			t.Errorf("Get(%s) = %v, want an error naming the file", id, err)
		}
	}
}

// TestListSeesRemovedFiles: List follows the directory: a changed file and
// a file removed by hand show in the next List (the rest of List's
// behaviour is in the store conformance suite).
func TestListSeesRemovedFiles(t *testing.T) {
	s := openStore(t)
	recs := []*interviews.Record{
		storetest.NewRecord("a1", "Ada Lovelace", "Backend Engineer", interviews.StatusCompleted, at(100)),
		storetest.NewRecord("b2", "Alan Turing", "Data Scientist", interviews.StatusCandidateLeft, at(300)),
		storetest.NewRecord("c3", "Grace Hopper", "Engineering Manager", interviews.StatusInProgress, at(200)),
		storetest.NewRecord("d4", "Linus", "backend engineer", interviews.StatusScheduled, at(400)),
		storetest.NewRecord("e5", "Barbara Liskov", "Staff Engineer", interviews.StatusFailed, at(200)), // same time as c3
		storetest.NewRecord("f6", "Ada Yonath", "Chemist", interviews.StatusCompleted, at(50)),
	}
	for _, r := range recs {
		if err := s.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	if page, err := s.List(t.Context(), interviews.ListOptions{}); err != nil || page.Total != len(recs) {
		t.Fatalf("List = %+v, %v", page, err)
	}
	ids := func(p interviews.ListPage) []string {
		out := []string{}
		for _, it := range p.Items {
			out = append(out, it.ID)
		}
		return out
	}
	t.Run("sees updates and removals", func(t *testing.T) {
		r := recs[2].Clone()
		r.AppendTurn(interviews.Turn{Role: interviews.RoleAgent, Text: "hello"})
		if err := s.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(s.Dir(), "d4.json")); err != nil {
			t.Fatal(err)
		}
		page, err := s.List(t.Context(), interviews.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(page); !reflect.DeepEqual(got, []string{"b2", "c3", "e5", "a1", "f6"}) {
			t.Fatalf("after removal List = %v", got)
		}
		if page.Items[1].Turns != 1 {
			t.Fatalf("List did not see the new turn: %+v", page.Items[1])
		}
	})
}

// TestConcurrentSaveLeavesNoFiles: saves of one record from many
// goroutines leave only the record's file, no temporary file, and release
// their per-id locks. That the record stays whole and readable meanwhile is
// the store suite's (storetest) concern.
func TestConcurrentSaveLeavesNoFiles(t *testing.T) {
	s := openStore(t)
	const writers, saves = 4, 25
	var wg sync.WaitGroup
	for w := range writers {
		r := storetest.NewRecord("shared", fmt.Sprintf("writer %d", w), "Engineer", interviews.StatusInProgress, t0)
		wg.Go(func() {
			for range saves {
				if err := s.Save(t.Context(), r); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if matches, _ := filepath.Glob(filepath.Join(s.Dir(), ".*")); len(matches) != 0 {
		t.Fatalf("temporary files left: %v", matches)
	}
	if names, _ := filepath.Glob(filepath.Join(s.Dir(), "*")); len(names) != 1 {
		t.Fatalf("files after concurrent saves = %v, want the one record", names)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.locks) != 0 {
		t.Fatalf("per-id locks not released: %d", len(s.locks))
	}
}
