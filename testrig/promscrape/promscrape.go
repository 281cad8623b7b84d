// Package promscrape reads a /metrics endpoint the way Prometheus does, for
// tests that check a counter or a histogram moved after real activity.
package promscrape

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// Samples are the values of one scrape by series: the metric name and its
// labels exactly as the text format prints them, such as
// `viva_turns_total{role="agent"}` or `viva_record_saves_total`.
type Samples map[string]float64

// Parse reads the Prometheus text format.
func Parse(r io.Reader) (Samples, error) {
	out := Samples{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("promscrape: no value in %q", line)
		}
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			return nil, fmt.Errorf("promscrape: value of %q: %w", line, err)
		}
		out[line[:i]] = v
	}
	return out, sc.Err()
}

// Get scrapes url and fails the test when it does not answer 200 with the
// text format.
func Get(t testing.TB, url string) Samples {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scraping %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scraping %s: %s", url, resp.Status)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Fatalf("scraping %s: content type %q, want the text format", url, ct)
	}
	s, err := Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Sum adds the values of every series of metric name whose labels include
// each of labels (written `key="value"`): Sum("viva_turns_total") counts
// every role, Sum("viva_turns_total", `role="agent"`) the agent's.
func (s Samples) Sum(name string, labels ...string) float64 {
	total := 0.0
	for series, v := range s {
		n, rest, _ := strings.Cut(series, "{")
		if n != name {
			continue
		}
		ok := true
		for _, l := range labels {
			if !strings.Contains(rest, l) {
				ok = false
				break
			}
		}
		if ok {
			total += v
		}
	}
	return total
}
