package engines

import (
	"fmt"
	"strings"

	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/lang"
)

// englishOnly names the engines of each kind that work in English only:
// the offline ones.
var englishOnly = map[string]string{
	config.EngineSphinx:   "the offline speech recogniser (pocketsphinx)",
	config.EngineFlite:    "the offline voice (flite)",
	config.EngineScripted: "the offline interviewer (scripted)",
}

// CheckLanguage reports whether the engines cfg chooses — or, for an
// interview with its own provider keys, the engines those keys enable
// (OwnKeysConfig) — can hold an interview in the language tag (checked
// with lang.Parse): English always; another language only with a
// recogniser, a voice and a model that are not the offline ones, which are
// English only. The error says which engines cannot and which can, for the
// person choosing the language.
func CheckLanguage(cfg *config.Config, tag string, keys interviews.Keys) error {
	if lang.IsDefault(tag) {
		return nil
	}
	if !keys.Empty() {
		cfg = OwnKeysConfig(cfg, keys)
	}
	var cannot []string
	for _, engine := range []string{cfg.ResolvedSTT(), cfg.ResolvedTTS(), cfg.ResolvedLLM()} {
		if what, ok := englishOnly[engine]; ok {
			cannot = append(cannot, what)
		}
	}
	if len(cannot) == 0 {
		return nil
	}
	return fmt.Errorf("This server cannot hold interviews in %s: %s %s English only. "+
		"Interviews in other languages need Deepgram or OpenAI speech recognition, OpenAI speech and an OpenAI model: "+
		"ask the administrator to set OPENAI_API_KEY (and DEEPGRAM_API_KEY for Deepgram), or choose English",
		lang.Lookup(tag).Name, joinAnd(cannot), map[bool]string{true: "works in", false: "work in"}[len(cannot) == 1])
}

// joinAnd joins items as "a, b and c".
func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}
