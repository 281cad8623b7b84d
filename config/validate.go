package config

import (
	"errors"
	"fmt"
	"reflect"
	"time"
)

// MinRecordRetention is the shortest record retention accepted besides 0:
// a shorter one, a slip for hours or days, would erase interviews before
// anyone reads them.
const MinRecordRetention = 24 * time.Hour

// Validate checks every setting and the settings that depend on each other
// (the endpointing delays; an engine chosen explicitly needs its key). It
// returns every problem found, joined, each naming the setting as the user
// set it.
func (c *Config) Validate() error {
	var errs []error
	for _, s := range settings {
		o := c.origin(s.Key)
		if o.failed {
			continue // already reported by Load
		}
		v := reflect.ValueOf(c).Elem().Field(s.index)
		for _, r := range s.checks {
			if what := r.check(v); what != "" {
				errs = append(errs, s.problem(o, c, what))
				break
			}
		}
	}

	minS, delayS, maxS := lookup("endpointing_min"), lookup("endpointing_delay"), lookup("endpointing_max")
	switch {
	case c.EndpointingMin > c.EndpointingMax:
		errs = append(errs, minS.problem(c.origin(minS.Key), c,
			fmt.Sprintf("is above the endpointing maximum %s (%s)", c.EndpointingMax, maxS.label(c.origin(maxS.Key)))))
	case c.EndpointingDelay < c.EndpointingMin:
		errs = append(errs, delayS.problem(c.origin(delayS.Key), c,
			fmt.Sprintf("is below the endpointing minimum %s (%s)", c.EndpointingMin, minS.label(c.origin(minS.Key)))))
	case c.EndpointingDelay > c.EndpointingMax:
		errs = append(errs, delayS.problem(c.origin(delayS.Key), c,
			fmt.Sprintf("is above the endpointing maximum %s (%s)", c.EndpointingMax, maxS.label(c.origin(maxS.Key)))))
	}

	openAIReady := c.OpenAIAPIKey != "" || c.OpenAIBaseURL != ""
	needsKey := func(key, engine, secretEnv, compatible, offline string) {
		s := lookup(key)
		errs = append(errs, fmt.Errorf("%s needs %s: set it%s, or choose %s",
			s.show(c.origin(key), engine, false), secretEnv, compatible, offline))
	}
	const viaBaseURL = " (or OPENAI_BASE_URL for a compatible server such as Ollama)"
	if c.LLM == EngineOpenAI && !openAIReady {
		needsKey("llm", EngineOpenAI, "OPENAI_API_KEY", viaBaseURL, "scripted for the offline interviewer")
	}
	if c.STT == EngineDeepgram && c.DeepgramAPIKey == "" {
		needsKey("stt", EngineDeepgram, "DEEPGRAM_API_KEY", "", "sphinx for offline recognition")
	}
	if c.STT == EngineOpenAI && !openAIReady {
		needsKey("stt", EngineOpenAI, "OPENAI_API_KEY", viaBaseURL, "sphinx for offline recognition")
	}
	if c.TTS == EngineOpenAI && !openAIReady {
		needsKey("tts", EngineOpenAI, "OPENAI_API_KEY", viaBaseURL, "flite for offline speech")
	}

	if c.RecordRetention > 0 && c.RecordRetention < MinRecordRetention {
		s := lookup("record_retention")
		errs = append(errs, s.problem(c.origin(s.Key), c, "is shorter than a day, which would erase interviews before anyone reads them"))
	}

	if hooks := lookup("webhook_urls"); c.WebhookURLs != "" && c.WebhookSecret == "" {
		errs = append(errs, fmt.Errorf("%s is set but VIVA_WEBHOOK_SECRET is not: set it to at least 16 random characters (for example from: openssl rand -hex 32) so receivers can check each event's signature",
			hooks.label(c.origin(hooks.Key))))
	}

	if textS, fileS := lookup("consent_text"), lookup("consent_file"); c.ConsentText != "" && c.ConsentFile != "" {
		errs = append(errs, fmt.Errorf("%s and %s are both set: keep one of them", textS.label(c.origin(textS.Key)), fileS.label(c.origin(fileS.Key))))
	}

	keyS, secretS := lookup("livekit_api_key"), lookup("livekit_api_secret")
	switch {
	case c.LiveKitAPIKey != "" && c.LiveKitAPISecret == "":
		errs = append(errs, fmt.Errorf("%s is set but LIVEKIT_API_SECRET is not: set both (devkey and secret for livekit-server --dev) or neither",
			keyS.label(c.origin(keyS.Key))))
	case c.LiveKitAPIKey == "" && c.LiveKitAPISecret != "":
		errs = append(errs, fmt.Errorf("%s is set but LIVEKIT_API_KEY is not: set both (devkey and secret for livekit-server --dev) or neither",
			secretS.label(c.origin(secretS.Key))))
	}
	return errors.Join(errs...)
}
