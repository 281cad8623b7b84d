package interviews

import (
	"bufio"
	"bytes"
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
	r, err := s.Get(killRecordID)
	if errors.Is(err, ErrNotFound) {
		r = &Record{
			ID:         killRecordID,
			Candidate:  Candidate{Name: "Grace Hopper", Role: "Engineer", Level: "staff"},
			Blueprint:  "default",
			ResumeText: strings.Repeat("COBOL compilers and nanoseconds. ", 3<<10), // ~100 KB, the most a record holds
		}
		if err := s.Create(r); err != nil {
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
		role := RoleAgent
		if next%2 == 0 {
			role = RoleCandidate
		}
		now := time.Now()
		r.AppendTurn(Turn{Role: role, Stage: "greeting", Text: fmt.Sprintf("turn %d", next), StartedAt: now, EndedAt: now})
		if err := s.Save(r); err != nil {
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
	r, err := s.Get(killRecordID)
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
	page, err := s.List(ListOptions{})
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
			checkKilledRecord(t, dir, n)
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

func newRecord(id, name, role string, status Status, created time.Time) *Record {
	r := &Record{ID: id, Candidate: Candidate{Name: name, Role: role, Level: "mid"}, Blueprint: "default", Status: StatusScheduled, CreatedAt: created}
	if status != StatusScheduled {
		r.Start(created.Add(time.Minute))
		r.EnterStage("greeting", "Welcome", created.Add(time.Minute), false, "")
	}
	if status.Finished() {
		r.Finish(status, "test", created.Add(11*time.Minute))
	}
	return r
}

// sameRecord reports whether a and b are the same record once stored (an
// empty list and no list are stored alike).
func sameRecord(a, b *Record) bool {
	ja, err := json.Marshal(a)
	if err != nil {
		panic(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		panic(err)
	}
	return bytes.Equal(ja, jb)
}

func openStore(t *testing.T) *FileStore {
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

func TestNewIDAndValidID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if len(id) != 16 || !ValidID(id) || strings.ToLower(id) != id {
			t.Fatalf("NewID() = %q", id)
		}
		if seen[id] {
			t.Fatalf("NewID repeated %q", id)
		}
		seen[id] = true
	}
	tests := []struct {
		id   string
		want bool
	}{
		{"abc", true}, {"a-1_b", true}, {"0", true}, {strings.Repeat("a", 64), true},
		{"", false}, {"../x", false}, {"..", false}, {"a/b", false}, {`a\b`, false}, {"ABC", false}, {"aBc", false},
		{".hidden", false}, {"x.json", false}, {"-x", false}, {"_x", false}, {"a b", false}, {"é", false},
		{strings.Repeat("a", 65), false}, {"a\x00", false},
	}
	for _, tt := range tests {
		if got := ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestInvalidIDsAreRejected(t *testing.T) {
	s := openStore(t)
	// A file outside the store that a path id would reach.
	outside := filepath.Join(filepath.Dir(s.Dir()), "x.json")
	good := newRecord("x", "A", "r", StatusScheduled, t0)
	data, _ := json.Marshal(good)
	if err := os.WriteFile(outside, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"../x", "", "X", "ABC", "a/b", "..", ".x"} {
		if _, err := s.Get(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get(%q) = %v, want ErrNotFound", id, err)
		}
		if _, err := s.Path(id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Path(%q) = %v, want ErrNotFound", id, err)
		}
		r := newRecord("x", "A", "r", StatusScheduled, t0)
		r.ID = id
		if id != "" { // Create assigns an id when empty
			if err := s.Create(r); err == nil {
				t.Errorf("Create with id %q succeeded", id)
			}
		}
		if err := s.Save(r); err == nil || !strings.Contains(err.Error(), "invalid id") {
			t.Errorf("Save with id %q = %v, want an invalid id error", id, err)
		}
	}
	entries, _ := os.ReadDir(s.Dir())
	if len(entries) != 0 {
		t.Fatalf("rejected ids left files: %v", entries)
	}
	if got, _ := os.ReadFile(outside); !bytes.Equal(got, data) {
		t.Fatal("a rejected id changed a file outside the store")
	}
}

func TestCreate(t *testing.T) {
	s := openStore(t)
	before := time.Now()
	r := &Record{Candidate: Candidate{Name: "Ada", Role: "Engineer"}, Blueprint: "default"}
	if err := s.Create(r); err != nil {
		t.Fatal(err)
	}
	if !ValidID(r.ID) || len(r.ID) != 16 {
		t.Fatalf("Create assigned id %q", r.ID)
	}
	if r.Status != StatusScheduled {
		t.Fatalf("Create assigned status %q", r.Status)
	}
	if r.CreatedAt.Before(before.Add(-time.Second)) || r.CreatedAt.After(time.Now()) || r.CreatedAt.Location() != time.UTC {
		t.Fatalf("Create assigned CreatedAt %v", r.CreatedAt)
	}
	got, err := s.Get(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !sameRecord(got, r) {
		t.Fatalf("Get after Create:\n got %+v\nwant %+v", got, r)
	}

	again := &Record{ID: r.ID, Candidate: Candidate{Name: "Someone else", Role: "Engineer"}}
	if err := s.Create(again); !errors.Is(err, ErrExists) {
		t.Fatalf("second Create = %v, want ErrExists", err)
	}
	if got, _ := s.Get(r.ID); got.Candidate.Name != "Ada" {
		t.Fatalf("failed Create overwrote the record: %+v", got)
	}

	kept := &Record{ID: "given", Candidate: Candidate{Name: "B", Role: "Engineer"}, Status: StatusInProgress, CreatedAt: t0, StartedAt: ptr(t0)}
	if err := s.Create(kept); err != nil {
		t.Fatal(err)
	}
	if kept.ID != "given" || kept.Status != StatusInProgress || !kept.CreatedAt.Equal(t0) {
		t.Fatalf("Create replaced given fields: %+v", kept)
	}

	invalid := &Record{Candidate: Candidate{Name: "", Role: "Engineer"}}
	if err := s.Create(invalid); err == nil || !strings.Contains(err.Error(), "candidate name: Enter the candidate's name") {
		t.Fatalf("Create(invalid) = %v", err)
	}
	if _, err := s.Get(invalid.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("invalid record was stored: %v", err)
	}
}

func TestSaveGetRoundTrip(t *testing.T) {
	s := openStore(t)
	r := fullRecord()
	if err := s.Save(r); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, r) {
		t.Fatalf("Get after Save:\n got %+v\nwant %+v", got, r)
	}
	if _, err := s.Get("unknown"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get(unknown) = %v, want ErrNotFound", err)
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
	bad.Assessments[0].DepthScore = 0
	if err := s.Save(bad); err == nil {
		t.Fatal("Save of an invalid record succeeded")
	}
	if got, _ := s.Get(r.ID); got.Assessments[0].DepthScore != 2 {
		t.Fatal("a refused Save changed the stored record")
	}
}

func TestAtomicWrite(t *testing.T) {
	s := openStore(t)
	r := newRecord("atomic", "A", "Engineer", StatusInProgress, t0)
	// A crash during an earlier write left a half-written temporary file.
	leftover := filepath.Join(s.Dir(), ".atomic.json.tmp-123456")
	if err := os.WriteFile(leftover, []byte(`{"id":"atomic","candid`), 0o600); err != nil {
		t.Fatal(err)
	}
	page, err := s.List(ListOptions{})
	if err != nil || page.Total != 0 {
		t.Fatalf("List with only a temporary file = %+v, %v", page, err)
	}
	for i := range 5 {
		r.AppendTurn(Turn{Role: RoleCandidate, Text: fmt.Sprint("answer ", i)})
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(s.Dir(), "atomic.json"))
		if err != nil {
			t.Fatal(err)
		}
		var back Record
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
	page, err = s.List(ListOptions{})
	if err != nil || page.Total != 1 || page.Items[0].Turns != 5 {
		t.Fatalf("List = %+v, %v", page, err)
	}
}

func TestCorruptFile(t *testing.T) {
	s := openStore(t)
	if err := s.Save(newRecord("good", "A", "Engineer", StatusScheduled, t0)); err != nil {
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

	page, err := s.List(ListOptions{})
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
	if _, err := s.List(ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 0 {
		t.Errorf("second List logged again:\n%s", logs.String())
	}

	for _, id := range []string{"broken", "wrongid", "badtype", "notjson", "emptyish"} {
		_, err := s.Get(id)
		if err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), filepath.Join(s.Dir(), id+".json")) {
			t.Errorf("Get(%s) = %v, want an error naming the file", id, err)
		}
	}
}

func TestList(t *testing.T) {
	s := openStore(t)
	recs := []*Record{
		newRecord("a1", "Ada Lovelace", "Backend Engineer", StatusCompleted, at(100)),
		newRecord("b2", "Alan Turing", "Data Scientist", StatusCandidateLeft, at(300)),
		newRecord("c3", "Grace Hopper", "Engineering Manager", StatusInProgress, at(200)),
		newRecord("d4", "Linus", "backend engineer", StatusScheduled, at(400)),
		newRecord("e5", "Barbara Liskov", "Staff Engineer", StatusFailed, at(200)), // same time as c3
		newRecord("f6", "Ada Yonath", "Chemist", StatusCompleted, at(50)),
	}
	for _, r := range recs {
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(p ListPage) []string {
		out := []string{}
		for _, it := range p.Items {
			out = append(out, it.ID)
		}
		return out
	}
	tests := []struct {
		name  string
		opts  ListOptions
		want  []string
		total int
	}{
		{"all newest first, id breaks ties", ListOptions{}, []string{"d4", "b2", "c3", "e5", "a1", "f6"}, 6},
		{"status", ListOptions{Status: StatusCompleted}, []string{"a1", "f6"}, 2},
		{"role substring ignoring case", ListOptions{Role: "ENGINEER"}, []string{"d4", "c3", "e5", "a1"}, 4},
		{"role and status", ListOptions{Role: "engineer", Status: StatusFailed}, []string{"e5"}, 1},
		{"name search", ListOptions{Query: "ada"}, []string{"a1", "f6"}, 2},
		{"name search inside a word", ListOptions{Query: "URIN"}, []string{"b2"}, 1},
		{"search matches the name only", ListOptions{Query: "chemist"}, []string{}, 0},
		{"page 1", ListOptions{Limit: 2}, []string{"d4", "b2"}, 6},
		{"page 2", ListOptions{Limit: 2, Offset: 2}, []string{"c3", "e5"}, 6},
		{"last short page", ListOptions{Limit: 4, Offset: 4}, []string{"a1", "f6"}, 6},
		{"past the end", ListOptions{Offset: 10}, []string{}, 6},
		{"limit above max", ListOptions{Limit: 10_000}, []string{"d4", "b2", "c3", "e5", "a1", "f6"}, 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := s.List(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(page); !reflect.DeepEqual(got, tt.want) || page.Total != tt.total {
				t.Fatalf("List(%+v) = %v total %d, want %v total %d", tt.opts, got, page.Total, tt.want, tt.total)
			}
		})
	}

	t.Run("summary fields", func(t *testing.T) {
		page, err := s.List(ListOptions{Query: "Lovelace"})
		if err != nil {
			t.Fatal(err)
		}
		r := recs[0]
		want := Summary{ID: "a1", Candidate: r.Candidate, Blueprint: "default", Status: StatusCompleted, FinalStage: "greeting",
			CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, EndedAt: r.EndedAt, Duration: 10 * time.Minute, EndedBy: r.EndedBy}
		if page.Items[0].Revision == "" {
			t.Fatal("the summary has no revision")
		}
		page.Items[0].Revision = ""
		if !reflect.DeepEqual(page.Items[0], want) {
			t.Fatalf("summary:\n got %+v\nwant %+v", page.Items[0], want)
		}
	})

	t.Run("bad options", func(t *testing.T) {
		for _, opts := range []ListOptions{{Status: "nope"}, {Offset: -1}, {Limit: -5}} {
			if _, err := s.List(opts); err == nil {
				t.Errorf("List(%+v) succeeded", opts)
			}
		}
	})

	t.Run("default and maximum page sizes", func(t *testing.T) {
		big := openStore(t)
		for i := range MaxListLimit + 5 {
			if err := big.Save(newRecord(fmt.Sprintf("r%03d", i), "N", "R", StatusScheduled, at(i))); err != nil {
				t.Fatal(err)
			}
		}
		page, err := big.List(ListOptions{})
		if err != nil || len(page.Items) != DefaultListLimit || page.Total != MaxListLimit+5 || page.Items[0].ID != "r204" {
			t.Fatalf("default page: %d items, total %d, first %s, err %v", len(page.Items), page.Total, page.Items[0].ID, err)
		}
		page, err = big.List(ListOptions{Limit: MaxListLimit + 1})
		if err != nil || len(page.Items) != MaxListLimit {
			t.Fatalf("oversized page: %d items, err %v", len(page.Items), err)
		}
	})

	t.Run("sees updates and removals", func(t *testing.T) {
		r := recs[2].Clone()
		r.AppendTurn(Turn{Role: RoleAgent, Text: "hello"})
		if err := s.Save(r); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(s.Dir(), "d4.json")); err != nil {
			t.Fatal(err)
		}
		page, err := s.List(ListOptions{})
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

func TestConcurrentSave(t *testing.T) {
	s := openStore(t)
	base := newRecord("shared", "A", "Engineer", StatusInProgress, t0)
	if err := s.Save(base); err != nil {
		t.Fatal(err)
	}
	const writers, saves = 4, 25
	versions := make([]*Record, writers)
	for w := range writers {
		v := base.Clone()
		for i := range w + 1 {
			v.AppendTurn(Turn{Role: RoleCandidate, Text: fmt.Sprintf("writer %d turn %d", w, i)})
		}
		versions[w] = v
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	var readErrs []error
	var readMu sync.Mutex
	for range 2 {
		readers.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := s.Get("shared"); err != nil {
					readMu.Lock()
					readErrs = append(readErrs, err)
					readMu.Unlock()
				}
				if _, err := s.List(ListOptions{}); err != nil {
					readMu.Lock()
					readErrs = append(readErrs, err)
					readMu.Unlock()
				}
			}
		})
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for range saves {
				if err := s.Save(versions[w]); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	if len(readErrs) > 0 {
		t.Fatalf("reads during saves failed (%d), first: %v", len(readErrs), readErrs[0])
	}
	got, err := s.Get("shared")
	if err != nil {
		t.Fatal(err)
	}
	whole := false
	for _, v := range versions {
		whole = whole || sameRecord(got, v)
	}
	if !whole {
		t.Fatalf("stored record is not one whole version: %+v", got)
	}
	if matches, _ := filepath.Glob(filepath.Join(s.Dir(), ".*")); len(matches) != 0 {
		t.Fatalf("temporary files left: %v", matches)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.locks) != 0 {
		t.Fatalf("per-id locks not released: %d", len(s.locks))
	}
}

func TestListSortsByScoreAndDecision(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	add := func(name string, minute int, score float64, ready bool, d DecisionKind) {
		r := &Record{Candidate: Candidate{Name: name, Role: "Engineer"}, Blueprint: "default", CreatedAt: t0.Add(time.Duration(minute) * time.Minute)}
		if ready {
			r.Report = &Report{Status: ReportReady, Version: 1, OverallScore: score}
		}
		if d != "" {
			r.Decisions = []Decision{{Decision: DecisionHold, By: "a@example.com", At: t0}, {Decision: d, By: "a@example.com", At: t0}}
		}
		if err := s.Create(r); err != nil {
			t.Fatal(err)
		}
	}
	add("Low", 1, 40, true, DecisionReject)
	add("High", 2, 90, true, "")
	add("None", 3, 0, false, DecisionAdvance)
	names := func(sort string) string {
		page, err := s.List(ListOptions{Sort: sort})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range page.Items {
			out = append(out, it.Candidate.Name)
		}
		return strings.Join(out, ",")
	}
	for sort, want := range map[string]string{SortNewest: "None,High,Low", SortScore: "High,Low,None", SortDecision: "None,Low,High"} {
		if got := names(sort); got != want {
			t.Errorf("sort %q: %s, want %s", sort, got, want)
		}
	}
	page, _ := s.List(ListOptions{Sort: SortScore, Limit: 1})
	if it := page.Items[0]; it.Score == nil || *it.Score != 90 || it.Decision != "" {
		t.Errorf("summary score %v, decision %q", it.Score, it.Decision)
	}
	if _, err := s.List(ListOptions{Sort: "name"}); err == nil {
		t.Error("an unknown order is accepted")
	}
}
