package web_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/agent"
	"github.com/viva-interviews/viva/agent/llm"
	"github.com/viva-interviews/viva/agent/llm/scripted"
	"github.com/viva-interviews/viva/agent/stt/sphinx"
	"github.com/viva-interviews/viva/agent/tts/flite"
	"github.com/viva-interviews/viva/agent/worker"
	"github.com/viva-interviews/viva/fsm"
	"github.com/viva-interviews/viva/internal/wav"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/filestore"
	"github.com/viva-interviews/viva/stages"
	"github.com/viva-interviews/viva/testrig/lktest"
	"github.com/viva-interviews/viva/testrig/workertest"
	"github.com/viva-interviews/viva/web"
)

// The browser tests drive the whole system as a candidate and a reviewer
// would: a real livekit-server, a worker with the offline engines (scripted
// interviewer, pocketsphinx, flite), the web server, and headless Chromium
// whose fake microphone plays a flite recording. They need bin/livekit-server,
// /usr/bin/chromium and the room page bundle (npm run build in web/frontend).

const (
	// chromiumPath is Debian's chromium package.
	chromiumPath = "/usr/bin/chromium"
	// e2eRecruiter and e2eReviewer are the test server's accounts, both
	// with the password e2ePassword.
	e2eRecruiter = "recruiter@example.com"
	e2eReviewer  = "reviewer@example.com"
	e2ePassword  = "e2e-user-password-0123"
	// stepTimeout bounds every step of a browser test.
	stepTimeout = 60 * time.Second
	// joinAllowance is the time from the Join click to the first audio of
	// the greeting: token, room connection, dispatch, the worker joining
	// (about 1–2 s here), with room to spare on a loaded machine.
	joinAllowance = 10 * time.Second
	// spokenAnswer is what the candidate says into the fake microphone.
	spokenAnswer = "Yes, I can hear you clearly and I am ready to begin."
	// typedAnswer is what the candidate types in the typing test.
	typedAnswer = "Yes, I can hear you well and I am ready to begin."
)

// system is everything the candidate's browser talks to.
type system struct {
	lk    *lktest.Server
	store interviews.Store
	web   *httptest.Server
	agent string
	// signal carries the browsers' LiveKit signal connections (not media),
	// so a test can cut them as a network blip would.
	signal *blipProxy
	// recruiterToken is e2eRecruiter's API token.
	recruiterToken string
}

// fliteEngine and sphinxEngine are the offline speech engines, loaded once
// per test binary.
var fliteEngine = sync.OnceValues(func() (*flite.Engine, error) { return flite.New(flite.Options{}) })
var sphinxEngine = sync.OnceValues(func() (*sphinx.Engine, error) { return sphinx.New(sphinx.Options{}) })

// startSystem runs livekit-server, one worker with the offline engines and
// the web server, sharing one interview store. rejoinGrace is the worker's
// and web app's rejoin grace (none when omitted).
func startSystem(t *testing.T, rejoinGrace ...time.Duration) *system {
	t.Helper()
	var grace time.Duration
	if len(rejoinGrace) > 0 {
		grace = rejoinGrace[0]
	}
	return startSystemWith(t, grace, nil)
}

// startSystemWith is startSystem with the web app's options edited (nil
// edits nothing).
func startSystemWith(t *testing.T, grace time.Duration, edit func(*web.Options)) *system {
	t.Helper()
	synth, err := fliteEngine()
	if err != nil {
		t.Fatalf("flite: %v", err)
	}
	rec, err := sphinxEngine()
	if err != nil {
		t.Fatalf("pocketsphinx: %v", err)
	}
	lk := lktest.Start(t)
	store, err := filestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log := testLogger(t)
	sys := &system{lk: lk, store: store, agent: "viva-e2e-" + strings.ToLower(regexp.MustCompile(`\W+`).ReplaceAllString(t.Name(), "-"))}

	sessions := &worker.Sessions{
		Store: store, Rooms: lk.RoomClient(), Logger: log,
		Engines: worker.Engines{STT: rec, TTS: synth,
			Models: agent.Models{NewLLM: func(m *fsm.Machine, bp *stages.Blueprint, p stages.Profile) llm.Client {
				return scripted.New(m, bp, p)
			}},
			Names: interviews.Engines{LLM: "scripted", STT: "sphinx", TTS: "flite"}},
		// Full-length stage limits: the greeting has no minimum time, so a
		// shorter scale would buy nothing, and the greeting's deadline must
		// not force the interview on before the recorded answer is heard.
		TimeScale: 1,
	}
	sessions.RejoinGrace = grace
	workertest.Run(t, lk, sys.agent, sessions, log)

	sys.signal = startBlipProxy(t, strings.TrimPrefix(lk.URL, "ws://"))
	userStore, err := accounts.OpenFile(filepath.Join(t.TempDir(), "users.json"))
	if err != nil {
		t.Fatal(err)
	}
	users, err := accounts.NewService(userStore, accounts.Params{Time: 1, MemoryKiB: 64, Threads: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for email, role := range map[string]accounts.Role{e2eRecruiter: accounts.RoleRecruiter, e2eReviewer: accounts.RoleReviewer} {
		if _, err := users.AddUser(t.Context(), email, role, e2ePassword); err != nil {
			t.Fatal(err)
		}
	}
	if sys.recruiterToken, err = users.CreateToken(t.Context(), e2eRecruiter); err != nil {
		t.Fatal(err)
	}
	opts := web.Options{Store: store, Accounts: users, LiveKitURL: "ws://" + sys.signal.Addr(), APIKey: lk.APIKey, APISecret: lk.APISecret,
		AgentName: sys.agent, RejoinGrace: grace, Logger: log}
	if edit != nil {
		edit(&opts)
	}
	srv, err := web.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	sys.web = httptest.NewServer(srv.Handler())
	t.Cleanup(sys.web.Close)
	requireBundle(t, sys.web.URL)
	return sys
}

// blipProxy forwards TCP connections to a target and can cut them all and
// refuse new ones for a while, as a short network outage would.
type blipProxy struct {
	ln     net.Listener
	target string
	wg     sync.WaitGroup

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	refuse time.Time // refuse new connections until then
}

func startBlipProxy(t *testing.T, target string) *blipProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &blipProxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		p.Cut(0)
		p.wg.Wait()
	})
	return p
}

// Addr is the proxy's host:port.
func (p *blipProxy) Addr() string { return p.ln.Addr().String() }

func (p *blipProxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refused := time.Now().Before(p.refuse)
		p.mu.Unlock()
		if refused {
			_ = c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		pipe := func(dst, src net.Conn) {
			defer p.wg.Done()
			_, _ = io.Copy(dst, src)
			_ = dst.Close()
			_ = src.Close()
			p.mu.Lock()
			delete(p.conns, dst)
			delete(p.conns, src)
			p.mu.Unlock()
		}
		go pipe(up, c)
		go pipe(c, up)
	}
}

// Cut closes every open connection and refuses new ones for outage.
func (p *blipProxy) Cut(outage time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refuse = time.Now().Add(outage)
	for c := range p.conns {
		_ = c.Close()
	}
}

func testLogger(t *testing.T) *slog.Logger {
	level := slog.LevelWarn
	if os.Getenv("VIVA_TEST_LOG") != "" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})).With("test", t.Name())
}

// requireBundle stops the test with instructions when the room page's
// script was not built before the server binary embedded web/static.
func requireBundle(t *testing.T, base string) {
	t.Helper()
	resp, err := http.Get(base + "/static/dist/room.js")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n, _ := io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK || n < 10_000 {
		t.Fatalf("the room page bundle is missing (GET /static/dist/room.js: %d, %d bytes): run `npm ci && npm run build` in web/frontend, then run the tests again", resp.StatusCode, n)
	}
}

// registered is the answer of POST /api/interviews.
type registered struct {
	ID      string `json:"id"`
	JoinURL string `json:"join_url"`
}

// register creates an interview through the JSON API.
func (s *system) register(t *testing.T, name, role string) registered {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"name": name, "email": "candidate@example.com", "role": role, "level": "staff"})
	req, err := http.NewRequest(http.MethodPost, s.web.URL+"/api/interviews", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.recruiterToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var created registered
	err = json.NewDecoder(resp.Body).Decode(&created)
	if err != nil || resp.StatusCode != http.StatusCreated || created.JoinURL == "" {
		t.Fatalf("registering %s: %d %v %+v", name, resp.StatusCode, err, created)
	}
	return created
}

// record returns the interview's record once done accepts it.
func (s *system) record(t *testing.T, id string, timeout time.Duration, what string, done func(*interviews.Record) bool) *interviews.Record {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last *interviews.Record
	for {
		if rec, err := s.store.Get(t.Context(), id); err == nil {
			last = rec
			if done(rec) {
				return rec
			}
		}
		if time.Now().After(deadline) {
			b, _ := json.MarshalIndent(last, "", " ")
			t.Fatalf("the record never showed %s within %v; last:\n%s", what, timeout, b)
		}
		time.Sleep(100 * time.Millisecond) // polling a file store; no event to wait on
	}
}

// speech synthesises text with flite at its own rate (16 kHz).
func speech(t *testing.T, text string) ([]int16, int) {
	t.Helper()
	synth, err := fliteEngine()
	if err != nil {
		t.Fatal(err)
	}
	var pcm []int16
	if err := synth.Synthesize(context.Background(), text, func(p []int16) error { pcm = append(pcm, p...); return nil }); err != nil {
		t.Fatalf("flite: %v", err)
	}
	return pcm, synth.SampleRate()
}

func durationOf(samples, rateHz int) time.Duration {
	return time.Duration(samples) * time.Second / time.Duration(rateHz)
}

// greetingText is what the scripted interviewer says first to a candidate
// (its introduction, then the greeting stage's first question).
func greetingText(firstName, role string) string {
	return fmt.Sprintf("Hello %s, I'm Ava, and I'll be your interviewer for the %s role today. %s",
		firstName, role, stages.Default().Stages[0].Questions[0].Text)
}

// micFile writes the fake microphone's recording: lead of silence, then
// speech, then two seconds of silence, as a 16-bit mono WAV at the speech's
// rate. Chromium converts it to the capture rate itself.
func micFile(t *testing.T, lead time.Duration, speechPCM []int16, rateHz int) string {
	t.Helper()
	pcm := make([]int16, int(lead.Seconds()*float64(rateHz)), int((lead+2*time.Second).Seconds()*float64(rateHz))+len(speechPCM))
	pcm = append(pcm, speechPCM...)
	pcm = append(pcm, make([]int16, 2*rateHz)...)
	var buf bytes.Buffer
	if err := wav.Encode(&buf, pcm, rateHz); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "microphone.wav")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// browser is one headless Chromium with a fake microphone playing a file.
type browser struct {
	ctx   context.Context
	dir   string // screenshots
	shots int

	mu       sync.Mutex
	problems []string // uncaught exceptions and CSP violations
	lines    []string // console warnings and errors, for failure reports
}

// fakeMicrophone makes Chromium grant the microphone without asking and
// capture wavPath, once, as its only audio input.
func fakeMicrophone(wavPath string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-fake-ui-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-audio-capture", wavPath+"%noloop"),
	}
}

// newBrowser starts headless Chromium with a fresh profile, phone-sized,
// with the extra options (see fakeMicrophone).
func newBrowser(t *testing.T, extra ...chromedp.ExecAllocatorOption) *browser {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s is missing: install Debian's chromium package (scripts/deps.sh does)", chromiumPath)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profileDir(t)),
		chromedp.WindowSize(412, 915), // a phone
		// A loaded machine may take a while to start Chromium.
		chromedp.WSURLReadTimeout(2*time.Minute),
	)
	opts = append(opts, extra...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		// Leave the page first, as a candidate closing the tab does: the
		// room page disconnects on pagehide, so the interviewer sees the
		// candidate go instead of waiting out a dead connection.
		lctx, c := context.WithTimeout(ctx, 5*time.Second)
		_ = chromedp.Run(lctx, chromedp.Navigate("about:blank"))
		c()
		cancel()
		cancelAlloc()
	})
	b := &browser{ctx: ctx, dir: t.ArtifactDir()}
	t.Logf("screenshots: %s", b.dir)
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			b.problems = append(b.problems, "uncaught: "+e.ExceptionDetails.Error())
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, strings.Trim(string(a.Value), `"`)+a.Description)
				}
				b.lines = append(b.lines, fmt.Sprintf("console.%s: %s", e.Type, strings.Join(parts, " ")))
			}
		case *cdplog.EventEntryAdded:
			line := fmt.Sprintf("%s %s: %s", e.Entry.Source, e.Entry.Level, e.Entry.Text)
			b.lines = append(b.lines, line)
			if strings.Contains(e.Entry.Text, "Content Security Policy") {
				b.problems = append(b.problems, line)
			}
		}
	})
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("starting %s: %v", chromiumPath, err)
	}
	return b
}

// profileDir is a fresh Chromium profile directory, removed after the
// browser has gone. Chromium's helper processes can still write to it for
// a moment after the browser process exits (t.TempDir would then fail the
// test on "directory not empty"), so removal is retried for a while.
func profileDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "viva-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	// Registered before the browser's own cleanup, so it runs after it.
	t.Cleanup(func() {
		var err error
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if err = os.RemoveAll(dir); err == nil {
				return
			}
		}
		t.Logf("leaving the browser profile %s behind: %v", dir, err)
	})
	return dir
}

// step runs actions within stepTimeout; on failure it saves a screenshot
// and reports the page's text and the browser's log.
func (b *browser) step(t *testing.T, name string, actions ...chromedp.Action) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.shot(t, "failed")
		var text string
		tctx, c := context.WithTimeout(b.ctx, 5*time.Second)
		defer c()
		_ = chromedp.Run(tctx, chromedp.Evaluate(`document.body ? document.body.innerText : ""`, &text))
		t.Fatalf("%s: %v\n--- page text:\n%s\n--- browser log:\n%s", name, err, text, b.log())
	}
}

// shot saves a full-page screenshot as NN-name.png.
func (b *browser) shot(t *testing.T, name string) {
	t.Helper()
	b.shots++
	var png []byte
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&png, 100)); err != nil {
		t.Logf("screenshot %s: %v", name, err)
		return
	}
	if err := os.WriteFile(filepath.Join(b.dir, fmt.Sprintf("%02d-%s.png", b.shots, name)), png, 0o644); err != nil {
		t.Logf("screenshot %s: %v", name, err)
	}
}

func (b *browser) log() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.lines, "\n")
}

// checkClean fails the test on uncaught exceptions and CSP violations.
func (b *browser) checkClean(t *testing.T) {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range b.problems {
		t.Errorf("browser: %s", p)
	}
}

// captionWatch records, in the page, when each kind of caption first
// appeared (unix ms), so latencies are measured where the candidate sees
// them rather than at the test's polling times.
const captionWatch = `(() => {
  const seen = {};
  window.vivaTest = { seen };
  const box = document.getElementById('captions');
  const look = () => {
    for (const el of box.querySelectorAll('.room-caption')) {
      const k = el.dataset.speaker + (el.dataset.final === 'true' ? ':final' : ':interim');
      if (!(k in seen)) seen[k] = Date.now();
    }
  };
  new MutationObserver(look).observe(box, { subtree: true, childList: true, attributes: true, characterData: true });
  return true;
})()`

// caption is one line of the page's captions.
type caption struct {
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
	Final   bool   `json:"final"`
	Pending bool   `json:"pending"`
}

const readCaptions = `[...document.querySelectorAll('#captions .room-caption')].map(el => ({
  speaker: el.dataset.speaker, text: el.querySelector('.room-caption-text').textContent,
  final: el.dataset.final === 'true', pending: el.dataset.pending === 'true'}))`

// waitCaption polls the page until a caption satisfies ok.
func waitCaption(ok func(caption) bool) chromedp.ActionFunc {
	return func(ctx context.Context) error {
		for {
			var lines []caption
			if err := chromedp.Evaluate(readCaptions, &lines).Do(ctx); err != nil {
				return err
			}
			for _, c := range lines {
				if ok(c) {
					return nil
				}
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("no such caption among %+v: %w", lines, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

func firstSeen(ctx context.Context, b *browser, kind string) (time.Time, error) {
	var ms float64
	err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`window.vivaTest.seen[%q] || 0`, kind), &ms))
	if err != nil || ms == 0 {
		return time.Time{}, errors.Join(err, fmt.Errorf("no %s caption seen", kind))
	}
	return time.UnixMilli(int64(ms)), nil
}

// TestBrowserInterview is the spoken interview end to end: the recruiter
// registers the candidate in the form, the candidate opens the link and
// joins, the interviewer greets (captions and state in the page), the
// candidate's recorded answer is recognised and captioned as "You", the
// stage indicator moves on, the candidate ends the interview and sees the
// closing screen, and the reviewer reads both sides' turns.
func TestBrowserInterview(t *testing.T) {
	if testing.Short() {
		t.Skip("browser end-to-end test: skipped with -short")
	}
	sys := startSystem(t, 5*time.Minute) // a candidate who drops out may rejoin, as in production

	// The recorded answer starts once the greeting has surely finished.
	greetPCM, rate := speech(t, greetingText("Ada", "Backend engineer"))
	greeting := durationOf(len(greetPCM), rate)
	answerPCM, _ := speech(t, spokenAnswer)
	answerLen := durationOf(len(answerPCM), rate)
	lead := joinAllowance + greeting
	t.Logf("greeting %.1f s of speech; the answer (%.1f s) starts %.1f s after the microphone opens", greeting.Seconds(), answerLen.Seconds(), lead.Seconds())
	b := newBrowser(t, fakeMicrophone(micFile(t, lead, answerPCM, rate))...)

	// 1. The recruiter signs in (the form sends them to the sign-in page
	// and back) and registers the candidate.
	var joinURL string
	b.step(t, "recruiter sign-in", signIn(sys.web.URL+"/", e2eRecruiter))
	b.step(t, "registration form",
		chromedp.WaitVisible(`#name`, chromedp.ByQuery),
		chromedp.SendKeys(`#name`, "Ada Lovelace", chromedp.ByQuery),
		chromedp.SendKeys(`#email`, "ada@example.com", chromedp.ByQuery),
		chromedp.SendKeys(`#role`, "Backend engineer", chromedp.ByQuery),
		chromedp.SetValue(`#level`, "senior", chromedp.ByQuery),
	)
	b.shot(t, "registration-form")
	b.step(t, "submit the form",
		chromedp.Click(`main form button[type="submit"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#join-url`, chromedp.ByQuery),
		chromedp.Value(`#join-url`, &joinURL, chromedp.ByQuery),
	)
	b.shot(t, "join-link")
	u, err := url.Parse(joinURL)
	if err != nil || !strings.HasPrefix(u.Path, "/interview/") {
		t.Fatalf("join link %q is not /interview/{id}", joinURL)
	}
	id := strings.TrimPrefix(u.Path, "/interview/")

	// 2. The candidate opens the link (processing off for deterministic
	// audio) and joins.
	q := u.Query()
	q.Set("raw", "1")
	u.RawQuery = q.Encode()
	b.step(t, "open the room page",
		chromedp.Navigate(u.String()),
		chromedp.WaitVisible(`#join`, chromedp.ByID),
		chromedp.Evaluate(captionWatch, nil),
	)
	b.shot(t, "room-before-join")
	joinedAt := time.Now()
	b.step(t, "join", agree, chromedp.Click(`#join`, chromedp.ByID), chromedp.WaitVisible(`#live`, chromedp.ByID))

	// 3. The interviewer greets: its caption, its state and the first stage.
	b.step(t, "the interviewer's greeting",
		chromedp.WaitVisible(`.room-caption[data-speaker="agent"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#agent-state[data-state="speaking"]`, chromedp.ByQuery),
		waitCaption(func(c caption) bool { return c.Speaker == "agent" && strings.Contains(c.Text, "Hello Ada") }),
		chromedp.Poll(`document.getElementById('stage').textContent.startsWith('Stage 1 of 4')`, nil, chromedp.WithPollingTimeout(stepTimeout)),
	)
	firstAgent, err := firstSeen(b.ctx, b, "agent:interim")
	if err != nil {
		firstAgent, err = firstSeen(b.ctx, b, "agent:final")
	}
	if err != nil {
		t.Fatal(err)
	}
	b.step(t, "the interviewer's audio plays",
		chromedp.Poll(`[...document.querySelectorAll('#audio-sink audio')].some(a => a.srcObject && !a.paused)`, nil, chromedp.WithPollingTimeout(stepTimeout)),
		chromedp.Poll(`document.getElementById('start-audio').hidden`, nil, chromedp.WithPollingTimeout(stepTimeout)),
	)
	b.shot(t, "greeting")
	b.step(t, "the interviewer listens after the greeting",
		waitCaption(func(c caption) bool { return c.Speaker == "agent" && c.Final && strings.HasSuffix(c.Text, "?") }),
		chromedp.WaitVisible(`#agent-state[data-state="listening"]`, chromedp.ByQuery),
	)

	// 4. The candidate's spoken answer appears as their caption; the level
	// meter moves while they speak.
	peak := 0
	b.step(t, "the candidate's answer as a caption",
		chromedp.ActionFunc(func(ctx context.Context) error {
			for {
				var st struct {
					Level int  `json:"level"`
					Done  bool `json:"done"`
				}
				if err := chromedp.Evaluate(`({level: +document.getElementById('meter').getAttribute('aria-valuenow'),
					done: !!document.querySelector('.room-caption[data-speaker="you"][data-final="true"]')})`, &st).Do(ctx); err != nil {
					return err
				}
				peak = max(peak, st.Level)
				if st.Done {
					return nil
				}
				select {
				case <-ctx.Done():
					return ctx.Err()
				case <-time.After(50 * time.Millisecond):
				}
			}
		}),
	)
	b.shot(t, "answer-captioned")
	var lines []caption
	b.step(t, "read captions", chromedp.Evaluate(readCaptions, &lines))
	var heard string
	for _, c := range lines {
		if c.Speaker == "you" && c.Final {
			heard = strings.ToLower(c.Text)
		}
		if c.Speaker == "agent" && strings.Contains(strings.ToLower(c.Text), "ready to begin") {
			t.Errorf("the candidate's words were captioned as the interviewer's: %q", c.Text)
		}
	}
	if !strings.Contains(heard, "hear") && !strings.Contains(heard, "ready") {
		t.Errorf("the candidate's caption %q lacks the keywords hear or ready", heard)
	}
	if peak < 20 {
		t.Errorf("the microphone level meter peaked at %d while the candidate spoke; want at least 20 of 100", peak)
	}

	// 5. The stage indicator moves on to the introduction.
	b.step(t, "the stage indicator changes",
		chromedp.Poll(`document.getElementById('stage').textContent.startsWith('Stage 2 of 4')`, nil, chromedp.WithPollingTimeout(stepTimeout)),
		chromedp.WaitVisible(`#countdown-wrap`, chromedp.ByID),
	)
	var stageText, countdown string
	b.step(t, "read the stage", chromedp.Text(`#stage`, &stageText, chromedp.ByID), chromedp.Text(`#countdown`, &countdown, chromedp.ByID))
	if !strings.Contains(stageText, "Introduction") || !regexp.MustCompile(`^\d\d:\d\d$`).MatchString(countdown) {
		t.Errorf("stage %q with countdown %q; want Stage 2 of 4 — Introduction and mm:ss", stageText, countdown)
	}
	b.step(t, "the countdown runs",
		chromedp.Poll(fmt.Sprintf(`document.getElementById('countdown').textContent !== %q`, countdown), nil, chromedp.WithPollingTimeout(5*time.Second)))
	var overflow bool
	b.step(t, "fits a 360 px wide phone",
		chromedp.EmulateViewport(360, 740),
		chromedp.Evaluate(`document.documentElement.scrollWidth > window.innerWidth`, &overflow),
	)
	if overflow {
		t.Error("the room page scrolls sideways at 360 px")
	}
	b.shot(t, "next-stage")

	// Latencies, measured in the page against the worker's record.
	rec := sys.record(t, id, stepTimeout, "the candidate's turn", func(r *interviews.Record) bool {
		for _, turn := range r.Turns {
			if turn.Role == interviews.RoleCandidate {
				return true
			}
		}
		return false
	})
	var greetTurn, answerTurn *interviews.Turn
	for i := range rec.Turns {
		switch turn := &rec.Turns[i]; {
		case turn.Role == interviews.RoleAgent && greetTurn == nil:
			greetTurn = turn
		case turn.Role == interviews.RoleCandidate && answerTurn == nil:
			answerTurn = turn
		}
	}
	if greetTurn == nil || greetTurn.Interrupted || !greetTurn.EndedAt.Before(answerTurn.EndedAt.Add(-answerLen/2)) {
		t.Errorf("the recorded answer overlapped the greeting (greeting %+v, answer %+v): lengthen joinAllowance", greetTurn, answerTurn)
	}
	for _, v := range rec.Stages {
		if v.Forced {
			t.Errorf("stage %s was forced by the timer; the answer should have moved the interview on", v.Name)
		}
	}
	youSeen, err := firstSeen(b.ctx, b, "you:final")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Join click → first interviewer caption: %d ms", firstAgent.Sub(joinedAt).Milliseconds())
	t.Logf("greeting played for %.1f s", greetTurn.EndedAt.Sub(greetTurn.StartedAt).Seconds())
	t.Logf("end of the candidate's speech (worker's VAD) → their caption in the page: %d ms", youSeen.Sub(answerTurn.EndedAt).Milliseconds())

	// 6. The candidate ends the interview: two clicks, then the closing screen.
	b.step(t, "arm End interview",
		chromedp.Click(`#end`, chromedp.ByID),
		chromedp.Poll(`document.getElementById('end').textContent === 'Click again to end'`, nil, chromedp.WithPollingTimeout(stepTimeout)),
	)
	b.shot(t, "end-confirm")
	var closing string
	b.step(t, "end the interview",
		chromedp.Click(`#end`, chromedp.ByID),
		chromedp.WaitVisible(`#closing`, chromedp.ByID),
		chromedp.Text(`#closing-text`, &closing, chromedp.ByID),
	)
	b.shot(t, "closing")
	if want := "Your interview has been saved. Thank you, Ada Lovelace. You can close this tab."; closing != want {
		t.Errorf("closing screen %q, want %q", closing, want)
	}
	// Ending is final: the interviewer is told before the page leaves, so
	// no rejoin window stays open and the link no longer works.
	sys.record(t, id, stepTimeout, "the interview saved as ended by the candidate, for good", func(r *interviews.Record) bool {
		return r.Status == interviews.StatusCandidateLeft && r.EndedBy == interviews.EndedCandidateRequest && r.RejoinUntil == nil
	})
	resp, err := http.Post(sys.web.URL+"/api/interviews/"+id+"/join", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusGone {
		t.Errorf("joining after the candidate ended the interview: %s, want 410 Gone", resp.Status)
	}
	var stored string
	b.step(t, "nothing stored in the browser",
		chromedp.Evaluate(`JSON.stringify([localStorage.length, sessionStorage.length, document.cookie])`, &stored))
	if stored != `[0,0,""]` {
		t.Errorf("the room page stored something in the browser: %s", stored)
	}

	// 7. The reviewer signs in and reads both sides of the interview.
	b.step(t, "reviewer sign-in", signIn(sys.web.URL+"/review/login", e2eReviewer), chromedp.WaitNotPresent(`#password`, chromedp.ByID))
	var candidateTurns, agentTurns []string
	b.step(t, "the interview's page",
		chromedp.Navigate(sys.web.URL+"/review/"+id),
		chromedp.WaitVisible(`.turn-candidate .turn-text`, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll('.turn-candidate .turn-text')].map(e => e.textContent)`, &candidateTurns),
		chromedp.Evaluate(`[...document.querySelectorAll('.turn-agent .turn-text')].map(e => e.textContent)`, &agentTurns),
	)
	b.shot(t, "review")
	if len(candidateTurns) == 0 || !strings.Contains(strings.ToLower(strings.Join(candidateTurns, " ")), "hear") && !strings.Contains(strings.ToLower(strings.Join(candidateTurns, " ")), "ready") {
		t.Errorf("reviewer page candidate turns %q", candidateTurns)
	}
	if len(agentTurns) == 0 || !strings.Contains(agentTurns[0], "Hello Ada") {
		t.Errorf("reviewer page interviewer turns %q", agentTurns)
	}

	// 8. What the interview learned shows with the timeline: the same
	// interview, with a rubric as answer analysis fills it.
	learned, err := sys.store.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	learned = learned.Clone()
	learned.ID = interviews.NewID()
	learned.Rubric = []interviews.RubricItem{
		{ID: "current_role", Label: "Current role", Required: true, Status: interviews.StatusCovered, Value: "Backend engineer", Evidence: "I am a backend engineer", By: interviews.ByRules},
		{ID: "years_experience", Label: "Years of experience", Required: true, Status: interviews.StatusOpen},
	}
	learned.Exit = &interviews.Exit{Reason: interviews.ExitMaxTurns, Coverage: 0.5, Turns: 30}
	if err := sys.store.Create(t.Context(), learned); err != nil {
		t.Fatal(err)
	}
	var rubric string
	b.step(t, "the rubric beside the timeline",
		chromedp.Navigate(sys.web.URL+"/review/"+learned.ID),
		chromedp.WaitVisible(`#rubric`, chromedp.ByID),
		chromedp.Text(`#rubric`, &rubric, chromedp.ByID),
	)
	b.shot(t, "review-learned")
	for _, want := range []string{"Rubric coverage", "Current role", "covered", "“I am a backend engineer”", "Years of experience", "open"} {
		if !strings.Contains(rubric, want) {
			t.Errorf("the rubric section reads %q, lacking %q", rubric, want)
		}
	}
	b.checkClean(t)
}

// TestBrowserTypedAnswer: the candidate types instead of speaking. The
// message goes out on lk.chat, shows once as the candidate's caption (the
// interviewer's echo merges with the line shown on sending), the
// interviewer answers it, and the record holds it as a typed turn. Then the
// signal connection drops for two seconds: the page shows "Reconnecting…",
// resumes on its own, and the next typed message is answered too.
func TestBrowserTypedAnswer(t *testing.T) {
	if testing.Short() {
		t.Skip("browser end-to-end test: skipped with -short")
	}
	sys := startSystem(t)
	silence, rate := make([]int16, 16000), 16000
	b := newBrowser(t, fakeMicrophone(micFile(t, 0, silence, rate))...)

	// Registered through the JSON API this time.
	created := sys.register(t, "Grace Hopper", "Compiler engineer")

	b.step(t, "join",
		chromedp.Navigate(created.JoinURL+"?raw=1"),
		chromedp.WaitVisible(`#join`, chromedp.ByID),
		agree,
		chromedp.Click(`#join`, chromedp.ByID),
		waitCaption(func(c caption) bool { return c.Speaker == "agent" && c.Final && strings.HasSuffix(c.Text, "?") }),
		chromedp.WaitVisible(`#agent-state[data-state="listening"]`, chromedp.ByQuery),
		chromedp.WaitEnabled(`#chat-input`, chromedp.ByID),
	)
	// The keyboard reaches the message box, Send and End interview in order.
	var order []string
	for range 3 {
		var id string
		b.step(t, "tab", chromedp.KeyEvent(kb.Tab), chromedp.Evaluate(`document.activeElement.id`, &id))
		order = append(order, id)
	}
	if got := strings.Join(order, ","); got != "chat-input,chat-send,end" {
		t.Errorf("tab order from the captions: %s, want chat-input,chat-send,end", got)
	}
	lines := typeAndAwaitReply(t, b, typedAnswer)
	b.shot(t, "typed-answer")
	b.step(t, "the stage moves on", chromedp.Poll(`document.getElementById('stage').textContent.startsWith('Stage 2 of 4')`, nil, chromedp.WithPollingTimeout(stepTimeout)))
	typed := 0
	for _, c := range lines {
		if c.Speaker == "you" {
			typed++
			if c.Text != typedAnswer || !c.Final || c.Pending {
				t.Errorf("candidate caption %+v", c)
			}
		}
	}
	if typed != 1 {
		t.Errorf("%d candidate captions for one typed message, want 1: %+v", typed, lines)
	}

	// A network blip on the signal connection.
	b.step(t, "watch the banner", chromedp.Evaluate(bannerWatch, nil))
	sys.signal.Cut(2 * time.Second)
	b.step(t, "the page reconnects",
		chromedp.Poll(`window.vivaTest.banner.some(b => b.shown && b.text.startsWith('Connection lost. Reconnecting'))`, nil, chromedp.WithPollingTimeout(stepTimeout)),
		chromedp.Poll(`document.getElementById('banner').hidden && !document.getElementById('chat-input').disabled`, nil, chromedp.WithPollingTimeout(stepTimeout)),
	)
	const second = "Could you repeat the question please?"
	lines = typeAndAwaitReply(t, b, second)
	b.shot(t, "after-reconnect")
	var problem string
	b.step(t, "no error shown", chromedp.Evaluate(`document.getElementById('problem').hidden ? "" : document.getElementById('problem-text').textContent`, &problem))
	if problem != "" {
		t.Errorf("the page shows an error after reconnecting: %q", problem)
	}

	rec := sys.record(t, created.ID, stepTimeout, "both typed turns", func(r *interviews.Record) bool {
		n := 0
		for _, turn := range r.Turns {
			if turn.Role == interviews.RoleCandidate {
				n++
			}
		}
		return n == 2
	})
	var got []string
	for _, turn := range rec.Turns {
		if turn.Role == interviews.RoleCandidate {
			got = append(got, turn.Source+":"+turn.Text)
		}
	}
	if want := []string{"text:" + typedAnswer, "text:" + second}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("recorded candidate turns %q, want %q", got, want)
	}
	if rec.Status.Finished() {
		t.Errorf("the blip ended the interview: %s by %s", rec.Status, rec.EndedBy)
	}
	b.checkClean(t)
}

// bannerWatch records every change of the reconnect banner.
const bannerWatch = `(() => {
  window.vivaTest = window.vivaTest || {};
  const log = window.vivaTest.banner = [];
  const el = document.getElementById('banner');
  new MutationObserver(() => log.push({ shown: !el.hidden, text: el.textContent, at: Date.now() }))
    .observe(el, { attributes: true, childList: true, characterData: true, subtree: true });
  return true;
})()`

// typeAndAwaitReply types text into the message box, presses Enter, and
// waits for it to show once as the candidate's caption, confirmed by the
// interviewer's echo, followed by the interviewer's final reply. It returns
// the captions then.
func typeAndAwaitReply(t *testing.T, b *browser, text string) []caption {
	t.Helper()
	var lines []caption
	b.step(t, "type "+strconv.Quote(text),
		chromedp.SendKeys(`#chat-input`, text+kb.Enter, chromedp.ByID),
		chromedp.ActionFunc(func(ctx context.Context) error {
			for {
				if err := chromedp.Evaluate(readCaptions, &lines).Do(ctx); err != nil {
					return err
				}
				mine := -1
				for i, c := range lines {
					if c.Speaker == "you" && c.Text == text && c.Final && !c.Pending {
						mine = i
					}
				}
				if mine >= 0 && mine < len(lines)-1 && lines[len(lines)-1].Speaker == "agent" && lines[len(lines)-1].Final {
					return nil
				}
				select {
				case <-ctx.Done():
					return fmt.Errorf("no confirmed caption of %q and reply among %+v: %w", text, lines, ctx.Err())
				case <-time.After(100 * time.Millisecond):
				}
			}
		}),
	)
	var input string
	b.step(t, "the text box is cleared", chromedp.Value(`#chat-input`, &input, chromedp.ByID))
	if input != "" {
		t.Errorf("text box still holds %q after sending", input)
	}
	n := 0
	for _, c := range lines {
		if c.Speaker == "you" && c.Text == text {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%q shows %d times in the captions, want once: %+v", text, n, lines)
	}
	return lines
}

// TestBrowserMicrophoneProblems: a blocked microphone and a missing one
// each get a message saying what to do, and both offer to continue by
// typing. Allowing the microphone and pressing Try again joins; a
// candidate who keeps it blocked, or has none, goes on and types. Before
// "I agree" is ticked, the page says that is why Join is disabled.
func TestBrowserMicrophoneProblems(t *testing.T) {
	if testing.Short() {
		t.Skip("browser end-to-end test: skipped with -short")
	}
	sys := startSystem(t)
	silentWAV := micFile(t, time.Second, nil, 16000)
	// A fake device but no automatic grant: the permission decides.
	blockable := []chromedp.ExecAllocatorOption{
		chromedp.Flag("use-fake-device-for-media-stream", true),
		chromedp.Flag("use-file-for-fake-audio-capture", silentWAV+"%noloop"),
	}
	tests := []struct {
		name    string
		opts    []chromedp.ExecAllocatorOption
		deny    bool // the microphone permission is denied for the site
		message string
		// typeInstead: the candidate continues by typing rather than
		// allowing the microphone.
		typeInstead bool
	}{
		{
			name:    "blocked",
			opts:    blockable,
			deny:    true,
			message: "Your browser blocked the microphone. Allow it in the address bar and press Try again, or continue by typing your answers.",
		},
		{
			name:        "blocked, typing",
			opts:        blockable,
			deny:        true,
			message:     "Your browser blocked the microphone. Allow it in the address bar and press Try again, or continue by typing your answers.",
			typeInstead: true,
		},
		{
			name: "missing",
			// Granted, but the machine has no audio input at all.
			opts:        []chromedp.ExecAllocatorOption{chromedp.Flag("use-fake-ui-for-media-stream", true)},
			message:     "No microphone was found. Connect one and press Try again, or continue by typing your answers.",
			typeInstead: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			created := sys.register(t, "Alan Turing", "Cryptanalyst")
			b := newBrowser(t, tt.opts...)
			origin := sys.web.URL
			if tt.deny {
				b.step(t, "deny the microphone", setMicPermission(origin, cdpbrowser.PermissionSettingDenied))
			}
			var message, focused, reason, noMicLabel string
			var noMicShown, liveShown, joinShown bool
			b.step(t, "read why Join is disabled",
				chromedp.Navigate(created.JoinURL),
				chromedp.WaitVisible(`#join`, chromedp.ByID),
				// The microphone's permission is read after the page loads;
				// it must not take the reason away.
				chromedp.Evaluate(`navigator.permissions.query({name: 'microphone'}).then(() => true)`, nil, awaitPromise),
				chromedp.Text(`#join-status`, &reason, chromedp.ByID),
			)
			if want := "Tick “I agree” to join."; reason != want {
				t.Errorf("under the disabled Join: %q, want %q", reason, want)
			}
			b.step(t, "join",
				agree,
				chromedp.Click(`#join`, chromedp.ByID),
				chromedp.WaitVisible(`#problem`, chromedp.ByID),
				chromedp.Text(`#problem-text`, &message, chromedp.ByID),
				chromedp.Evaluate(`!document.getElementById('no-mic').hidden`, &noMicShown),
				chromedp.Text(`#no-mic`, &noMicLabel, chromedp.ByID),
				chromedp.Evaluate(`document.getElementById('join').offsetParent !== null`, &joinShown),
				chromedp.Evaluate(`!document.getElementById('live').hidden`, &liveShown),
				chromedp.Evaluate(`document.activeElement && document.activeElement.id`, &focused),
			)
			b.shot(t, "problem")
			if message != tt.message {
				t.Errorf("message %q, want %q", message, tt.message)
			}
			if joinShown {
				t.Error("a second Join button stays beside the microphone problem; its Try again is the one action")
			}
			if !noMicShown || noMicLabel != "Continue by typing" || liveShown || focused != "retry" {
				t.Errorf("%q shown %v (want Continue by typing), room shown %v, focus on %q (want the Try again button)", noMicLabel, noMicShown, liveShown, focused)
			}
			if !tt.typeInstead {
				// The candidate allows the microphone and tries again.
				b.step(t, "allow and try again",
					setMicPermission(origin, cdpbrowser.PermissionSettingGranted),
					chromedp.Click(`#retry`, chromedp.ByID),
					chromedp.WaitVisible(`#live`, chromedp.ByID),
					chromedp.WaitVisible(`#meter`, chromedp.ByID),
					chromedp.WaitEnabled(`#chat-input`, chromedp.ByID),
				)
			} else {
				b.step(t, "continue by typing",
					chromedp.Click(`#no-mic`, chromedp.ByID),
					chromedp.WaitVisible(`#live`, chromedp.ByID),
					chromedp.WaitVisible(`#mic-off`, chromedp.ByID),
					chromedp.WaitEnabled(`#chat-input`, chromedp.ByID),
				)
			}
			// Either way the interviewer greets the candidate.
			b.step(t, "the greeting", waitCaption(func(c caption) bool { return c.Speaker == "agent" && strings.Contains(c.Text, "Hello Alan") }))
			b.shot(t, "joined")
			b.checkClean(t)
		})
	}
}

// agree ticks "I agree" under the consent notice, which enables Join.
var agree = chromedp.Tasks{
	chromedp.Click(`#consent`, chromedp.ByID),
	chromedp.WaitEnabled(`#join`, chromedp.ByID),
}

// setMicPermission sets the microphone permission of origin, as the
// candidate would in the address bar.
func setMicPermission(origin string, setting cdpbrowser.PermissionSetting) chromedp.ActionFunc {
	return func(ctx context.Context) error {
		c := chromedp.FromContext(ctx)
		return cdpbrowser.SetPermission(&cdpbrowser.PermissionDescriptor{Name: "microphone"}, setting).
			WithOrigin(origin).Do(cdp.WithExecutor(ctx, c.Browser))
	}
}

// TestBrowserReloadRejoins: a candidate who reloads the page mid-interview
// joins again from the same link; the interviewer welcomes them back and
// the interview continues in the same record.
func TestBrowserReloadRejoins(t *testing.T) {
	if testing.Short() {
		t.Skip("browser end-to-end test: skipped with -short")
	}
	sys := startSystem(t, time.Minute)
	created := sys.register(t, "Alan Turing", "Cryptanalyst")
	b := newBrowser(t, fakeMicrophone(micFile(t, time.Second, nil, 16000))...)
	b.step(t, "join and hear the greeting",
		chromedp.Navigate(created.JoinURL),
		chromedp.WaitVisible(`#join`, chromedp.ByID),
		agree,
		chromedp.Click(`#join`, chromedp.ByID),
		chromedp.WaitVisible(`#live`, chromedp.ByID),
		waitCaption(func(c caption) bool { return c.Speaker == "agent" && c.Final && strings.Contains(c.Text, "Hello Alan") }),
	)
	b.step(t, "reload the page",
		chromedp.Reload(),
		chromedp.WaitVisible(`#join`, chromedp.ByID),
	)
	left := sys.record(t, created.ID, 30*time.Second, "saved as the candidate left", func(r *interviews.Record) bool {
		return r.Status == interviews.StatusCandidateLeft
	})
	if left.RejoinUntil == nil {
		t.Fatalf("the record offers no rejoin: %+v", left)
	}
	b.step(t, "join again and be welcomed back",
		chromedp.Click(`#join`, chromedp.ByID),
		chromedp.WaitVisible(`#live`, chromedp.ByID),
		waitCaption(func(c caption) bool { return c.Speaker == "agent" && strings.HasPrefix(c.Text, "Welcome back, Alan.") }),
	)
	b.shot(t, "welcomed back")
	rec := sys.record(t, created.ID, 60*time.Second, "in progress again, with the welcome back saved", func(r *interviews.Record) bool {
		n := len(r.Turns)
		return r.Status == interviews.StatusInProgress && n > 0 && r.Turns[n-1].Source == "rejoin"
	})
	if len(rec.Absences) != 1 || rec.Absences[0].BackAt == nil || rec.Turns[0].Source != "greeting" {
		t.Errorf("after rejoining: absences %+v, turns %+v", rec.Absences, rec.Turns)
	}
	b.checkClean(t)
}

// awaitPromise makes chromedp.Evaluate wait for the promise it returns.
func awaitPromise(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }

// signIn opens page, which asks to sign in, and signs in as email.
func signIn(page, email string) chromedp.Tasks {
	return chromedp.Tasks{
		chromedp.Navigate(page),
		chromedp.WaitVisible(`#password`, chromedp.ByID),
		chromedp.SendKeys(`#email`, email, chromedp.ByID),
		chromedp.SendKeys(`#password`, e2ePassword, chromedp.ByID),
		chromedp.Click(`main form button[type="submit"]`, chromedp.ByQuery),
	}
}
