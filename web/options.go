package web

import (
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/lkagent/lkurl"
	"github.com/viva-interviews/viva/stages"
)

// settings are what New derives from checked Options.
type settings struct {
	clientURL  string // ws:// or wss:// form of the LiveKit URL, given to browsers
	publicURL  string // without a trailing slash; empty: from the request
	blueprints []blueprintOption
	templates  []TemplateChoice
	brand      brand
	consent    consents
}

// checkOptions fills in opts' defaults and derives the settings; its
// error joins everything wrong, each saying which option and what to set
// instead.
func checkOptions(opts *Options) (settings, error) {
	var set settings
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("web: "+format, args...)) }
	set.clientURL = checkServices(opts, bad)
	set.publicURL = checkPublicURL(opts.PublicURL, bad)
	set.blueprints = offeredBlueprints(opts.Blueprints, bad)
	set.templates = offeredTemplates(opts.Templates, bad)
	switch {
	case opts.RateLimit == 0:
		opts.RateLimit = DefaultRateLimit
	case opts.RateLimit < 0:
		bad("rate limit %d is negative: use a number of requests per minute such as 20", opts.RateLimit)
	}
	var err error
	set.brand, err = newBrand(opts.BrandName, opts.BrandLogo)
	if err != nil {
		errs = append(errs, err)
	}
	set.consent, err = newConsents(opts.ConsentText, set.brand.Name, opts.RecordsAudio)
	if err != nil {
		errs = append(errs, err)
	}
	switch {
	case opts.TimeScale == 0:
		opts.TimeScale = 1
	case !(opts.TimeScale > 0):
		bad("time scale %v is not above 0: use 1 for real time or 0.1 for ten times faster", opts.TimeScale)
	}
	if len(errs) > 0 {
		return set, errors.Join(errs...)
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Sessions == nil {
		opts.Sessions = accounts.NewMemorySessions(accounts.SessionLimits{}, opts.Now)
	}
	if opts.Limiter == nil {
		now := opts.Now
		opts.Limiter = func(name string, perMinute int) accounts.Limiter { return accounts.NewMemoryLimiter(perMinute, now) }
	}
	return set, nil
}

// checkServices checks the store, LiveKit, sign-in and lifetime options,
// filling in their defaults, and returns the LiveKit URL for browsers.
func checkServices(opts *Options, bad func(format string, args ...any)) string {
	if opts.Store == nil {
		bad("no interview store: open one with filestore.Open(dataDir) or postgres.Open(ctx, url)")
	}
	var clientURL string
	if lk, err := lkurl.Parse(opts.LiveKitURL); err != nil {
		bad("%v", err)
	} else {
		clientURL = lk.String()
	}
	if opts.APIKey == "" || opts.APISecret == "" {
		bad("LiveKit API key and secret are required to sign room tokens: set LIVEKIT_API_KEY and LIVEKIT_API_SECRET (devkey and secret for livekit-server --dev)")
	}
	if opts.AgentName == "" {
		opts.AgentName = config.DefaultAgentName
	}
	if opts.Accounts == nil && opts.ReviewerToken == "" {
		bad("no one can sign in: give the user accounts (run viva users add --email you@example.com --role admin), or, for development only, set VIVA_REVIEWER_TOKEN to a shared password")
	}
	if opts.ReviewerToken != "" && len(opts.ReviewerToken) < MinReviewerTokenLen {
		bad("the reviewer token is shorter than %d characters: set VIVA_REVIEWER_TOKEN to a random value, for example from: openssl rand -hex 16", MinReviewerTokenLen)
	}
	switch {
	case opts.TokenTTL == 0:
		opts.TokenTTL = config.DefaultTokenTTL
	case opts.TokenTTL < time.Minute:
		bad("token lifetime %s is too short: use at least 1m, such as 2h", opts.TokenTTL)
	}
	switch {
	case opts.LinkTTL == 0:
		opts.LinkTTL = interviews.DefaultLinkTTL
	case opts.LinkTTL < time.Minute:
		bad("link lifetime %s is too short: use at least 1h, such as 168h (7 days)", opts.LinkTTL)
	}
	if opts.RejoinGrace < 0 {
		bad("rejoin grace %s is negative: use 0 to end an interview as soon as the candidate leaves, or a duration such as 60s", opts.RejoinGrace)
	}
	return clientURL
}

// checkPublicURL returns the public URL without its trailing slash.
func checkPublicURL(public string, bad func(format string, args ...any)) string {
	publicURL := strings.TrimRight(public, "/")
	if publicURL != "" {
		u, err := url.Parse(publicURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
			bad("public URL %q is not an http:// or https:// address such as https://interviews.example.com", public)
		}
	}
	return publicURL
}

// offeredBlueprints are the plans offered in the form, from their names
// (default: the built-in ones), "default" first when listed.
func offeredBlueprints(names []string, bad func(format string, args ...any)) []blueprintOption {
	if len(names) == 0 {
		names = stages.BuiltinNames()
	}
	var blueprints []blueprintOption
	for _, name := range names {
		name = strings.TrimSpace(name)
		if name == "" {
			bad("a blueprint name is empty: list names such as default or system-design")
			continue
		}
		if slices.ContainsFunc(blueprints, func(b blueprintOption) bool { return b.Name == name }) {
			continue
		}
		blueprints = append(blueprints, blueprintOption{Name: name, Title: blueprintTitle(name), KnowledgeCapture: knowledgeCapture(name), NoTemplate: noTemplate(name),
			Problems: problemOptions(name)})
	}
	if i := slices.IndexFunc(blueprints, func(b blueprintOption) bool { return b.Name == "default" }); i > 0 {
		d := blueprints[i]
		blueprints = append([]blueprintOption{d}, slices.Delete(blueprints, i, i+1)...)
	}
	return blueprints
}

// offeredTemplates are the role templates offered in the form, without
// duplicates, titled.
func offeredTemplates(list []TemplateChoice, bad func(format string, args ...any)) []TemplateChoice {
	var templates []TemplateChoice
	for _, tc := range list {
		tc.Name, tc.Title = strings.TrimSpace(tc.Name), strings.TrimSpace(tc.Title)
		if tc.Name == "" {
			bad("a role template name is empty: list names such as fullstack-senior")
			continue
		}
		if slices.ContainsFunc(templates, func(t TemplateChoice) bool { return t.Name == tc.Name }) {
			continue
		}
		if tc.Title == "" {
			tc.Title = tc.Name
		}
		templates = append(templates, tc)
	}
	return templates
}

// blueprintOption is one interview plan offered in the form.
type blueprintOption struct {
	Name  string
	Title string
	// KnowledgeCapture is true for a plan that records what a person
	// knows from a brief: the form then requires the brief.
	KnowledgeCapture bool
	// NoTemplate says why the plan asks no role template's questions;
	// empty when it does.
	NoTemplate string
	// Problems are the design problems of the plan's pool; none for a
	// plan without one.
	Problems []problemOption
}

// problemOption is a design problem of a plan's pool offered in the form.
type problemOption struct {
	ID    string
	Title string // "an online ticketing service"
}

// problemOptions are the design problems of the built-in blueprint name.
func problemOptions(name string) []problemOption {
	b, err := stages.Builtin(name)
	if err != nil {
		return nil
	}
	return problemsOf(b)
}

// problemsOf are the design problems of b's pool.
func problemsOf(b *stages.Blueprint) []problemOption {
	var out []problemOption
	for _, p := range b.Problems {
		out = append(out, problemOption{ID: p.ID, Title: p.Title})
	}
	return out
}

// TemplateChoice is a role template offered in the registration form.
type TemplateChoice struct {
	// Name identifies the template; it is stored in the record.
	Name string
	// Title is what the form shows ("Senior full-stack engineer"); empty
	// means the name.
	Title string
}

// blueprintTitle is the human name of a blueprint: its title when it is
// built in, else its name.
// noTemplate says why the built-in blueprint name asks no role
// template's questions; empty when it does.
func noTemplate(name string) string {
	b, err := stages.Builtin(name)
	if err != nil {
		return ""
	}
	if err := b.TakesTemplate(); err != nil {
		return strings.TrimPrefix(err.Error(), "stages: ")
	}
	return ""
}

func blueprintTitle(name string) string {
	if b, err := stages.Builtin(name); err == nil && b.Title != "" {
		return b.Title
	}
	return name
}
