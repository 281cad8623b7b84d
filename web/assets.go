package web

import (
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
	"github.com/viva-interviews/viva/stages"
)

// assets holds the page templates and the static files (CSS, the room
// page's script bundle under static/dist when it has been built).
//
//go:embed static templates
var assets embed.FS

// pageFiles are the templates rendered inside templates/layout.html.
var pageFiles = []string{
	"register.html", "created.html", "message.html", "confirm.html", "bulk.html",
	"login.html", "review_list.html", "review_detail.html",
	"report.html", "compare.html", "feedback.html", "invitations.html",
	"designs.html", "design.html", "design_edit.html",
}

// partialFiles are templates of parts several pages share (the report,
// the decisions), parsed with every page.
var partialFiles = []string{"templates/report_parts.html", "templates/recordings.html", "templates/design_preview.html", "templates/signals.html"}

// roomBundleFile is the room page's script bundle within the static
// files. It is built from web/frontend by `make assets` and embedded by
// `make build`; a plain `go build` of a fresh checkout lacks it.
const roomBundleFile = "dist/room.js"

// ErrNoRoomBundle means this binary was built without the room page's
// script bundle: candidates could not join an interview from it.
var ErrNoRoomBundle = errors.New("web: this viva was built without the room page's script (web/static/dist/room.js), so candidates cannot join interviews: build it with `make build` (it runs `make assets` first)")

// CheckRoomBundle reports whether the room page's script bundle is embedded
// in this binary: it returns ErrNoRoomBundle when it is not.
func CheckRoomBundle() error {
	return checkRoomBundle(assets)
}

// checkRoomBundle looks for the bundle in the embedded file system files.
func checkRoomBundle(files fs.FS) error {
	switch info, err := fs.Stat(files, "static/"+roomBundleFile); {
	case errors.Is(err, fs.ErrNotExist), err == nil && info.Size() == 0:
		return ErrNoRoomBundle
	case err != nil:
		return fmt.Errorf("web: room page script: %w", err)
	}
	return nil
}

// roomTemplate is the candidate's room page, rendered on its own (it may use
// the layout's definitions).
const roomTemplate = "room.html"

// loadAssets parses the templates and prepares the static file system.
func (s *Server) loadAssets() error {
	static, err := fs.Sub(assets, "static")
	if err != nil {
		return fmt.Errorf("web: static assets: %w", err)
	}
	s.static = static
	if err := checkRoomBundle(assets); err != nil {
		s.log.Warn("web: the room page cannot work: it shows candidates a message instead", "err", err)
	} else {
		s.room.hasRoomBundle = true
	}
	s.pages = make(map[string]*template.Template, len(pageFiles))
	for _, page := range pageFiles {
		t, err := template.New(page).Funcs(templateFuncs).Funcs(s.pageFuncs()).ParseFS(assets, append([]string{"templates/layout.html", "templates/" + page}, partialFiles...)...)
		if err != nil {
			return fmt.Errorf("web: parsing template %s: %w", page, err)
		}
		s.pages[page] = t
	}
	switch _, err := fs.Stat(assets, "templates/"+roomTemplate); {
	case errors.Is(err, fs.ErrNotExist):
		s.log.Warn("web: the room page template is missing; /interview/{id} answers 500 until it is added", "template", "templates/"+roomTemplate)
	case err != nil:
		return fmt.Errorf("web: room page template: %w", err)
	default:
		t, err := template.New(roomTemplate).Funcs(templateFuncs).Funcs(s.pageFuncs()).ParseFS(assets, "templates/layout.html", "templates/"+roomTemplate)
		if err != nil {
			return fmt.Errorf("web: parsing template %s: %w", roomTemplate, err)
		}
		s.room.roomPage = t
	}
	return nil
}

// staticHandler serves the embedded static files under /static/, without
// directory listings.
func (s *Server) staticHandler() http.Handler {
	files := http.StripPrefix("/static/", http.FileServerFS(s.static))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// templateFuncs are the helpers the templates use.
var templateFuncs = template.FuncMap{
	"datetime":      formatDateTime,
	"clock":         formatClock,
	"duration":      formatDuration,
	"ms":            formatMillis,
	"statusClass":   statusClass,
	"since":         formatOffset,
	"add":           func(a, b int) int { return a + b },
	"dict":          dict,
	"score":         func(v *float64) int { return score100(*v) },
	"decisionLabel": decisionLabel,
	"decisionClass": decisionClass,
	"planTitle":     blueprintTitle,
	"endingLabel":   endReasonLabel,
	"stageLabel":    stageLabel,
	"minutes":       interviews.LengthInWords,
	"shortVersion":  interviews.ShortVersion,
	"languageName":  languageName,
	"levelLabel":    interviews.Humanize,
	"minutesIn":     lang.Minutes,
	// text and textf are the catalogue's texts in a language, for the
	// candidate's pages: {{text .Lang "room.join"}}.
	"text":  func(tag, key string) string { return lang.Text(tag, lang.Key(key)) },
	"textf": func(tag, key string, args ...any) string { return lang.Textf(tag, lang.Key(key), args...) },
}

// stageLabel is the title of the stage called name in blueprint when it
// is built in, else the name in words; "" for none.
func stageLabel(blueprint, name string) string {
	if name == "" {
		return ""
	}
	if b, err := stages.Builtin(blueprint); err == nil {
		if st, _, ok := b.Stage(name); ok && st.Title != "" {
			return st.Title
		}
	}
	return interviews.Humanize(name)
}

// pageFuncs are the helpers whose answers depend on the server's
// settings: brand gives every page the company's name and logo.
func (s *Server) pageFuncs() template.FuncMap {
	return template.FuncMap{"brand": func() brand { return s.brand }}
}

// dict builds a map from alternating keys and values, to hand a
// sub-template several values.
func dict(kv ...any) (map[string]any, error) {
	if len(kv)%2 != 0 {
		return nil, errors.New("dict: odd number of arguments")
	}
	m := make(map[string]any, len(kv)/2)
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return nil, fmt.Errorf("dict: key %v is not a string", kv[i])
		}
		m[k] = kv[i+1]
	}
	return m, nil
}

// formatDateTime shows a time as "2026-03-01 14:05 UTC"; "—" when unset.
func formatDateTime(t any) string {
	tt, ok := timeOf(t)
	if !ok {
		return "—"
	}
	return tt.UTC().Format("2006-01-02 15:04 UTC")
}

// formatClock shows the time of day, "14:05:09".
func formatClock(t any) string {
	tt, ok := timeOf(t)
	if !ok {
		return "—"
	}
	return tt.UTC().Format("15:04:05")
}

func timeOf(t any) (time.Time, bool) {
	switch v := t.(type) {
	case time.Time:
		return v, !v.IsZero()
	case *time.Time:
		if v == nil {
			return time.Time{}, false
		}
		return *v, !v.IsZero()
	}
	return time.Time{}, false
}

// formatOffset shows how far into the interview t was, "+3:07"; empty when
// either time is unknown.
func formatOffset(start *time.Time, t time.Time) string {
	if start == nil || start.IsZero() || t.IsZero() {
		return ""
	}
	d := max(t.Sub(*start), 0).Round(time.Second)
	return fmt.Sprintf("+%d:%02d", int(d.Minutes()), int(d.Seconds())%60)
}

// formatDuration shows a duration as "12m 30s", "1h 02m" or "45s"; "—"
// for zero.
func formatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d <= 0:
		return "—"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm %02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh %02dm", int(d.Hours()), int(d.Minutes())%60)
}

// formatMillis shows a latency in whole milliseconds, "412 ms"; "—" when
// not measured (zero).
func formatMillis(v float64) string {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return fmt.Sprintf("%.0f ms", v)
}

// statusClass is the CSS class of the badge of how an interview stands.
func statusClass(s interviews.Standing) string {
	if interviews.Status(s).Valid() || s == interviews.StandingWithdrawn || s == interviews.StandingExpired {
		return "status-" + strings.ReplaceAll(string(s), "_", "-")
	}
	return "status-unknown"
}
