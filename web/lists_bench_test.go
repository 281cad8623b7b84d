package web

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
	// benchSamples is how many times each page is asked for.
	benchSamples = 40
)

// benchPage is one page the benchmark asks for, and as whom.
type benchPage struct {
	name, path, as string
}

// benchPages are the pages of the recruiters' and reviewers' lists.
var benchPages = []benchPage{
	{"invitations", "/invitations", testAdmin},
	{"invitations, a recruiter's own", "/invitations", testRecruiter},
	{"invitations, expired", "/invitations?state=expired", testAdmin},
	{"invitations, page 20", "/invitations?page=20", testAdmin},
	{"reviews", "/review", testReviewer},
	{"reviews, completed by score", "/review?status=completed&sort=score", testReviewer},
	{"reviews, page 100", "/review?page=100", testReviewer},
	{"search by name", "/review?q=lovelace", testReviewer},
	{"search by role", "/review?role=data", testReviewer},
	{"comparison", "/review/compare?role=backend", testReviewer},
	{"API list", "/api/interviews?limit=50", testReviewer},
	{"CSV, every interview", "/review.csv", testReviewer},
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
}

// BenchmarkLists seeds a file store and PostgreSQL with interviews and
// asks each list page benchSamples times through the web app, as a
// signed-in user; it reports each page's p50 and p95, prints them and,
// with VIVA_BENCH_DIR set (make bench sets it), writes them to
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
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			store := be.open(b)
			start := time.Now()
			seedAtScale(b, store, be.n)
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
					figures = append(figures, f)
				})
			}
		})
	}
	writeListFigures(b, figures)
}

// measurePage asks for p benchSamples times and returns its figures.
func measurePage(b *testing.B, ts *testServer, p benchPage) listFigure {
	var took []time.Duration
	size := 0
	for range benchSamples {
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

// writeListFigures prints the figures and writes them to
// $VIVA_BENCH_DIR/lists.json when it is set.
func writeListFigures(b *testing.B, figures []listFigure) {
	for _, f := range figures {
		b.Logf("%-8s %7d  %-32s p50 %7.1f ms  p95 %7.1f ms  %8d bytes", f.Backend, f.Interviews, f.Page, f.P50MS, f.P95MS, f.Bytes)
	}
	dir := os.Getenv("VIVA_BENCH_DIR")
	if dir == "" || len(figures) == 0 {
		return
	}
	data, err := json.MarshalIndent(map[string]any{"benchmark": "lists", "at": time.Now().UTC(), "samples": benchSamples, "figures": figures}, "", "  ")
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
