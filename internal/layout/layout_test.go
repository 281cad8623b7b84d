package layout

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// module is viva's module path; rules name its packages relative to it.
const module = "github.com/viva-interviews/viva"

// Import path prefixes of the real-time media stack the conversation side
// must not depend on.
const (
	liveKitModules = "github.com/livekit/..."
	pionModules    = "github.com/pion/..."
)

// rule says that no package matching roots may depend, directly or through
// other packages, on a package matching forbidden unless it also matches
// allowed. Patterns are import paths; a trailing "/..." also matches every
// package below. Patterns starting with "./" are relative to the module.
type rule struct {
	name      string   // what the rule keeps apart, for failure messages
	roots     []string // the packages whose dependencies are checked
	forbidden []string // what they may not depend on
	allowed   []string // exceptions to forbidden
	// pending are roots that still break the rule, each with the reason
	// and the move that will mend it in a comment. A pending root that no
	// longer breaks the rule fails the test: take it off the list.
	pending []string
}

// rules are viva's hard lines.
var rules = []rule{
	{
		name: "the conversation side runs without LiveKit or pion",
		roots: []string{"./agent", "./agent/llm/...", "./agent/stt/...", "./agent/tts/...", "./agent/voice/...",
			"./agent/spoken/...", "./fsm/...", "./stages/...", "./interviews/...", "./config/..."},
		forbidden: []string{liveKitModules, pionModules},
	},
	{
		name:      "the LiveKit agent protocol imports nothing of viva's but its own",
		roots:     []string{"./lkagent/..."},
		forbidden: []string{"./..."},
		allowed:   []string{"./lkagent/..."},
	},
	{
		// Engines are shared by every interview of a process and could be
		// used by any other program: they report faults through package
		// incident, never by touching a record. The scripted interviewer is
		// the exception by design: it reads the blueprint and the machine.
		name:      "speech and model engines know nothing of interviews",
		roots:     []string{"./agent/llm", "./agent/llm/openai/...", "./agent/stt/...", "./agent/tts/..."},
		forbidden: []string{"./agent", "./interviews/...", "./fsm/...", "./stages/...", "./web/...", "./config/..."},
	},
	{
		// The events an interview raises are the domain's words
		// (interviews.Event…); webhooks is one way of delivering them.
		name:      "reports know the interview's events, not how they are delivered",
		roots:     []string{"./reports/..."},
		forbidden: []string{"./webhooks/..."},
	},
	{
		// The ground floor is what every other package may build on:
		// helpers of the standard library's kind and the faults of
		// package incident. The benchmark and the test rigs, which run
		// workers and rooms, live above it (bench, testrig); what talks to
		// a model (structured output) lives with the engines in agent/llm.
		name:      "the ground floor imports nothing of viva above it",
		roots:     []string{"./internal/...", "./incident/..."},
		forbidden: []string{"./..."},
		allowed:   []string{"./internal/...", "./incident/..."},
	},
	{
		// The domain holds the Store interface; the file store and
		// PostgreSQL are adapters beside it that the binary wires.
		name:      "the interview domain knows no storage backend",
		roots:     []string{"./interviews"},
		forbidden: []string{"./interviews/filestore/...", "./interviews/postgres/...", "github.com/jackc/..."},
	},
	{
		// The benchmarks need a fake OpenAI server and candidate bots;
		// they run as viva-bench, so the binary that is shipped links
		// no test rig.
		name:      "the shipped binary links no test rig",
		roots:     []string{"./cmd/viva"},
		forbidden: []string{"./testrig/..."},
	},
}

// pkg is one package as `go list -json` describes it.
type pkg struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

// graph maps an import path to the packages it imports.
type graph map[string][]string

// match reports whether path matches pattern.
func match(pattern, path string) bool {
	if rel, ok := strings.CutPrefix(pattern, "./"); ok {
		pattern = module + "/" + rel
	} else if pattern == "." {
		pattern = module
	}
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return path == base || strings.HasPrefix(path, base+"/")
	}
	return path == pattern
}

// matchAny reports whether path matches one of patterns.
func matchAny(patterns []string, path string) bool {
	return slices.ContainsFunc(patterns, func(p string) bool { return match(p, path) })
}

// violations checks r against g and returns, for each root that breaks it,
// the shortest chain of imports from the root to a forbidden package.
func (r rule) violations(g graph) []string {
	var out []string
	for _, root := range sortedKeys(g) {
		if !matchAny(r.roots, root) || matchAny(r.pending, root) {
			continue
		}
		if chain := r.firstForbidden(g, root); chain != nil {
			out = append(out, strings.Join(chain, " → "))
		}
	}
	return out
}

// firstForbidden searches root's dependencies breadth first and returns the
// chain to the first forbidden one, or nil.
func (r rule) firstForbidden(g graph, root string) []string {
	from := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p != root && matchAny(r.forbidden, p) && !matchAny(r.allowed, p) {
			chain := []string{p}
			for q := from[p]; q != ""; q = from[q] {
				chain = append([]string{q}, chain...)
			}
			return chain
		}
		for _, next := range g[p] {
			if _, seen := from[next]; !seen {
				from[next] = p
				queue = append(queue, next)
			}
		}
	}
	return nil
}

// mendedPending returns the pending roots of r that no longer break it.
func (r rule) mendedPending(g graph) []string {
	var out []string
	for _, pattern := range r.pending {
		broken := false
		for _, root := range sortedKeys(g) {
			if match(pattern, root) && r.firstForbidden(g, root) != nil {
				broken = true
			}
		}
		if !broken {
			out = append(out, pattern)
		}
	}
	return out
}

// unmatchedRoots returns the root patterns of r that match no package in g:
// a rule over packages that were renamed or moved would otherwise pass
// while checking nothing.
func (r rule) unmatchedRoots(g graph) []string {
	var out []string
	for _, pattern := range r.roots {
		if !slices.ContainsFunc(sortedKeys(g), func(p string) bool { return match(pattern, p) }) {
			out = append(out, pattern)
		}
	}
	return out
}

func sortedKeys(g graph) []string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// decodeGraph reads the stream of JSON objects `go list -json` writes.
// Standard library packages are left out: no rule is about them.
func decodeGraph(r io.Reader) (graph, error) {
	g := graph{}
	dec := json.NewDecoder(r)
	for {
		var p pkg
		err := dec.Decode(&p)
		if errors.Is(err, io.EOF) {
			return g, nil
		}
		if err != nil {
			return nil, fmt.Errorf("decode go list output: %w", err)
		}
		if !p.Standard {
			g[p.ImportPath] = p.Imports
		}
	}
}

// moduleGraph lists every package of the module and its dependencies, as
// built for this platform without test files.
func moduleGraph(t *testing.T) graph {
	t.Helper()
	g, err := decodeGraph(goList(t, "-deps", "-json=ImportPath,Imports,Standard", module+"/..."))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// goList runs `go list` with args and returns what it printed.
func goList(t *testing.T, args ...string) *bytes.Buffer {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to read the module's packages: %v", err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(goCmd, append([]string{"list"}, args...)...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	return &stdout
}

// TestImportRules checks viva's hard lines on the real import graph.
func TestImportRules(t *testing.T) {
	g := moduleGraph(t)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			if missing := r.unmatchedRoots(g); len(missing) > 0 {
				t.Errorf("no package matches %v: update the rule to the packages' new paths", missing)
			}
			for _, v := range r.violations(g) {
				t.Errorf("forbidden import: %s", v)
			}
			if mended := r.mendedPending(g); len(mended) > 0 {
				t.Errorf("%v keep the rule now: take them off its pending list", mended)
			}
		})
	}
}

// TestRulesCatchViolations runs the rules over made-up import graphs, to
// show each rule fails when its line is crossed and passes when it is not.
func TestRulesCatchViolations(t *testing.T) {
	const (
		agent     = module + "/agent"
		voice     = module + "/agent/voice"
		scripted  = module + "/agent/llm/scripted"
		fsmPkg    = module + "/fsm"
		stagesPkg = module + "/stages"
		roomPkg   = module + "/agent/worker"
		lkagent   = module + "/lkagent"
		lkurl     = module + "/lkagent/lkurl"
		wav       = module + "/internal/wav"
		llmPkg    = module + "/agent/llm"
		fileStore = module + "/interviews/filestore"
		openai    = module + "/agent/llm/openai"
		incident  = module + "/incident"
		records   = module + "/interviews"
		reports   = module + "/reports"
		webhooks  = module + "/webhooks"
		benchPkg  = module + "/internal/bench"
		binary    = module + "/cmd/viva"
		rig       = module + "/testrig/fakeopenai"
		lksdk     = "github.com/livekit/server-sdk-go/v2"
		lkproto   = "github.com/livekit/protocol/livekit"
		webrtc    = "github.com/pion/webrtc/v4"
		vendorSDK = "example.com/vendor/sdk"
		yaml      = "go.yaml.in/yaml/v3"
	)
	clean := graph{
		agent:     {fsmPkg, stagesPkg, scripted},
		scripted:  {stagesPkg},
		fsmPkg:    {stagesPkg},
		stagesPkg: {yaml},
		voice:     nil,
		roomPkg:   {agent, voice, lkagent, lksdk, webrtc}, // the room side may
		lkagent:   {lkurl, lkproto},
		lkurl:     nil,
		lksdk:     {lkproto, webrtc},
		openai:    {incident},
		records:   {incident, stagesPkg},
		reports:   {records},
		webhooks:  {records},
		wav:       nil,
		incident:  nil,
		llmPkg:    {incident},
		fileStore: {records},
		binary:    {roomPkg, fileStore},
	}
	with := func(edit func(graph)) graph {
		g := graph{}
		for k, v := range clean {
			g[k] = slices.Clone(v)
		}
		edit(g)
		return g
	}
	tests := []struct {
		name string
		rule int // index in rules
		g    graph
		want []string
	}{
		{name: "conversation side clean", rule: 0, g: clean},
		{name: "agent imports the LiveKit SDK", rule: 0,
			g:    with(func(g graph) { g[agent] = append(g[agent], lksdk) }),
			want: []string{agent + " → " + lksdk}},
		{name: "voice reaches pion through a vendor SDK", rule: 0,
			g:    with(func(g graph) { g[voice] = []string{vendorSDK}; g[vendorSDK] = []string{webrtc} }),
			want: []string{voice + " → " + vendorSDK + " → " + webrtc}},
		{name: "stages imports LiveKit protocol: every package above it breaks the line", rule: 0,
			g: with(func(g graph) { g[stagesPkg] = append(g[stagesPkg], lkproto) }),
			want: []string{
				agent + " → " + stagesPkg + " → " + lkproto,
				scripted + " → " + stagesPkg + " → " + lkproto,
				fsmPkg + " → " + stagesPkg + " → " + lkproto,
				records + " → " + stagesPkg + " → " + lkproto,
				fileStore + " → " + records + " → " + stagesPkg + " → " + lkproto,
				stagesPkg + " → " + lkproto,
			}},
		{name: "protocol package clean", rule: 1, g: clean},
		{name: "protocol package imports viva's domain", rule: 1,
			g:    with(func(g graph) { g[lkagent] = append(g[lkagent], fsmPkg) }),
			want: []string{lkagent + " → " + fsmPkg}},
		{name: "protocol subpackage imports an internal helper", rule: 1,
			g:    with(func(g graph) { g[lkurl] = []string{wav} }),
			want: []string{lkagent + " → " + lkurl + " → " + wav, lkurl + " → " + wav}},
		{name: "engines clean", rule: 2, g: clean},
		{name: "an engine records its own faults in the record", rule: 2,
			g:    with(func(g graph) { g[openai] = append(g[openai], records) }),
			want: []string{openai + " → " + records}},
		{name: "reports clean", rule: 3, g: clean},
		{name: "reports take event names from webhooks", rule: 3,
			g:    with(func(g graph) { g[reports] = append(g[reports], webhooks) }),
			want: []string{reports + " → " + webhooks}},
		{name: "ground floor clean", rule: 4, g: clean},
		{name: "a ground-floor helper talks to a model", rule: 4,
			g:    with(func(g graph) { g[wav] = []string{llmPkg} }),
			want: []string{wav + " → " + llmPkg}},
		{name: "a helper under internal runs a worker", rule: 4,
			g:    with(func(g graph) { g[benchPkg] = []string{wav, roomPkg} }),
			want: []string{benchPkg + " → " + roomPkg}},
		{name: "incident reaches into the record", rule: 4,
			g:    with(func(g graph) { g[incident] = []string{records} }),
			want: []string{incident + " → " + records}},
		{name: "domain clean", rule: 5, g: clean},
		{name: "the domain opens its own files", rule: 5,
			g:    with(func(g graph) { g[records] = append(g[records], fileStore) }),
			want: []string{records + " → " + fileStore}},
		{name: "binary clean", rule: 6, g: clean},
		{name: "the binary links a fake provider", rule: 6,
			g:    with(func(g graph) { g[binary] = append(g[binary], rig) }),
			want: []string{binary + " → " + rig}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := rules[tc.rule].violations(tc.g)
			if !slices.Equal(got, tc.want) {
				t.Errorf("violations = %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestMendedPending: a pending root that keeps the rule is reported, so
// the exception goes once the move it waits for is made.
func TestMendedPending(t *testing.T) {
	r := rule{roots: []string{"./internal/..."}, forbidden: []string{"./..."}, allowed: []string{"./internal/..."},
		pending: []string{"./internal/structured"}}
	structured, llm := module+"/internal/structured", module+"/agent/llm"
	if got := r.mendedPending(graph{structured: {llm}, llm: nil}); len(got) != 0 {
		t.Errorf("pending root still importing %s reported as mended: %q", llm, got)
	}
	if got, want := r.mendedPending(graph{structured: nil}), []string{"./internal/structured"}; !slices.Equal(got, want) {
		t.Errorf("mended = %q, want %q", got, want)
	}
}

// TestUnmatchedRoots checks that a rule whose packages are gone is reported
// rather than passing vacuously.
func TestUnmatchedRoots(t *testing.T) {
	g := graph{module + "/agent": nil, module + "/lkagent": nil}
	r := rule{roots: []string{"./agent", "./conductor/...", "./lkagent/..."}}
	if got, want := r.unmatchedRoots(g), []string{"./conductor/..."}; !slices.Equal(got, want) {
		t.Errorf("unmatched roots = %q, want %q", got, want)
	}
}

// TestDecodeGraph reads go list's stream of objects and drops the standard
// library.
func TestDecodeGraph(t *testing.T) {
	in := `{"ImportPath":"fmt","Imports":["io"],"Standard":true}
{"ImportPath":"` + module + `/stages","Imports":["fmt","go.yaml.in/yaml/v3"]}
{"ImportPath":"go.yaml.in/yaml/v3"}`
	g, err := decodeGraph(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := graph{module + "/stages": {"fmt", "go.yaml.in/yaml/v3"}, "go.yaml.in/yaml/v3": nil}
	if len(g) != len(want) || !slices.Equal(g[module+"/stages"], want[module+"/stages"]) {
		t.Errorf("graph = %v, want %v", g, want)
	}
	if _, err := decodeGraph(strings.NewReader(`{"ImportPath":`)); err == nil {
		t.Errorf("truncated input decoded without an error")
	}
}
