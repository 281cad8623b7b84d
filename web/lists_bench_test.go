package web

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/interviews/postgres"
	"github.com/viva-interviews/viva/testrig/pgtest"
)

// The list benchmark's sizes: a file store of 10,000 interviews and a
// database of 100,000, as an operator of each keeps; VIVA_BENCH_FILES and
// VIVA_BENCH_ROWS change them.
const (
	benchFiles = 10_000
	benchRows  = 100_000
	// benchSamples is how many times each page is asked for, but
	// exportSamples for a whole export, which reads every interview.
	benchSamples  = 40
	exportSamples = 5
)

// benchPage is one page the benchmark asks for, and as whom. An export
// (every interview) is asked for exportSamples times and once more to
// measure the heap it takes while it streams.
type benchPage struct {
	name, path, as string
	export         bool
}

// samples is how many times p is asked for.
func (p benchPage) samples() int {
	if p.export {
		return exportSamples
	}
	return benchSamples
}

// benchPages are the pages of the recruiters' and reviewers' lists.
var benchPages = []benchPage{
	{name: "invitations", path: "/invitations", as: testAdmin},
	{name: "invitations, a recruiter's own", path: "/invitations", as: testRecruiter},
	{name: "invitations, expired", path: "/invitations?state=expired", as: testAdmin},
	{name: "invitations, page 20", path: "/invitations?page=20", as: testAdmin},
	{name: "reviews", path: "/review", as: testReviewer},
	{name: "reviews, completed by score", path: "/review?status=completed&sort=score", as: testReviewer},
	{name: "reviews, page 100", path: "/review?page=100", as: testReviewer},
	{name: "search by name", path: "/review?q=lovelace", as: testReviewer},
	{name: "search by role", path: "/review?role=data", as: testReviewer},
	{name: "comparison", path: "/review/compare?role=backend", as: testReviewer},
	{name: "API list", path: "/api/interviews?limit=50", as: testReviewer},
	{name: "CSV, every interview", path: "/review.csv", as: testReviewer, export: true},
}

// listFigure is one page's figures.
type listFigure struct {
	Backend    string  `json:"backend"`
	Interviews int     `json:"interviews"`
	Page       string  `json:"page"`
	Path       string  `json:"path"`
	P50MS      float64 `json:"p50_ms"`
	P95MS      float64 `json:"p95_ms"`
	Bytes      int     `json:"bytes"`
	// PeakHeapMB is how far the live heap grew over its size before the
	// request, at its largest while the page streamed (exports only).
	PeakHeapMB float64 `json:"peak_heap_mb,omitempty"`
}

// BenchmarkLists seeds a file store and PostgreSQL with interviews and
// asks each list page benchSamples times through the web app, as a
// signed-in user (a whole export exportSamples times); it reports each
// page's p50 and p95 (and an export's peak heap growth), prints them
// and, with VIVA_BENCH_DIR set (make bench sets it), writes them to
// lists.json there.
func BenchmarkLists(b *testing.B) {
	var figures []listFigure
	backends := []struct {
		name string
		n    int
		open func(b *testing.B) interviews.Store
	}{
		{"files", sizeFromEnv("VIVA_BENCH_FILES", benchFiles), func(b *testing.B) interviews.Store {
			s, err := filestore.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			return s
		}},
		{"postgres", sizeFromEnv("VIVA_BENCH_ROWS", benchRows), func(b *testing.B) interviews.Store {
			s, err := postgres.Open(b.Context(), pgtest.Database(b))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(s.Close)
			return s
		}},
	}
	// settled is the store as months of use leave it: PostgreSQL's
	// autovacuum has analysed the table and marked its pages visible, so
	// counts read only their indexes, as they do in a database that grew
	// over time rather than in one bulk load a moment ago.
	settled := func(b *testing.B, store interviews.Store) {
		if s, ok := store.(*postgres.Store); ok {
			if _, err := s.Pool().Exec(b.Context(), "VACUUM ANALYZE interviews"); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			store := be.open(b)
			start := time.Now()
			seedAtScale(b, store, be.n)
			settled(b, store)
			b.Logf("%s: %d interviews seeded in %v", be.name, be.n, time.Since(start).Round(time.Second))
			ts := newTestServer(b, func(o *Options) { o.Store = store })
			for _, p := range benchPages {
				b.Run(p.name, func(b *testing.B) {
					var f listFigure
					for b.Loop() {
						f = measurePage(b, ts, p)
					}
					f.Backend, f.Interviews = be.name, be.n
					b.ReportMetric(f.P50MS, "p50-ms")
					b.ReportMetric(f.P95MS, "p95-ms")
					if p.export {
						f.PeakHeapMB = peakHeap(b, ts, p)
						b.ReportMetric(f.PeakHeapMB, "peak-heap-MB")
					}
					figures = append(figures, f)
				})
			}
		})
	}
	writeListFigures(b, figures)
}

// measurePage asks for p its samples' times and returns its figures.
func measurePage(b *testing.B, ts *testServer, p benchPage) listFigure {
	var took []time.Duration
	size := 0
	for range p.samples() {
		req := httptest.NewRequest(http.MethodGet, p.path, nil)
		ts.authorize(req, p.as)
		t0 := time.Now()
		rec := ts.do(req)
		took = append(took, time.Since(t0))
		if rec.Code != http.StatusOK {
			b.Fatalf("%s: %d %s", p.path, rec.Code, rec.Body)
		}
		size = rec.Body.Len()
	}
	slices.Sort(took)
	ms := func(q float64) float64 {
		return float64(took[int(q*float64(len(took)-1))].Microseconds()) / 1000
	}
	return listFigure{Page: p.name, Path: p.path, P50MS: ms(0.5), P95MS: ms(0.95), Bytes: size}
}

// peakHeap asks for p once, its body counted and dropped as a client
// would read it, and returns in MB how far the live heap (what the
// garbage collector found still in use, at each collection while the
// page streamed) grew at most over its size before the request: a page
// that held its rows in memory would show them, whatever garbage it made
// along the way.
func peakHeap(b *testing.B, ts *testServer, p benchPage) float64 {
	req := httptest.NewRequest(http.MethodGet, p.path, nil)
	ts.authorize(req, p.as)
	req.RemoteAddr = "198.51.100.7:40000"
	runtime.GC()
	w := &heapWatch{header: http.Header{}, base: liveHeap()}
	w.peak = w.base
	ts.h.ServeHTTP(w, req)
	if w.code != 0 && w.code != http.StatusOK || w.bytes == 0 {
		b.Fatalf("%s: %d, %d bytes", p.path, w.code, w.bytes)
	}
	return float64(w.peak-w.base) / (1 << 20)
}

// heapWatch is a response writer that drops the body, counting it, and
// notes the live heap at every write.
type heapWatch struct {
	header     http.Header
	code       int
	bytes      int
	base, peak uint64
}

func (w *heapWatch) Header() http.Header  { return w.header }
func (w *heapWatch) WriteHeader(code int) { w.code = code }
func (w *heapWatch) Write(p []byte) (int, error) {
	w.bytes += len(p)
	w.peak = max(w.peak, liveHeap())
	return len(p), nil
}

// liveHeap is the heap in use as of the last garbage collection, in
// bytes.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// writeListFigures prints the figures and writes them to
// $VIVA_BENCH_DIR/lists.json when it is set.
func writeListFigures(b *testing.B, figures []listFigure) {
	for _, f := range figures {
		b.Logf("%-8s %7d  %-32s p50 %7.1f ms  p95 %7.1f ms  %8d bytes%s", f.Backend, f.Interviews, f.Page, f.P50MS, f.P95MS, f.Bytes, heapNote(f))
	}
	dir := os.Getenv("VIVA_BENCH_DIR")
	if dir == "" || len(figures) == 0 {
		return
	}
	data, err := json.MarshalIndent(map[string]any{"benchmark": "lists", "at": time.Now().UTC(), "samples": benchSamples, "export_samples": exportSamples, "figures": figures}, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lists.json"), append(data, '\n'), 0o644); err != nil {
		b.Fatal(err)
	}
}

// heapNote is a figure's peak heap growth for the log, when measured.
func heapNote(f listFigure) string {
	if f.PeakHeapMB == 0 {
		return ""
	}
	return fmt.Sprintf("  live heap +%.1f MB at most", f.PeakHeapMB)
}

// sizeFromEnv reads a count from the environment variable name, else def.
func sizeFromEnv(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// seedAtScale stores n interviews made up alike for every backend: a
// mix of roles, states, creators and scores over the year before the
// test server's clock, with names from a few hundred so a search finds
// some.
func seedAtScale(b *testing.B, store interviews.Store, n int) {
	first := []string{"Ada", "Alan", "Grace", "Linus", "Barbara", "Edsger", "Donald", "Margaret", "Ken", "Radia", "Frances", "John", "Katherine", "Tim", "Hedy", "Dennis"}
	last := []string{"Lovelace", "Turing", "Hopper", "Torvalds", "Liskov", "Dijkstra", "Knuth", "Hamilton", "Thompson", "Perlman", "Allen", "Backus", "Johnson", "Berners-Lee", "Lamarr", "Ritchie",
		"Shannon", "Wirth", "Kay", "Cerf", "Kahn", "Lamport", "Hoare", "Milner"}
	roles := []string{"Backend Engineer", "Frontend Engineer", "Data Scientist", "Engineering Manager", "Site Reliability Engineer", "Product Designer", "Security Engineer", "Mobile Engineer"}
	recruiters := []string{testAdmin, testRecruiter, "rita@example.com", "sam@example.com", "lee@example.com"}
	statuses := []interviews.Status{interviews.StatusScheduled, interviews.StatusCompleted, interviews.StatusCompleted, interviews.StatusCandidateLeft, interviews.StatusFailed}
	now := newFakeClock().Now() // the test server's clock: the year before it
	var wg sync.WaitGroup
	const workers = 4
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			for i := w; i < n; i += workers {
				created := now.Add(-time.Duration(rng.Int64N(int64(365 * 24 * time.Hour))))
				st := statuses[rng.IntN(len(statuses))]
				r := &interviews.Record{ID: fmt.Sprintf("bench%07d", i), Blueprint: "default", CreatedAt: created, CreatedBy: recruiters[rng.IntN(len(recruiters))],
					Candidate: interviews.Candidate{Name: first[rng.IntN(len(first))] + " " + last[rng.IntN(len(last))], Role: roles[rng.IntN(len(roles))], Level: "mid",
						Email: fmt.Sprintf("candidate%d@example.com", i)}}
				expires := created.Add(interviews.DefaultLinkTTL)
				r.ExpiresAt = &expires
				if st != interviews.StatusScheduled {
					r.Start(created.Add(time.Hour))
					r.EnterStage("greeting", "Welcome", created.Add(time.Hour), false, "")
					r.Finish(st, "bench", created.Add(90*time.Minute))
					if st == interviews.StatusCompleted {
						r.Report = &interviews.Report{Status: interviews.ReportReady, OverallScore: float64(rng.IntN(101))}
					}
				} else if rng.IntN(3) == 0 {
					opened := created.Add(time.Hour)
					r.OpenedAt = &opened
				}
				if rng.IntN(20) == 0 {
					r.Revoke(r.CreatedBy, created.Add(2*time.Hour))
				}
				if err := store.Create(b.Context(), r); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}
