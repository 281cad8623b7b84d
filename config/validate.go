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
	for _, check := range []func() []error{c.checkFields, c.checkEndpointing, c.checkEngineKeys, c.checkTogether} {
		errs = append(errs, check()...)
	}
	return errors.Join(errs...)
}

// checkFields runs each setting's own checks (its check tag); a value
// that did not parse was reported by Load already.
func (c *Config) checkFields() []error {
	var errs []error
	for _, s := range settings {
		o := c.origin(s.Key)
		if o.failed || !c.Reads(s.Key) {
			continue
		}
		v := reflect.ValueOf(c).Elem().Field(s.index)
		for _, r := range s.checks {
			if what := r.check(v); what != "" {
				errs = append(errs, s.problem(o, c, what))
				break
			}
		}
	}
	return errs
}

// checkEndpointing checks that the endpointing delay lies between its
// minimum and maximum.
func (c *Config) checkEndpointing() []error {
	minS, delayS, maxS := lookup("endpointing_min"), lookup("endpointing_delay"), lookup("endpointing_max")
	if !c.Reads(delayS.Key) {
		return nil
	}
	switch {
	case c.EndpointingMin > c.EndpointingMax:
		return []error{minS.problem(c.origin(minS.Key), c,
			fmt.Sprintf("is above the endpointing maximum %s (%s)", c.EndpointingMax, maxS.label(c.origin(maxS.Key))))}
	case c.EndpointingDelay < c.EndpointingMin:
		return []error{delayS.problem(c.origin(delayS.Key), c,
			fmt.Sprintf("is below the endpointing minimum %s (%s)", c.EndpointingMin, minS.label(c.origin(minS.Key))))}
	case c.EndpointingDelay > c.EndpointingMax:
		return []error{delayS.problem(c.origin(delayS.Key), c,
			fmt.Sprintf("is above the endpointing maximum %s (%s)", c.EndpointingMax, maxS.label(c.origin(maxS.Key))))}
	}
	return nil
}

// checkEngineKeys checks that an engine chosen explicitly has its key.
func (c *Config) checkEngineKeys() []error {
	var errs []error
	openAIReady := c.OpenAIAPIKey != "" || c.OpenAIBaseURL != ""
	needsKey := func(key, engine, secretEnv, compatible, offline string) {
		if !c.Reads(key) {
			return
		}
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
	return errs
}

// checkTogether checks the settings that only make sense with, or
// without, another one.
func (c *Config) checkTogether() []error {
	var errs []error
	if c.Reads("record_retention") && c.RecordRetention > 0 && c.RecordRetention < MinRecordRetention {
		s := lookup("record_retention")
		errs = append(errs, s.problem(c.origin(s.Key), c, "is shorter than a day, which would erase interviews before anyone reads them"))
	}

	if hooks := lookup("webhook_urls"); c.Reads(hooks.Key) && c.WebhookURLs != "" && c.WebhookSecret == "" {
		errs = append(errs, fmt.Errorf("%s is set but VIVA_WEBHOOK_SECRET is not: set it to at least 16 random characters (for example from: openssl rand -hex 32) so receivers can check each event's signature",
			hooks.label(c.origin(hooks.Key))))
	}

	if endS, bucketS := lookup("recordings_s3_endpoint"), lookup("recordings_s3_bucket"); c.Reads(bucketS.Key) && (c.RecordingsS3Endpoint == "") != (c.RecordingsS3Bucket == "") {
		errs = append(errs, fmt.Errorf("%s and %s go together: set both to keep recordings in object storage, or neither to keep them in the recordings directory",
			endS.label(c.origin(endS.Key)), bucketS.label(c.origin(bucketS.Key))))
	} else if c.Reads(bucketS.Key) && c.RecordingsS3Bucket != "" && (c.S3AccessKeyID == "" || c.S3SecretAccessKey == "") {
		errs = append(errs, fmt.Errorf("%s is set but AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not: set both to the bucket's access key", bucketS.label(c.origin(bucketS.Key))))
	}

	if textS, fileS := lookup("consent_text"), lookup("consent_file"); c.Reads(textS.Key) && c.ConsentText != "" && c.ConsentFile != "" {
		errs = append(errs, fmt.Errorf("%s and %s are both set: keep one of them", textS.label(c.origin(textS.Key)), fileS.label(c.origin(fileS.Key))))
	}

	keyS, secretS := lookup("livekit_api_key"), lookup("livekit_api_secret")
	switch {
	case !c.Reads(keyS.Key):
	case c.LiveKitAPIKey != "" && c.LiveKitAPISecret == "":
		errs = append(errs, fmt.Errorf("%s is set but LIVEKIT_API_SECRET is not: set both (devkey and secret for livekit-server --dev) or neither",
			keyS.label(c.origin(keyS.Key))))
	case c.LiveKitAPIKey == "" && c.LiveKitAPISecret != "":
		errs = append(errs, fmt.Errorf("%s is set but LIVEKIT_API_KEY is not: set both (devkey and secret for livekit-server --dev) or neither",
			secretS.label(c.origin(secretS.Key))))
	}
	return errs
}
