package config

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// load runs Load with args, an environment and, when file is not empty, a
// config.yaml holding file passed with --config. It returns the file's path.
func load(t *testing.T, args []string, env map[string]string, file string) (*Config, error, string) {
	t.Helper()
	path := ""
	if file != "" {
		path = filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
			t.Fatal(err)
		}
		args = append([]string{"--config", path}, args...)
	}
	fs := flag.NewFlagSet("viva", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c, err := Load(fs, args, func(k string) string { return env[k] })
	return c, err, path
}

func TestRecordingSettings(t *testing.T) {
	for _, c := range []struct {
		name      string
		args      []string
		env       map[string]string
		record    bool
		retention time.Duration
		dir       string
	}{
		{"defaults", nil, nil, true, 90 * 24 * time.Hour, filepath.Join("data", "interviews", "recordings")},
		{"off by flag", []string{"--record-audio=false"}, nil, false, 90 * 24 * time.Hour, filepath.Join("data", "interviews", "recordings")},
		{"flag over env", []string{"--record-audio", "true"}, map[string]string{"VIVA_RECORD_AUDIO": "false"}, true, 90 * 24 * time.Hour, filepath.Join("data", "interviews", "recordings")},
		{"env", nil, map[string]string{"VIVA_RECORD_AUDIO": "0", "VIVA_RECORDING_RETENTION": "0", "VIVA_RECORDINGS_DIR": "/srv/rec"}, false, 0, "/srv/rec"},
		{"hours", []string{"--recording-retention", "720h"}, nil, true, 30 * 24 * time.Hour, filepath.Join("data", "interviews", "recordings")},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err, _ := load(t, c.args, c.env, "")
			if err != nil {
				t.Fatal(err)
			}
			if cfg.RecordAudio != c.record || cfg.RecordingRetention != c.retention || filepath.Clean(cfg.ResolvedRecordingsDir()) != c.dir {
				t.Fatalf("record %v, retention %v, dir %s", cfg.RecordAudio, cfg.RecordingRetention, cfg.ResolvedRecordingsDir())
			}
		})
	}
	for _, bad := range []map[string]string{{"VIVA_RECORD_AUDIO": "maybe"}, {"VIVA_RECORDING_RETENTION": "-1d"}, {"VIVA_RECORDING_RETENTION": "-5s"}} {
		if _, err, _ := load(t, nil, bad, ""); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
}

// TestRecordRetention: records are kept until erased unless a retention
// is set; a retention under a day is refused with what to use; dropping
// the texts after the report is on unless turned off.
func TestRecordRetention(t *testing.T) {
	cfg, err, _ := load(t, nil, nil, "")
	if err != nil || cfg.RecordRetention != 0 || !cfg.DropTextsAfterReport {
		t.Fatalf("defaults: retention %v, drop texts %v, err %v", cfg.RecordRetention, cfg.DropTextsAfterReport, err)
	}
	cfg, err, _ = load(t, []string{"--record-retention", "365d", "--drop-texts-after-report=false"}, nil, "")
	if err != nil || cfg.RecordRetention != 365*24*time.Hour || cfg.DropTextsAfterReport {
		t.Fatalf("set: retention %v, drop texts %v, err %v", cfg.RecordRetention, cfg.DropTextsAfterReport, err)
	}
	for _, bad := range []string{"12h", "-1d", "30"} {
		_, err, _ := load(t, nil, map[string]string{"VIVA_RECORD_RETENTION": bad}, "")
		if err == nil || !strings.Contains(err.Error(), "VIVA_RECORD_RETENTION") || !strings.Contains(err.Error(), "at least 1d") {
			t.Errorf("VIVA_RECORD_RETENTION=%s: err %v; want a refusal naming the setting and what to use", bad, err)
		}
	}
}

func TestDefaults(t *testing.T) {
	c, err, _ := load(t, nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"DataDir": "./data/interviews", "DatabaseURL": "", "RecordingsDir": "", "RecordingsS3Endpoint": "", "RecordingsS3Bucket": "", "RecordingsS3Region": "", "S3AccessKeyID": "", "S3SecretAccessKey": "", "RecordAudio": true, "RecordingRetention": 90 * 24 * time.Hour, "RecordRetention": time.Duration(0), "DropTextsAfterReport": true, "TimeScale": 1.0, "LLM": "", "OpenAIAPIKey": "", "OpenAIBaseURL": "",
		"OpenAIModel": "gpt-4o-mini", "AnalysisModel": "", "LLMFirstTokenTimeout": 8 * time.Second, "LLMChunkGapTimeout": 5 * time.Second, "STT": "", "TTS": "", "DeepgramAPIKey": "", "DeepgramModel": "nova-3",
		"OpenAISTTModel": "gpt-4o-mini-transcribe", "OpenAITTSModel": "gpt-4o-mini-tts", "OpenAITTSVoice": "alloy",
		"LiveKitURL": "", "LiveKitAPIKey": "", "LiveKitAPISecret": "", "LiveKitPort": 7880, "AgentName": "viva-interviewer",
		"MaxSessions": 100, "LoadThreshold": 0.75, "HealthAddr": ":8081", "PprofAddr": "", "DrainTimeout": 60 * time.Second, "RejoinGrace": 60 * time.Second, "EndpointingDelay": 500 * time.Millisecond,
		"EndpointingMin": 200 * time.Millisecond, "EndpointingMax": 3 * time.Second,
		"InterruptThreshold": 500 * time.Millisecond, "ThinkingPause": 2500 * time.Millisecond, "FalseInterruptionTimeout": 2 * time.Second,
		"AwayAfter": 20 * time.Second, "HearingTimeout": 5 * time.Second, "Addr": "127.0.0.1:8080", "ReviewerToken": "", "UsersFile": "", "SecretsKey": "",
		"TokenTTL": 10 * time.Minute, "LinkTTL": 168 * time.Hour, "PublicURL": "", "WebhookURLs": "", "WebhookSecret": "", "SMTPURL": "", "LogLevel": "info",
		"BrandName": "viva", "BrandLogo": "", "ConsentText": "", "ConsentFile": "",
	}
	v := reflect.ValueOf(c).Elem()
	for i := 0; i < v.NumField(); i++ {
		name := v.Type().Field(i).Name
		if !v.Type().Field(i).IsExported() {
			continue
		}
		w, ok := want[name]
		if !ok {
			t.Errorf("no expected default for %s", name)
			continue
		}
		if got := v.Field(i).Interface(); got != w {
			t.Errorf("default %s = %#v, want %#v", name, got, w)
		}
	}
	d := Default()
	d.origins = c.origins
	if !reflect.DeepEqual(d, c) {
		t.Errorf("Default() = %v, Load with nothing set = %v", d, c)
	}
	if err := Default().Validate(); err != nil {
		t.Errorf("Default().Validate() = %v", err)
	}
	if c.ResolvedLLM() != EngineScripted || c.ResolvedSTT() != EngineSphinx || c.ResolvedTTS() != EngineFlite {
		t.Errorf("with no keys the engines are %s/%s/%s, want offline ones", c.ResolvedLLM(), c.ResolvedSTT(), c.ResolvedTTS())
	}
}

// sp renders values separated by spaces.
func sp(v ...any) string { return strings.TrimSuffix(fmt.Sprintln(v...), "\n") }

func TestPrecedence(t *testing.T) {
	const file = "time_scale: 0.5\ndata_dir: /from/file\nmax_sessions: 7\nendpointing_delay: 700ms\nopenai_api_key: sk-file\n"
	tests := []struct {
		name  string
		args  []string
		env   map[string]string
		file  string
		check func(c *Config) string
	}{
		{"default", nil, nil, "", func(c *Config) string {
			return sp(c.TimeScale, c.DataDir, c.MaxSessions, c.EndpointingDelay, c.OpenAIAPIKey == "")
		}},
		{"file over default", nil, nil, file, func(c *Config) string {
			return sp(c.TimeScale, c.DataDir, c.MaxSessions, c.EndpointingDelay, c.OpenAIAPIKey)
		}},
		{"env over file", nil, map[string]string{"VIVA_TIME_SCALE": "0.25", "VIVA_DATA_DIR": "/from/env", "OPENAI_API_KEY": "sk-env"}, file, func(c *Config) string {
			return sp(c.TimeScale, c.DataDir, c.MaxSessions, c.EndpointingDelay, c.OpenAIAPIKey)
		}},
		{"flag over env over file", []string{"--time-scale=2", "--data-dir", "/from/flag", "--endpointing-delay=1s"},
			map[string]string{"VIVA_TIME_SCALE": "0.25", "VIVA_DATA_DIR": "/from/env", "VIVA_ENDPOINTING_DELAY": "900ms"}, file, func(c *Config) string {
				return sp(c.TimeScale, c.DataDir, c.MaxSessions, c.EndpointingDelay, c.OpenAIAPIKey)
			}},
		{"flag over default", []string{"-max-sessions=3"}, nil, "", func(c *Config) string { return sp(c.MaxSessions) }},
		{"empty env counts as unset", nil, map[string]string{"VIVA_TIME_SCALE": "", "VIVA_DATA_DIR": ""}, file, func(c *Config) string {
			return sp(c.TimeScale, c.DataDir)
		}},
		{"an empty flag is a value", []string{"--llm="}, map[string]string{"VIVA_LLM": "openai"}, "", func(c *Config) string {
			return fmt.Sprintf("%q", c.LLM)
		}},
		{"last flag wins", []string{"--time-scale=2", "--time-scale=3"}, nil, "", func(c *Config) string { return sp(c.TimeScale) }},
		{"durations in seconds", nil, map[string]string{"VIVA_DRAIN_TIMEOUT": "90", "VIVA_ENDPOINTING_DELAY": "0.75"}, "drain_timeout: 5\n", func(c *Config) string {
			return sp(c.DrainTimeout, c.EndpointingDelay)
		}},
		{"file durations as seconds or Go syntax", nil, nil, "drain_timeout: 5\ntoken_ttl: 1h30m\n", func(c *Config) string {
			return sp(c.DrainTimeout, c.TokenTTL)
		}},
		{"values are trimmed and enums lower-cased", nil, map[string]string{"VIVA_LLM": " Scripted ", "VIVA_LOG_LEVEL": "DEBUG", "VIVA_TTS": "auto"}, "", func(c *Config) string {
			return fmt.Sprintf("%q %q %q", c.LLM, c.LogLevel, c.TTS)
		}},
	}
	want := []string{
		"1 ./data/interviews 100 500ms true",
		"0.5 /from/file 7 700ms sk-file",
		"0.25 /from/env 7 700ms sk-env",
		"2 /from/flag 7 1s sk-file",
		"3",
		"0.5 /from/file",
		`""`,
		"3",
		"1m30s 750ms",
		"5s 1h30m0s",
		`"scripted" "debug" ""`,
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err, _ := load(t, tt.args, tt.env, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.check(c); got != want[i] {
				t.Fatalf("got %s, want %s", got, want[i])
			}
		})
	}
}

func TestConfigFileChoice(t *testing.T) {
	dir := t.TempDir()
	flagFile, envFile := filepath.Join(dir, "flag.yaml"), filepath.Join(dir, "env.yaml")
	if err := os.WriteFile(flagFile, []byte("agent_name: from-flag-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(envFile, []byte("agent_name: from-env-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{nil, map[string]string{"VIVA_CONFIG": envFile}, "from-env-file"},
		{[]string{"--config=" + flagFile}, map[string]string{"VIVA_CONFIG": envFile}, "from-flag-file"},
		{[]string{"--config=" + flagFile}, nil, "from-flag-file"},
		{nil, nil, "viva-interviewer"},
	}
	for _, tt := range tests {
		c, err, _ := load(t, tt.args, tt.env, "")
		if err != nil {
			t.Fatal(err)
		}
		if c.AgentName != tt.want {
			t.Errorf("args %v env %v: agent name %q, want %q", tt.args, tt.env, c.AgentName, tt.want)
		}
	}
}

const timeScaleUse = "use a positive number such as 0.1 (ten times faster) or 1, at most 10"

func TestInvalidValues(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		file string
		want []string // the whole error, one line per problem; FILE is the config file's path
	}{
		{"env not a number", nil, map[string]string{"VIVA_TIME_SCALE": "fast"}, "",
			[]string{`VIVA_TIME_SCALE="fast" is not a number: ` + timeScaleUse}},
		{"NaN is not a number", nil, map[string]string{"VIVA_TIME_SCALE": "NaN"}, "",
			[]string{`VIVA_TIME_SCALE="NaN" is not a number: ` + timeScaleUse}},
		{"flag zero", []string{"--time-scale=0"}, nil, "",
			[]string{`--time-scale="0" must be above 0: ` + timeScaleUse}},
		{"file too large", nil, nil, "# viva\ntime_scale: 20\n",
			[]string{`FILE:2: time_scale: "20" must be at most 10: ` + timeScaleUse}},
		{"not a whole number", nil, map[string]string{"VIVA_MAX_SESSIONS": "1.5"}, "",
			[]string{`VIVA_MAX_SESSIONS="1.5" is not a whole number: use a whole number of at least 1, such as 100`}},
		{"below minimum", []string{"--max-sessions", "0"}, nil, "",
			[]string{`--max-sessions="0" must be at least 1: use a whole number of at least 1, such as 100`}},
		{"not a duration", nil, map[string]string{"VIVA_DRAIN_TIMEOUT": "soon"}, "",
			[]string{`VIVA_DRAIN_TIMEOUT="soon" is not a duration: use a duration such as 60s or 2m, or a number of seconds`}},
		{"rejoin grace too long", []string{"--rejoin-grace=1h"}, nil, "",
			[]string{`--rejoin-grace="1h" must be at most 30m: use a duration from 0s to 30m, such as 60s`}},
		{"negative duration", nil, nil, "drain_timeout: -5s\n",
			[]string{`FILE:1: drain_timeout: "-5s" must be at least 0s: use a duration such as 60s or 2m, or a number of seconds`}},
		{"duration too short", nil, map[string]string{"VIVA_TOKEN_TTL": "30s"}, "",
			[]string{`VIVA_TOKEN_TTL="30s" must be at least 1m: use a duration from 1m to 168h, such as 10m`}},
		{"duration zero", nil, map[string]string{"VIVA_INTERRUPT_THRESHOLD": "0"}, "",
			[]string{`VIVA_INTERRUPT_THRESHOLD="0" must be above 0s: use a duration above 0 and at most 5s, such as 500ms`}},
		// The listener reads a zero endpointing delay as its own default, so
		// 0 is refused rather than silently meaning 500ms.
		{"endpointing delay zero", []string{"--endpointing-delay=0"}, nil, "",
			[]string{`--endpointing-delay="0" must be above 0s: use a duration above 0, between the endpointing minimum and maximum, such as 500ms`,
				`--endpointing-delay="0" is below the endpointing minimum 200ms (--endpointing-min): use a duration above 0, between the endpointing minimum and maximum, such as 500ms`}},
		{"endpointing min zero", nil, map[string]string{"VIVA_ENDPOINTING_MIN": "0s"}, "",
			[]string{`VIVA_ENDPOINTING_MIN="0s" must be above 0s: use a duration above 0, no longer than the endpointing maximum, such as 200ms`}},
		{"endpointing max zero", nil, nil, "endpointing_max: 0\n",
			[]string{`FILE:1: endpointing_max: "0" must be above 0s: use a duration above 0 and at most 10s, such as 3s`,
				`--endpointing-min="200ms" is above the endpointing maximum 0s (FILE:1: endpointing_max): use a duration above 0, no longer than the endpointing maximum, such as 200ms`}},
		{"duration too long", []string{"--endpointing-max=20s"}, nil, "",
			[]string{`--endpointing-max="20s" must be at most 10s: use a duration above 0 and at most 10s, such as 3s`}},
		{"unknown llm", nil, map[string]string{"VIVA_LLM": "gpt"}, "",
			[]string{`VIVA_LLM="gpt" is not one of auto, scripted, openai: use scripted, openai or auto`}},
		{"unknown stt", []string{"--stt=whisper"}, nil, "",
			[]string{`--stt="whisper" is not one of auto, deepgram, openai, sphinx: use deepgram, openai, sphinx or auto`}},
		{"unknown tts", nil, nil, "tts: espeak\n",
			[]string{`FILE:1: tts: "espeak" is not one of auto, openai, flite: use openai, flite or auto`}},
		{"unknown log level", nil, map[string]string{"VIVA_LOG_LEVEL": "verbose"}, "",
			[]string{`VIVA_LOG_LEVEL="verbose" is not one of debug, info, warn, error: use debug, info, warn or error`}},
		{"base URL without scheme", nil, map[string]string{"OPENAI_BASE_URL": "localhost:11434"}, "",
			[]string{`OPENAI_BASE_URL="localhost:11434" is not a full URL with a scheme and a host: use an http:// or https:// URL such as http://localhost:11434/v1`}},
		{"base URL wrong scheme", []string{"--openai-base-url=ftp://x"}, nil, "",
			[]string{`--openai-base-url="ftp://x" has the scheme "ftp": use an http:// or https:// URL such as http://localhost:11434/v1`}},
		{"livekit URL without host", nil, map[string]string{"LIVEKIT_URL": "ws://"}, "",
			[]string{`LIVEKIT_URL="ws://" is not a full URL with a scheme and a host: use a ws://, wss://, http:// or https:// URL such as ws://127.0.0.1:7880`}},
		{"public URL websocket", nil, map[string]string{"VIVA_PUBLIC_URL": "ws://x"}, "",
			[]string{`VIVA_PUBLIC_URL="ws://x" has the scheme "ws": use an http:// or https:// URL such as https://interviews.example.com`}},
		{"agent name with a space", nil, map[string]string{"VIVA_AGENT_NAME": "viva interviewer"}, "",
			[]string{`VIVA_AGENT_NAME="viva interviewer" is not a name of up to 64 letters, digits, '.', '-' and '_': use letters, digits, '.', '-' and '_', such as viva-interviewer`}},
		{"addr without port", nil, map[string]string{"VIVA_ADDR": "8080"}, "",
			[]string{`VIVA_ADDR="8080" is not a host:port address: use host:port such as 127.0.0.1:8080 or :8080`}},
		{"addr bad port", []string{"--addr=:99999"}, nil, "",
			[]string{`--addr=":99999" has no valid port (0 to 65535): use host:port such as 127.0.0.1:8080 or :8080`}},
		{"blank data dir", nil, map[string]string{"VIVA_DATA_DIR": "   "}, "",
			[]string{`VIVA_DATA_DIR="   " is empty: use a directory path such as ./data/interviews`}},
		{"short reviewer token", nil, map[string]string{"VIVA_REVIEWER_TOKEN": "abc123"}, "",
			[]string{`VIVA_REVIEWER_TOKEN is too short (6 characters): use at least 16 random characters, for example from: openssl rand -hex 16`}},
		{"secrets key too short", nil, map[string]string{"VIVA_SECRETS_KEY": "00112233"}, "",
			[]string{`VIVA_SECRETS_KEY decodes to 6 bytes, not 32: use 32 bytes as 64 hex characters or base64, for example from: openssl rand -hex 32`}},
		{"secrets key not encoded", nil, map[string]string{"VIVA_SECRETS_KEY": "not a key!"}, "",
			[]string{`VIVA_SECRETS_KEY is neither 64 hex characters nor base64 of 32 bytes: use 32 bytes as 64 hex characters or base64, for example from: openssl rand -hex 32`}},
		{"endpointing delay below min", nil, map[string]string{"VIVA_ENDPOINTING_DELAY": "100ms"}, "",
			[]string{`VIVA_ENDPOINTING_DELAY="100ms" is below the endpointing minimum 200ms (--endpointing-min): use a duration above 0, between the endpointing minimum and maximum, such as 500ms`}},
		{"endpointing delay above max", []string{"--endpointing-delay=2s"}, nil, "endpointing_max: 1s\n",
			[]string{`--endpointing-delay="2s" is above the endpointing maximum 1s (FILE:1: endpointing_max): use a duration above 0, between the endpointing minimum and maximum, such as 500ms`}},
		{"endpointing min above max", nil, map[string]string{"VIVA_ENDPOINTING_MIN": "4s"}, "",
			[]string{`VIVA_ENDPOINTING_MIN="4s" is above the endpointing maximum 3s (--endpointing-max): use a duration above 0, no longer than the endpointing maximum, such as 200ms`}},
		{"deepgram without key (env)", nil, map[string]string{"VIVA_STT": "deepgram"}, "",
			[]string{`VIVA_STT=deepgram needs DEEPGRAM_API_KEY: set it, or choose sphinx for offline recognition`}},
		{"deepgram without key (flag)", []string{"--stt", "deepgram"}, nil, "",
			[]string{`--stt=deepgram needs DEEPGRAM_API_KEY: set it, or choose sphinx for offline recognition`}},
		{"deepgram without key (file)", nil, nil, "stt: deepgram\n",
			[]string{`FILE:1: stt: deepgram needs DEEPGRAM_API_KEY: set it, or choose sphinx for offline recognition`}},
		{"openai stt without key", nil, map[string]string{"VIVA_STT": "openai", "DEEPGRAM_API_KEY": "dg"}, "",
			[]string{`VIVA_STT=openai needs OPENAI_API_KEY: set it (or OPENAI_BASE_URL for a compatible server such as Ollama), or choose sphinx for offline recognition`}},
		{"openai llm without key", nil, map[string]string{"VIVA_LLM": "openai"}, "",
			[]string{`VIVA_LLM=openai needs OPENAI_API_KEY: set it (or OPENAI_BASE_URL for a compatible server such as Ollama), or choose scripted for the offline interviewer`}},
		{"openai tts without key", []string{"--tts=openai"}, nil, "",
			[]string{`--tts=openai needs OPENAI_API_KEY: set it (or OPENAI_BASE_URL for a compatible server such as Ollama), or choose flite for offline speech`}},
		{"livekit key without secret", nil, map[string]string{"LIVEKIT_API_KEY": "devkey"}, "",
			[]string{`LIVEKIT_API_KEY is set but LIVEKIT_API_SECRET is not: set both (devkey and secret for livekit-server --dev) or neither`}},
		{"livekit secret without key", nil, nil, "livekit_api_secret: s3cr3t\n",
			[]string{`FILE:1: livekit_api_secret is set but LIVEKIT_API_KEY is not: set both (devkey and secret for livekit-server --dev) or neither`}},
		{"every problem at once", []string{"--log-level=loud"}, map[string]string{"VIVA_TIME_SCALE": "fast", "VIVA_STT": "deepgram", "VIVA_ADDR": "x"}, "max_sessions: many\n",
			[]string{
				`VIVA_TIME_SCALE="fast" is not a number: ` + timeScaleUse,
				`FILE:1: max_sessions: "many" is not a whole number: use a whole number of at least 1, such as 100`,
				`VIVA_ADDR="x" is not a host:port address: use host:port such as 127.0.0.1:8080 or :8080`,
				`--log-level="loud" is not one of debug, info, warn, error: use debug, info, warn or error`,
				`VIVA_STT=deepgram needs DEEPGRAM_API_KEY: set it, or choose sphinx for offline recognition`,
			}},
		{"an overridden bad value is not reported", []string{"--time-scale=0.5"}, map[string]string{"VIVA_TIME_SCALE": "fast"}, "time_scale: slow\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err, path := load(t, tt.args, tt.env, tt.file)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Load() = %v, want no error", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("Load() succeeded, want %q", tt.want)
			}
			if c != nil {
				t.Errorf("Load() returned a Config with its error")
			}
			want := strings.ReplaceAll(strings.Join(tt.want, "\n"), "FILE", path)
			if err.Error() != want {
				t.Fatalf("Load() error:\n%s\nwant:\n%s", err, want)
			}
		})
	}
}

func TestValidValuesAccepted(t *testing.T) {
	env := map[string]string{
		"VIVA_TIME_SCALE": "10", "VIVA_LLM": "OpenAI", "OPENAI_BASE_URL": "http://localhost:11434/v1",
		"VIVA_STT": "openai", "VIVA_TTS": "openai", "LIVEKIT_URL": "wss://project.livekit.cloud",
		"LIVEKIT_API_KEY": "APIabc", "LIVEKIT_API_SECRET": "secret", "VIVA_AGENT_NAME": "viva_interviewer.v2",
		"VIVA_MAX_SESSIONS": "1", "VIVA_DRAIN_TIMEOUT": "0", "VIVA_ENDPOINTING_MIN": "1ms", "VIVA_ENDPOINTING_DELAY": "3s",
		"VIVA_ENDPOINTING_MAX": "3s", "VIVA_INTERRUPT_THRESHOLD": "5s", "VIVA_ADDR": ":0", "VIVA_REVIEWER_TOKEN": "0123456789abcdef",
		"VIVA_SECRETS_KEY": strings.Repeat("ab", 32),
		"VIVA_TOKEN_TTL":   "168h", "VIVA_PUBLIC_URL": "https://interviews.example.com", "VIVA_LOG_LEVEL": "warn",
	}
	c, err, _ := load(t, nil, env, "")
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	// openai engines with a compatible server and no key are allowed.
	if c.ResolvedLLM() != EngineOpenAI || c.ResolvedSTT() != EngineOpenAI || c.ResolvedTTS() != EngineOpenAI {
		t.Fatalf("engines %s/%s/%s", c.ResolvedLLM(), c.ResolvedSTT(), c.ResolvedTTS())
	}
	if c.SlogLevel() != slog.LevelWarn {
		t.Fatalf("SlogLevel = %v", c.SlogLevel())
	}
}

func TestFileErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		want string // FILE is the path
	}{
		{"unknown key with its line", "time_scale: 1\n\nagent_name: x\nfavourite_colour: blue\n",
			`FILE:4: unknown setting "favourite_colour": known settings are data_dir, database_url, recordings_dir, recordings_s3_endpoint, recordings_s3_bucket, recordings_s3_region, aws_access_key_id, aws_secret_access_key, record_audio, recording_retention, record_retention, drop_texts_after_report, time_scale, llm, openai_api_key, openai_base_url, openai_model, analysis_model, llm_first_token_timeout, llm_chunk_gap_timeout, stt, tts, deepgram_api_key, deepgram_model, openai_stt_model, openai_tts_model, openai_tts_voice, livekit_url, livekit_api_key, livekit_api_secret, livekit_port, agent_name, max_sessions, drain_timeout, rejoin_grace, endpointing_delay, endpointing_min, endpointing_max, interrupt_threshold, thinking_pause, false_interruption_timeout, away_after, hearing_timeout, addr, reviewer_token, users_file, secrets_key, token_ttl, link_ttl, public_url, webhook_urls, webhook_secret, smtp_url, brand_name, brand_logo, consent_text, consent_file, log_level, load_threshold, health_addr, pprof_addr`},
		{"typo", "# settings\ntime_scael: 0.5\n", `FILE:2: unknown setting "time_scael": did you mean time_scale?`},
		{"env name as key", "OPENAI_API_KEY: sk-test\n", `FILE:1: unknown setting "OPENAI_API_KEY": did you mean openai_api_key?`},
		{"flag name as key", "time-scale: 0.5\n", `FILE:1: unknown setting "time-scale": did you mean time_scale?`},
		{"two unknown keys", "a_b_c_d_e: 1\nx_y_z_w_v: 2\n", "FILE:1: unknown setting \"a_b_c_d_e\": known settings are"},
		{"set twice", "time_scale: 1\nllm: scripted\ntime_scale: 2\n", `FILE:3: time_scale is set twice (first on line 1): keep one`},
		{"list value", "llm:\n  - openai\n", `FILE:1: llm must be a single value, not a list or a map: use scripted, openai or auto`},
		{"map value", "addr: {host: x}\n", `FILE:1: addr must be a single value, not a list or a map: use host:port such as 127.0.0.1:8080 or :8080`},
		{"syntax error", "time_scale: 1\nllm: scripted\n  stt: sphinx\n", "FILE:3: mapping values are not allowed in this context: fix the YAML around this line"},
		{"not a mapping", "- time_scale\n- llm\n", `FILE:1: expected settings as "key: value" lines, such as time_scale: 0.5`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err, path := load(t, nil, nil, tt.file)
			if err == nil {
				t.Fatal("Load() succeeded")
			}
			want := strings.ReplaceAll(tt.want, "FILE", path)
			if !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("Load() error:\n%s\nwant it to start with:\n%s", err, want)
			}
		})
	}
	t.Run("every unknown key is reported", func(t *testing.T) {
		_, err, _ := load(t, nil, nil, "tme_scale: 1\nllm: scripted\nadr: x\n")
		if err == nil || !strings.Contains(err.Error(), ":1: unknown setting \"tme_scale\"") || !strings.Contains(err.Error(), ":3: unknown setting \"adr\": did you mean addr?") {
			t.Fatalf("Load() = %v", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		missing := filepath.Join(t.TempDir(), "nope.yaml")
		_, err, _ := load(t, []string{"--config", missing}, nil, "")
		if err == nil || !strings.HasPrefix(err.Error(), `--config="`+missing+`": open `) || !strings.Contains(err.Error(), "check the path") {
			t.Fatalf("Load() = %v", err)
		}
		_, err, _ = load(t, nil, map[string]string{"VIVA_CONFIG": missing}, "")
		if err == nil || !strings.HasPrefix(err.Error(), `VIVA_CONFIG="`+missing+`": open `) {
			t.Fatalf("Load() = %v", err)
		}
	})
	t.Run("empty, comments only and null values are fine", func(t *testing.T) {
		for _, file := range []string{"\n", "# nothing set\n", "llm:\ntime_scale: ~\n"} {
			c, err, _ := load(t, nil, nil, file)
			if err != nil {
				t.Fatalf("file %q: %v", file, err)
			}
			if c.LLM != "" || c.TimeScale != 1 {
				t.Fatalf("file %q changed settings: %v", file, c)
			}
		}
	})
}

func TestEngineResolution(t *testing.T) {
	tests := []struct {
		env           map[string]string
		llm, stt, tts string
	}{
		{nil, EngineScripted, EngineSphinx, EngineFlite},
		{map[string]string{"OPENAI_API_KEY": "sk"}, EngineOpenAI, EngineOpenAI, EngineOpenAI},
		{map[string]string{"DEEPGRAM_API_KEY": "dg"}, EngineScripted, EngineDeepgram, EngineFlite},
		{map[string]string{"OPENAI_API_KEY": "sk", "DEEPGRAM_API_KEY": "dg"}, EngineOpenAI, EngineDeepgram, EngineOpenAI},
		{map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"}, EngineScripted, EngineSphinx, EngineFlite},
		{map[string]string{"OPENAI_API_KEY": "sk", "DEEPGRAM_API_KEY": "dg", "VIVA_LLM": "scripted", "VIVA_STT": "sphinx", "VIVA_TTS": "flite"},
			EngineScripted, EngineSphinx, EngineFlite},
		{map[string]string{"OPENAI_API_KEY": "sk", "DEEPGRAM_API_KEY": "dg", "VIVA_STT": "openai"}, EngineOpenAI, EngineOpenAI, EngineOpenAI},
		{map[string]string{"DEEPGRAM_API_KEY": "dg", "VIVA_STT": "deepgram", "VIVA_LLM": "auto"}, EngineScripted, EngineDeepgram, EngineFlite},
	}
	for _, tt := range tests {
		c, err, _ := load(t, nil, tt.env, "")
		if err != nil {
			t.Fatalf("env %v: %v", tt.env, err)
		}
		if c.ResolvedLLM() != tt.llm || c.ResolvedSTT() != tt.stt || c.ResolvedTTS() != tt.tts {
			t.Errorf("env %v: engines %s/%s/%s, want %s/%s/%s", tt.env, c.ResolvedLLM(), c.ResolvedSTT(), c.ResolvedTTS(), tt.llm, tt.stt, tt.tts)
		}
	}
	// A Config built by hand may spell auto out.
	c := Default()
	c.LLM, c.STT, c.TTS, c.OpenAIAPIKey = "auto", "auto", "auto", "sk"
	if c.ResolvedLLM() != EngineOpenAI || c.ResolvedSTT() != EngineOpenAI || c.ResolvedTTS() != EngineOpenAI || c.Validate() != nil {
		t.Errorf("spelled-out auto: %s/%s/%s, %v", c.ResolvedLLM(), c.ResolvedSTT(), c.ResolvedTTS(), c.Validate())
	}
}

func TestSecretsNeverShown(t *testing.T) {
	secrets := map[string]string{
		"OPENAI_API_KEY":        "sk-openai-0123456789",
		"DEEPGRAM_API_KEY":      "dg-0123456789",
		"LIVEKIT_API_SECRET":    "lk-secret-0123456789",
		"VIVA_REVIEWER_TOKEN":   "reviewer-0123456789",
		"VIVA_SECRETS_KEY":      strings.Repeat("5e", 32),
		"VIVA_WEBHOOK_SECRET":   "webhook-secret-0123456789",
		"VIVA_SMTP_URL":         "smtp://viva:mail-pass-0123@smtp.example.com:587",
		"AWS_SECRET_ACCESS_KEY": "s3-secret-0123456789",
	}
	urlSecrets := []string{"hunter2", "qsecret", "hooktoken", "pg-pass-0123"}
	env := map[string]string{
		"LIVEKIT_API_KEY":             "devkey",
		"VIVA_DATABASE_URL":           "postgres://viva:pg-pass-0123@db.example.com:5432/viva",
		"OPENAI_BASE_URL":             "https://user:hunter2@llm.example.com/v1?key=qsecret",
		"VIVA_WEBHOOK_URLS":           "https://hr.example.com/hooks/hooktoken, http://ats.example.org:8080/in?t=hooktoken",
		"VIVA_RECORDINGS_S3_ENDPOINT": "https://s3.example.com", "VIVA_RECORDINGS_S3_BUCKET": "recordings", "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE",
	}
	for k, v := range secrets {
		env[k] = v
	}
	check := func(t *testing.T, what, text string) {
		t.Helper()
		for _, s := range append(urlSecrets, secretValues(secrets)...) {
			if strings.Contains(text, s) {
				t.Errorf("%s shows the secret %q:\n%s", what, s, text)
			}
		}
	}
	c, err, _ := load(t, nil, env, "")
	if err != nil {
		t.Fatal(err)
	}
	red := c.Redacted()
	for _, s := range settings {
		if _, ok := red[s.Key]; !ok {
			t.Errorf("Redacted lacks %s", s.Key)
		}
		if s.Secret && red[s.Key] != "set" {
			t.Errorf("Redacted[%s] = %q, want set", s.Key, red[s.Key])
		}
	}
	check(t, "Redacted", fmt.Sprint(red))
	if red["openai_base_url"] != "https://redacted@llm.example.com/v1?key=redacted" || red["time_scale"] != "1" || red["livekit_api_key"] != "devkey" {
		t.Errorf("Redacted = %v", red)
	}
	if red["database_url"] != "postgres://redacted@db.example.com:5432/viva" {
		t.Errorf("Redacted database URL = %q", red["database_url"])
	}
	if red["webhook_urls"] != "https://hr.example.com/…,http://ats.example.org:8080/…" {
		t.Errorf("Redacted webhook URLs = %q", red["webhook_urls"])
	}
	if got := c.WebhookURLList(); len(got) != 2 || got[1] != "http://ats.example.org:8080/in?t=hooktoken" {
		t.Errorf("WebhookURLList = %q", got)
	}
	if red["llm"] != "auto: openai" || red["stt"] != "auto: deepgram" {
		t.Errorf("Redacted engines = %s, %s", red["llm"], red["stt"])
	}
	check(t, "%v", fmt.Sprintf("%v", c))
	check(t, "%+v", fmt.Sprintf("%+v", *c))
	check(t, "%#v", fmt.Sprintf("%#v", c))
	check(t, "%s", fmt.Sprintf("%s", *c))
	var logs bytes.Buffer
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("starting", "config", c)
	check(t, "slog", logs.String())
	if !strings.Contains(logs.String(), `"openai_api_key":"set"`) {
		t.Errorf("slog output lacks the redacted settings: %s", logs.String())
	}

	empty := Default().Redacted()
	for _, s := range settings {
		if s.Secret && empty[s.Key] != "unset" {
			t.Errorf("Redacted[%s] with nothing set = %q, want unset", s.Key, empty[s.Key])
		}
	}

	// Errors about secrets and about settings beside them do not show them.
	bad := map[string]string{"VIVA_REVIEWER_TOKEN": "tiny-secret", "LIVEKIT_API_SECRET": "lk-lonely-secret", "VIVA_STT": "deepgram",
		"VIVA_DATABASE_URL": "mysql://viva:db-wrong-scheme-pass@db.example.com/viva"}
	_, err, _ = load(t, nil, bad, "openai_api_key: [sk-in-a-list]\n")
	if err == nil {
		t.Fatal("Load succeeded")
	}
	if !strings.Contains(err.Error(), "VIVA_DATABASE_URL") {
		t.Errorf("error does not name the database URL: %v", err)
	}
	for _, s := range []string{"tiny-secret", "lk-lonely-secret", "sk-in-a-list", "db-wrong-scheme-pass"} {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error shows the secret %q: %v", s, err)
		}
	}
}

// TestDecodeSecretsKey: 64 hex characters and base64 in any common
// alphabet decode to the same 32 bytes; anything else is refused; empty is
// no key.
func TestDecodeSecretsKey(t *testing.T) {
	want := bytes.Repeat([]byte{0xfb, 0xff, 0x01}, 11)[:SecretsKeySize]
	for _, text := range []string{
		hex.EncodeToString(want), strings.ToUpper(hex.EncodeToString(want)),
		base64.StdEncoding.EncodeToString(want), base64.RawStdEncoding.EncodeToString(want),
		base64.URLEncoding.EncodeToString(want), " " + base64.RawURLEncoding.EncodeToString(want) + "\n",
	} {
		got, err := DecodeSecretsKey(text)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("DecodeSecretsKey(%q) = %x, %v", text, got, err)
		}
	}
	for _, text := range []string{"abc", hex.EncodeToString(want[:31]), hex.EncodeToString(want) + "00", "zz" + hex.EncodeToString(want)[2:]} {
		if got, err := DecodeSecretsKey(text); err == nil {
			t.Errorf("DecodeSecretsKey(%q) = %x, want an error", text, got)
		}
	}
	if got, err := DecodeSecretsKey(""); got != nil || err != nil {
		t.Errorf("DecodeSecretsKey(\"\") = %x, %v", got, err)
	}
	c := Default()
	c.SecretsKey = "short"
	if _, err := c.SecretsKeyBytes(); err == nil || !strings.Contains(err.Error(), "openssl rand -hex 32") || strings.Contains(err.Error(), "short") {
		t.Errorf("SecretsKeyBytes = %v", err)
	}
}

func secretValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

func TestRedactURL(t *testing.T) {
	tests := map[string]string{
		"":                            "",
		"ws://127.0.0.1:7880":         "ws://127.0.0.1:7880",
		"https://u:p@x.example/v1":    "https://redacted@x.example/v1",
		"https://x.example/?a=1&b=2":  "https://x.example/?a=redacted&b=redacted",
		"https://x.example/#frag":     "https://x.example/",
		"http://[::1]:namedport/x%zz": "(invalid URL)",
	}
	for in, want := range tests {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFlags(t *testing.T) {
	t.Run("command flags live beside config flags", func(t *testing.T) {
		fs := flag.NewFlagSet("viva chat", flag.ContinueOnError)
		name := fs.String("name", "", "candidate name")
		c, err := Load(fs, []string{"--name", "Ada", "--time-scale", "0.05", "extra"}, func(string) string { return "" })
		if err != nil {
			t.Fatal(err)
		}
		if *name != "Ada" || c.TimeScale != 0.05 || fs.Arg(0) != "extra" {
			t.Fatalf("name %q, time scale %v, args %v", *name, c.TimeScale, fs.Args())
		}
	})
	t.Run("every setting has a flag except secrets", func(t *testing.T) {
		fs := flag.NewFlagSet("viva", flag.ContinueOnError)
		if _, err := Load(fs, nil, func(string) string { return "" }); err != nil {
			t.Fatal(err)
		}
		for _, s := range Settings() {
			f := fs.Lookup(s.Flag)
			if s.Secret != (f == nil) {
				t.Errorf("%s: secret %v, flag %v", s.Key, s.Secret, f)
			}
			if f != nil && (f.DefValue != s.Default || !strings.Contains(f.Usage, s.Env)) {
				t.Errorf("flag --%s: default %q, usage %q", s.Flag, f.DefValue, f.Usage)
			}
		}
		for _, secret := range []string{"openai-api-key", "deepgram-api-key", "livekit-api-secret", "reviewer-token"} {
			if fs.Lookup(secret) != nil {
				t.Errorf("secret has a flag --%s", secret)
			}
		}
		if f := fs.Lookup("config"); f == nil || !strings.Contains(f.Usage, "VIVA_CONFIG") || !strings.Contains(f.Usage, "OPENAI_API_KEY") {
			t.Errorf("--config flag: %+v", f)
		}
	})
	t.Run("help and unknown flags", func(t *testing.T) {
		_, err, _ := load(t, []string{"-h"}, nil, "")
		if !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("-h: %v", err)
		}
		_, err, _ = load(t, []string{"--openai-api-key=sk"}, nil, "")
		if err == nil || !strings.Contains(err.Error(), "openai-api-key") {
			t.Fatalf("secret as a flag: %v", err)
		}
	})
	t.Run("a command flag named like a setting", func(t *testing.T) {
		fs := flag.NewFlagSet("viva", flag.ContinueOnError)
		fs.String("addr", "", "")
		if _, err := Load(fs, nil, nil); err == nil || !strings.Contains(err.Error(), "already defines flag --addr") {
			t.Fatalf("Load = %v", err)
		}
	})
	t.Run("nil flag set and environment", func(t *testing.T) {
		t.Setenv("VIVA_AGENT_NAME", "from-os-env")
		c, err := Load(nil, nil, nil)
		if err != nil || c.AgentName != "from-os-env" {
			t.Fatalf("Load(nil, nil, nil) = %v, %v", c, err)
		}
	})
}

// TestWebhookSettings: webhook URLs must be http(s) URLs and need a
// signing secret of at least 16 characters; errors never show a URL's path.
func TestWebhookSettings(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"VIVA_WEBHOOK_URLS": "https://hr.example.com/hooks/tok123"},
			"VIVA_WEBHOOK_URLS is set but VIVA_WEBHOOK_SECRET is not"},
		{map[string]string{"VIVA_WEBHOOK_URLS": "https://hr.example.com/a,ftp://files.example.com/tok123", "VIVA_WEBHOOK_SECRET": "0123456789abcdef"},
			`holds a URL with the scheme "ftp"`},
		{map[string]string{"VIVA_WEBHOOK_URLS": "hr.example.com/tok123", "VIVA_WEBHOOK_SECRET": "0123456789abcdef"},
			"not a full URL"},
		{map[string]string{"VIVA_WEBHOOK_URLS": "https://hr.example.com/tok123", "VIVA_WEBHOOK_SECRET": "short"},
			"VIVA_WEBHOOK_SECRET is too short"},
	} {
		_, err, _ := load(t, nil, c.env, "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%v) = %v, want an error saying %q", c.env, err, c.want)
		} else if strings.Contains(err.Error(), "tok123") {
			t.Errorf("the error shows a URL's path: %v", err)
		}
	}
	c, err, _ := load(t, nil, map[string]string{"VIVA_WEBHOOK_URLS": " https://hr.example.com/a , ", "VIVA_WEBHOOK_SECRET": "0123456789abcdef"}, "")
	if err != nil || len(c.WebhookURLList()) != 1 {
		t.Fatalf("Load = %v, %v", c, err)
	}
}

// TestRecordingsStorageSettings: the object storage's endpoint and bucket
// go together and need the access key; errors never show the secret.
func TestRecordingsStorageSettings(t *testing.T) {
	const secret = "s3-secret-0123456789"
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"VIVA_RECORDINGS_S3_BUCKET": "recordings"}, "go together: set both"},
		{map[string]string{"VIVA_RECORDINGS_S3_ENDPOINT": "https://s3.example.com"}, "go together: set both"},
		{map[string]string{"VIVA_RECORDINGS_S3_ENDPOINT": "s3.example.com", "VIVA_RECORDINGS_S3_BUCKET": "recordings"}, "not a full URL"},
		{map[string]string{"VIVA_RECORDINGS_S3_ENDPOINT": "https://s3.example.com", "VIVA_RECORDINGS_S3_BUCKET": "recordings", "AWS_SECRET_ACCESS_KEY": secret},
			"AWS_ACCESS_KEY_ID or AWS_SECRET_ACCESS_KEY is not"},
	} {
		_, err, _ := load(t, nil, c.env, "")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Load(%v) = %v, want an error saying %q", c.env, err, c.want)
		} else if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows the secret: %v", err)
		}
	}
	c, err, _ := load(t, nil, map[string]string{"VIVA_RECORDINGS_S3_ENDPOINT": "https://s3.example.com", "VIVA_RECORDINGS_S3_BUCKET": "recordings",
		"AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": secret}, "")
	if err != nil || c.RecordingsS3Bucket != "recordings" || c.S3SecretAccessKey != secret {
		t.Fatalf("Load = %v, %v", c, err)
	}
}

func TestSettingsTable(t *testing.T) {
	keys, envs, flags := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, s := range Settings() {
		if keys[s.Key] || envs[s.Env] || (s.Flag != "" && flags[s.Flag]) {
			t.Errorf("setting %s repeats a key, env or flag name", s.Key)
		}
		keys[s.Key], envs[s.Env], flags[s.Flag] = true, true, true
		if s.Help == "" || s.Accept == "" && !s.Secret {
			t.Errorf("setting %s lacks help or accepted values", s.Key)
		}
		if s.Key != strings.ToLower(s.Key) || strings.Contains(s.Key, "-") {
			t.Errorf("YAML key %s is not snake_case", s.Key)
		}
	}
	n := 0
	for f := range reflect.TypeFor[Config]().Fields() {
		if f.IsExported() {
			n++
		}
	}
	if len(Settings()) != n {
		t.Errorf("%d settings for %d exported fields", len(Settings()), n)
	}
}

func TestValidateHandBuilt(t *testing.T) {
	c := Default()
	c.TimeScale = 0
	c.STT = "deepgram"
	err := c.Validate()
	want := `--time-scale="0" must be above 0: ` + timeScaleUse + "\n" +
		`--stt=deepgram needs DEEPGRAM_API_KEY: set it, or choose sphinx for offline recognition`
	if err == nil || err.Error() != want {
		t.Fatalf("Validate() = %v\nwant %s", err, want)
	}
	c = Default()
	c.ReviewerToken = "short-but-secret"[:10]
	if err := c.Validate(); err == nil || err.Error() != "VIVA_REVIEWER_TOKEN is too short (10 characters): use at least 16 random characters, for example from: openssl rand -hex 16" {
		t.Fatalf("Validate() = %v", err)
	}
}

func TestRequireLiveKit(t *testing.T) {
	c := Default()
	err := c.RequireLiveKit()
	if err == nil || !strings.Contains(err.Error(), "LIVEKIT_URL, LIVEKIT_API_KEY, LIVEKIT_API_SECRET not set") {
		t.Fatalf("RequireLiveKit() = %v", err)
	}
	c.LiveKitURL, c.LiveKitAPIKey = "ws://127.0.0.1:7880", "devkey"
	if err := c.RequireLiveKit(); err == nil || !strings.Contains(err.Error(), "config: LIVEKIT_API_SECRET not set") {
		t.Fatalf("RequireLiveKit() = %v", err)
	}
	c.LiveKitAPISecret = "secret"
	if err := c.RequireLiveKit(); err != nil {
		t.Fatalf("RequireLiveKit() = %v", err)
	}
}

func TestSlogLevel(t *testing.T) {
	for level, want := range map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError} {
		c, err, _ := load(t, nil, map[string]string{"VIVA_LOG_LEVEL": level}, "")
		if err != nil {
			t.Fatal(err)
		}
		if c.SlogLevel() != want {
			t.Errorf("%s: SlogLevel = %v", level, c.SlogLevel())
		}
	}
}

// TestBrandAndConsentSettings: the logo is an existing image file or an
// https:// URL, the consent file exists, and the consent wording comes from
// one place only; each problem names the setting and what to give instead.
func TestBrandAndConsentSettings(t *testing.T) {
	dir := t.TempDir()
	logo := filepath.Join(dir, "logo.svg")
	notImage := filepath.Join(dir, "logo.txt")
	consent := filepath.Join(dir, "consent.txt")
	for _, p := range []string{logo, notImage, consent} {
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		env  map[string]string
		want string // a fragment of the error; empty: valid
	}{
		{"name and file logo", map[string]string{"VIVA_BRAND_NAME": "Example Corp", "VIVA_BRAND_LOGO": logo}, ""},
		{"https logo", map[string]string{"VIVA_BRAND_LOGO": "https://example.com/logo.png"}, ""},
		{"http logo", map[string]string{"VIVA_BRAND_LOGO": "http://example.com/logo.png"}, `VIVA_BRAND_LOGO="http://example.com/logo.png" is not an https:// URL with a host`},
		{"missing logo", map[string]string{"VIVA_BRAND_LOGO": filepath.Join(dir, "nope.png")}, "is not an existing file: use a path to an existing .svg"},
		{"logo not an image", map[string]string{"VIVA_BRAND_LOGO": notImage}, "is not an image file (.svg, .png"},
		{"empty name", map[string]string{"VIVA_BRAND_NAME": " "}, `VIVA_BRAND_NAME=" " is empty`},
		{"consent file", map[string]string{"VIVA_CONSENT_FILE": consent}, ""},
		{"missing consent file", map[string]string{"VIVA_CONSENT_FILE": filepath.Join(dir, "nope.txt")}, "VIVA_CONSENT_FILE"},
		{"both consent settings", map[string]string{"VIVA_CONSENT_FILE": consent, "VIVA_CONSENT_TEXT": "I agree."}, "are both set: keep one of them"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err, _ := load(t, nil, tt.env, "")
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Load: %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Load error %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestRecordAudio: on by default; a bare flag, true/false words and the
// environment set it; anything else is refused saying what to give.
func TestRecordAudio(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  map[string]string
		want bool
		err  string
	}{
		{"default", nil, nil, true, ""},
		{"flag off", []string{"--record-audio=false"}, nil, false, ""},
		{"bare flag", []string{"--record-audio"}, map[string]string{"VIVA_RECORD_AUDIO": "false"}, true, ""},
		{"env off", nil, map[string]string{"VIVA_RECORD_AUDIO": "0"}, false, ""},
		{"not a bool", nil, map[string]string{"VIVA_RECORD_AUDIO": "sometimes"}, false, `VIVA_RECORD_AUDIO="sometimes" is not true or false: use true or false`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err, _ := load(t, tt.args, tt.env, "")
			switch {
			case tt.err != "":
				if err == nil || err.Error() != tt.err {
					t.Errorf("Load error %v, want %s", err, tt.err)
				}
			case err != nil:
				t.Errorf("Load: %v", err)
			case c.RecordAudio != tt.want:
				t.Errorf("RecordAudio = %v, want %v", c.RecordAudio, tt.want)
			}
		})
	}
}

// TestListenSettings: the health address defaults to :8081 and turns off
// with an empty flag or "off"; the profiler is off unless given; a bad
// address names the setting.
func TestListenSettings(t *testing.T) {
	c, err, _ := load(t, nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if ListenAddr(c.HealthAddr) != ":8081" || ListenAddr(c.PprofAddr) != "" {
		t.Errorf("defaults: health %q, pprof %q; want :8081 and off", c.HealthAddr, c.PprofAddr)
	}
	c, err, _ = load(t, []string{"--health-addr", "", "--pprof", "127.0.0.1:6060"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if ListenAddr(c.HealthAddr) != "" || ListenAddr(c.PprofAddr) != "127.0.0.1:6060" {
		t.Errorf("flags: health %q, pprof %q", c.HealthAddr, c.PprofAddr)
	}
	c, err, _ = load(t, nil, map[string]string{"VIVA_HEALTH_ADDR": "off"}, "")
	if err != nil || ListenAddr(c.HealthAddr) != "" {
		t.Errorf("VIVA_HEALTH_ADDR=off: %v, %v", c, err)
	}
	_, err, _ = load(t, nil, map[string]string{"VIVA_HEALTH_ADDR": "8081"}, "")
	if err == nil || !strings.Contains(err.Error(), "VIVA_HEALTH_ADDR") || !strings.Contains(err.Error(), "host:port") {
		t.Errorf("VIVA_HEALTH_ADDR=8081: %v, want an error naming it", err)
	}
	_, err, _ = load(t, []string{"--load-threshold", "1.5"}, nil, "")
	if err == nil || !strings.Contains(err.Error(), "--load-threshold") {
		t.Errorf("--load-threshold 1.5: %v, want an error naming it", err)
	}
}

// TestLoadSettingsReadsOnlyItsOwn: a command that reads some settings
// offers only their flags, checks only them, and refuses a flag of another
// command's setting.
func TestLoadSettingsReadsOnlyItsOwn(t *testing.T) {
	env := map[string]string{"VIVA_TIME_SCALE": "fast"} // not read below
	getenv := func(k string) string { return env[k] }
	fs := flag.NewFlagSet("users", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c, err := LoadSettings(fs, []string{"--data-dir", "/tmp/x"}, getenv, "data_dir", "log_level")
	if err != nil {
		t.Fatalf("a bad value of a setting the command does not read: %v", err)
	}
	if c.DataDir != "/tmp/x" || !c.Reads("data_dir") || c.Reads("time_scale") {
		t.Errorf("data dir %q, reads data_dir %v, reads time_scale %v", c.DataDir, c.Reads("data_dir"), c.Reads("time_scale"))
	}
	if fs.Lookup("llm") != nil || fs.Lookup("log-level") == nil || fs.Lookup(ConfigFlag) == nil {
		t.Errorf("flags registered: llm %v, log-level %v, config %v", fs.Lookup("llm") != nil, fs.Lookup("log-level") != nil, fs.Lookup(ConfigFlag) != nil)
	}
	fs = flag.NewFlagSet("users", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := LoadSettings(fs, []string{"--llm", "openai"}, getenv, "data_dir"); err == nil || !strings.Contains(err.Error(), "-llm") {
		t.Errorf("a flag of a setting not read: %v", err)
	}
	fs = flag.NewFlagSet("users", flag.ContinueOnError)
	if _, err := LoadSettings(fs, nil, getenv, "time_scale"); err == nil || !strings.Contains(err.Error(), `VIVA_TIME_SCALE="fast"`) {
		t.Errorf("a bad value of a setting read: %v", err)
	}
	if _, err := LoadSettings(flag.NewFlagSet("x", flag.ContinueOnError), nil, getenv, "no_such"); err == nil {
		t.Error("an unknown setting read: no error")
	}
}
