package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews/lang"
)

// Paths of the brand's logo and the site icon.
const (
	// brandLogoPath serves a logo given as a file (Options.BrandLogo).
	brandLogoPath = "/brand/logo"
	// faviconPath is where browsers look for the site icon by themselves.
	faviconPath = "/favicon.ico"
	// faviconFile is the site icon within the static files, linked from
	// every page.
	faviconFile = "favicon.svg"
)

// maxLogoBytes bounds a logo file read at start.
const maxLogoBytes = 1 << 20

// maxConsentTextBytes bounds the consent wording: what the record keeps.
const maxConsentTextBytes = 4 << 10

// brand is who the candidate is interviewing with, as every page shows it.
type brand struct {
	// Name is the company name (config.DefaultBrandName when unset).
	Name string
	// LogoURL is the logo's address: brandLogoPath for a file, the https://
	// URL as given, or empty for none.
	LogoURL string

	// logo and logoType are a file logo's bytes and media type.
	logo     []byte
	logoType string
}

// newBrand checks the brand options: the logo is an image file (read now,
// so a bad path fails at start) or an https:// URL.
func newBrand(name, logo string) (brand, error) {
	b := brand{Name: strings.TrimSpace(name)}
	if b.Name == "" {
		b.Name = config.DefaultBrandName
	}
	switch {
	case logo == "":
	case strings.Contains(logo, "://"):
		u, err := url.Parse(logo)
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return brand{}, fmt.Errorf("web: brand logo %q is not an https:// URL: give an https:// address or a path to an image file", logo)
		}
		b.LogoURL = u.String()
	default:
		ext := strings.ToLower(filepath.Ext(logo))
		if !slices.Contains(config.LogoExtensions, ext) {
			return brand{}, fmt.Errorf("web: brand logo %s is not an image file: use one of %s", logo, strings.Join(config.LogoExtensions, ", "))
		}
		data, err := os.ReadFile(logo)
		switch {
		case err != nil:
			return brand{}, fmt.Errorf("web: brand logo: %w: set VIVA_BRAND_LOGO to an existing image file or an https:// URL", err)
		case len(data) == 0 || len(data) > maxLogoBytes:
			return brand{}, fmt.Errorf("web: brand logo %s is empty or larger than %d KiB: use a smaller image", logo, maxLogoBytes>>10)
		}
		b.logo, b.logoType, b.LogoURL = data, mime.TypeByExtension(ext), brandLogoPath
		if b.logoType == "" {
			b.logoType = "application/octet-stream"
		}
	}
	return b, nil
}

// logoOrigin is the origin of a logo served from elsewhere, for the
// Content Security Policy; empty when the logo is served here or absent.
func (b brand) logoOrigin() string {
	if b.logo != nil || b.LogoURL == "" {
		return ""
	}
	u, err := url.Parse(b.LogoURL)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// handleLogo serves a logo given as a file.
func (s *Server) handleLogo(w http.ResponseWriter, r *http.Request) {
	if s.brand.logo == nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", s.brand.logoType)
	w.Header().Set("Cache-Control", "public, max-age=3600")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(s.brand.logo))
}

// handleFavicon serves the site icon at the address browsers ask for
// unprompted.
func (s *Server) handleFavicon(w http.ResponseWriter, r *http.Request) {
	http.ServeFileFS(w, r, s.static, faviconFile)
}

// consents are the notices candidates agree to: the operator's own
// wording for every interview, or the built-in wording in each shipped
// language.
type consents struct {
	// own is the operator's wording; empty for the built-in one.
	own consent
	// builtin are the built-in wording by base language tag.
	builtin map[string]consent
}

// newConsents returns the notices of the operator's text, or of the
// built-in wording (DefaultConsentText) in each shipped language when
// text is empty.
func newConsents(text, brandName string, recordsAudio bool) (consents, error) {
	if strings.TrimSpace(text) != "" {
		own, err := newConsent(text, brandName, recordsAudio)
		return consents{own: own}, err
	}
	cs := consents{builtin: map[string]consent{}}
	for _, l := range lang.Languages {
		c, err := newConsent(defaultConsentIn(l.Tag, brandName, recordsAudio), brandName, recordsAudio)
		if err != nil {
			return consents{}, err
		}
		cs.builtin[l.Tag] = c
	}
	return cs, nil
}

// For is the notice of an interview in the language tag.
func (cs consents) For(tag string) consent {
	if cs.builtin == nil {
		return cs.own
	}
	if c, ok := cs.builtin[lang.Base(tag)]; ok {
		return c
	}
	return cs.builtin[lang.Default]
}

// consent is the wording the candidate agrees to before joining, and its
// version.
type consent struct {
	// Text is the wording shown, exactly as stored in the record.
	Text string
	// Version is "sha256:" and the first 12 hex digits of Text's hash.
	Version string
}

// newConsent returns the consent of text, or of the built-in wording
// (DefaultConsentText) when text is empty.
func newConsent(text, brandName string, recordsAudio bool) (consent, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		text = DefaultConsentText(brandName, recordsAudio)
	}
	if len(text) > maxConsentTextBytes {
		return consent{}, fmt.Errorf("web: the consent wording is %d bytes long: keep it within %d bytes", len(text), maxConsentTextBytes)
	}
	return consent{Text: text, Version: ConsentVersion(text)}, nil
}

// ConsentVersion identifies a consent wording: "sha256:" and the first 12
// hex digits of its SHA-256, so changed wording is a new version.
func ConsentVersion(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])[:12]
}

// DefaultConsentText is the built-in notice a candidate agrees to: an AI
// interviewer conducts the interview, what is recorded (audio only when it
// is), what is observed as context, and a person at the company reviews
// the result.
func DefaultConsentText(brandName string, recordsAudio bool) string {
	return defaultConsentIn(lang.Default, brandName, recordsAudio)
}

// defaultConsentIn is DefaultConsentText in the language tag.
func defaultConsentIn(tag, brandName string, recordsAudio bool) string {
	recorded := lang.Text(tag, lang.ConsentTranscript)
	if recordsAudio {
		recorded = lang.Text(tag, lang.ConsentAudio)
	}
	return lang.Text(tag, lang.ConsentAI) + " " + recorded + " " + lang.Text(tag, lang.ConsentObserved) + " " +
		lang.Textf(tag, lang.ConsentReviewf, brandName)
}
