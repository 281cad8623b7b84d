// Package config is viva's one set of settings. Every setting is described
// once, on a field of Config: its flag, its environment variable, its key in
// the optional YAML file, its default, its help text and its validation.
//
// A value comes from, in order of precedence: a command-line flag, the
// environment, the YAML file named by --config or VIVA_CONFIG, and the
// default. Secrets (API keys, the LiveKit secret, the reviewer token) have no
// flag, so they never appear in a process list: set them in the environment
// or the file.
//
// An invalid value is an error at startup that names the setting the way the
// user set it (--time-scale, VIVA_TIME_SCALE or config.yaml:3: time_scale)
// and says which values are accepted. Load reports every problem at once.
// A command that reads only some settings loads with LoadSettings: its
// help and flags then show only those, and only those are checked.
//
// # Why a settings table of our own
//
// The table is the Config struct's field tags, read by reflection; the
// parsing, the precedence and the checks are about 600 lines here. We
// weighed what the module proxy serves against them:
//
//   - peterbourgon/ff/v3 and knadh/koanf/v2 layer flags, environment and
//     a file, but they resolve to a value without saying where it came
//     from, so an error could no longer name the setting as the user gave
//     it (config.yaml:3: time_scale, VIVA_TIME_SCALE or --time-scale), the
//     one thing an operator needs to fix it; secrets without flags and
//     redacted logging would still be ours.
//   - alecthomas/kong, spf13/cobra with pflag and urfave/cli replace the
//     flag package and the help of every command; they bring their own
//     help layout (groups, examples) that we would restyle, and none of
//     them reads a YAML file with line numbers.
//   - go-playground/validator/v10 checks the same tags (gt, oneof, url),
//     but its errors name the Go field ("Config.TimeScale failed on the
//     'gt' tag"); every message would be rewritten here, its custom rules
//     (the secrets key, the logo, lists of webhook URLs, listen addresses)
//     would be ours anyway, and it pulls four modules into the binary.
//
// So the rules stay a small table (rules.go: one function per rule, each
// a few lines), the YAML file is read with gopkg.in/yaml.v3's nodes (for
// line numbers), and the flags are the standard library's.
package config

import (
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"time"
)

// Config holds every setting of viva. The zero value is not useful: get one
// from Load, or from Default for tests and embedded use.
//
// Field tags describe each setting: flag (no flag for secrets), env, yaml,
// default (or, for a default other packages share, an entry in
// codeDefaults), help, accept (the accepted values, as shown in error
// messages), check (validation rules) and secret.
type Config struct {
	// DataDir is the directory that holds the interview records.
	DataDir string `flag:"data-dir" env:"VIVA_DATA_DIR" yaml:"data_dir" default:"./data/interviews" check:"nonempty" help:"directory where interview records are saved" accept:"a directory path such as ./data/interviews"`
	// DatabaseURL is the PostgreSQL database that keeps the interview
	// records when set, shared by workers on several machines and the web
	// app; empty keeps them as JSON files in DataDir. Its password is never
	// shown: give it in the environment or the file rather than the flag,
	// or in PGPASSWORD.
	DatabaseURL string `flag:"database-url" env:"VIVA_DATABASE_URL" yaml:"database_url" check:"url=postgres|postgresql" help:"PostgreSQL database for interview records, shared by workers and the web app; empty keeps them as files in the data directory" accept:"a postgres:// URL such as postgres://viva:PASSWORD@db.example.com:5432/viva (the password in VIVA_DATABASE_URL or PGPASSWORD, not on the command line)"`
	// RecordingsDir is the directory of the interviews' audio recordings;
	// empty means a "recordings" directory inside DataDir.
	RecordingsDir string `flag:"recordings-dir" env:"VIVA_RECORDINGS_DIR" yaml:"recordings_dir" help:"directory of the interviews' audio recordings (default: recordings in the data directory)" accept:"a directory path such as ./data/recordings"`
	// RecordingsS3Endpoint, when set with RecordingsS3Bucket, keeps the
	// recordings in S3-compatible object storage: workers upload each one
	// when its session ends, and web apps on any machine play it from
	// there. The recordings directory then holds only recordings being
	// written.
	RecordingsS3Endpoint string `flag:"recordings-s3-endpoint" env:"VIVA_RECORDINGS_S3_ENDPOINT" yaml:"recordings_s3_endpoint" check:"url=http|https" help:"S3-compatible object storage that keeps the recordings (AWS S3, MinIO, Cloudflare R2, Google Cloud Storage); empty keeps them in the recordings directory" accept:"an http:// or https:// URL such as https://s3.amazonaws.com or http://minio.internal:9000"`
	// RecordingsS3Bucket is the bucket of the recordings; it must exist.
	RecordingsS3Bucket string `flag:"recordings-s3-bucket" env:"VIVA_RECORDINGS_S3_BUCKET" yaml:"recordings_s3_bucket" help:"bucket that keeps the recordings, with VIVA_RECORDINGS_S3_ENDPOINT" accept:"an existing bucket's name such as viva-recordings"`
	// RecordingsS3Region is the bucket's region; empty is us-east-1.
	RecordingsS3Region string `flag:"recordings-s3-region" env:"VIVA_RECORDINGS_S3_REGION" yaml:"recordings_s3_region" help:"region of the recordings bucket (empty: us-east-1; auto for Cloudflare R2)" accept:"a region such as eu-west-1, or auto"`
	// S3AccessKeyID and S3SecretAccessKey sign the requests to the
	// recordings bucket. The secret is secret.
	S3AccessKeyID     string `flag:"recordings-s3-access-key" env:"AWS_ACCESS_KEY_ID" yaml:"aws_access_key_id" help:"access key of the recordings bucket" accept:"the access key id the storage service issued"`
	S3SecretAccessKey string `env:"AWS_SECRET_ACCESS_KEY" yaml:"aws_secret_access_key" secret:"true" help:"secret key of the recordings bucket" accept:"the secret access key the storage service issued" json:"-"`
	// RecordAudio records each interview's audio, both voices, for the
	// reviewer page; false records nothing.
	RecordAudio bool `flag:"record-audio" env:"VIVA_RECORD_AUDIO" yaml:"record_audio" default:"true" help:"record each interview's audio (both voices, Ogg/Opus) for reviewers; false records nothing" accept:"true or false"`
	// RecordingRetention is how long a recording is kept after it started
	// before the web app deletes it; zero keeps recordings forever.
	RecordingRetention time.Duration `flag:"recording-retention" env:"VIVA_RECORDING_RETENTION" yaml:"recording_retention" default:"90d" check:"ge=0s" help:"how long the web app keeps each recording (0 keeps them forever)" accept:"a duration such as 90d or 720h, or 0 to keep recordings forever"`
	// RecordRetention is how long an interview record is kept after it was
	// registered before the web app erases it, with its recordings and
	// provider keys (an erasure log entry without personal data stays);
	// zero keeps records until they are erased by hand (viva erase). Off by
	// default: an erasure cannot be undone, and how long candidates' data
	// may be kept depends on the employer's jurisdiction and hiring
	// process, so the operator chooses it (and an upgrade never deletes
	// records by itself). A value below MinRecordRetention is refused.
	RecordRetention time.Duration `flag:"record-retention" env:"VIVA_RECORD_RETENTION" yaml:"record_retention" check:"ge=0s" help:"how long the web app keeps each interview record after it was registered, then erases it with its recordings (0 keeps records until erased with viva erase)" accept:"a duration of at least 1d such as 365d or 4320h, or 0 to keep records"`
	// DropTextsAfterReport removes the job description, the résumé text
	// and summary and a knowledge capture's brief from a record once its
	// report is ready: they served the interview and the report, and are
	// not kept longer than that. The record says when and why.
	DropTextsAfterReport bool `flag:"drop-texts-after-report" env:"VIVA_DROP_TEXTS_AFTER_REPORT" yaml:"drop_texts_after_report" default:"true" help:"remove the job description, résumé text and brief from a record once its report is ready (false keeps them)" accept:"true or false"`
	// TimeScale multiplies every stage limit and gate: 0.1 gives a ten times
	// shorter practice interview.
	TimeScale float64 `flag:"time-scale" env:"VIVA_TIME_SCALE" yaml:"time_scale" default:"1" check:"gt=0,le=10" help:"multiplies every stage limit and gate (0.1 = ten times faster)" accept:"a positive number such as 0.1 (ten times faster) or 1, at most 10"`

	// LLM chooses the language model engine: "scripted", "openai", or ""
	// (auto, see ResolvedLLM).
	LLM string `flag:"llm" env:"VIVA_LLM" yaml:"llm" check:"oneof=auto|scripted|openai" help:"language model: openai, or scripted (offline); empty picks openai when OPENAI_API_KEY is set" accept:"scripted, openai or auto"`
	// OpenAIAPIKey authenticates with OpenAI (LLM, STT and TTS). Secret.
	OpenAIAPIKey string `env:"OPENAI_API_KEY" yaml:"openai_api_key" secret:"true" help:"OpenAI API key; enables the openai engines" json:"-"`
	// OpenAIBaseURL points the openai engines at another OpenAI-compatible
	// server (Ollama, vLLM, LM Studio); empty means api.openai.com.
	OpenAIBaseURL string `flag:"openai-base-url" env:"OPENAI_BASE_URL" yaml:"openai_base_url" check:"url=http|https" help:"base URL of an OpenAI-compatible API such as Ollama; empty for api.openai.com" accept:"an http:// or https:// URL such as http://localhost:11434/v1"`
	// OpenAIModel is the chat model of the openai LLM.
	OpenAIModel string `flag:"openai-model" env:"VIVA_OPENAI_MODEL" yaml:"openai_model" default:"gpt-4o-mini" check:"nonempty" help:"chat model of the openai LLM" accept:"a model name such as gpt-4o-mini"`
	// AnalysisModel is the model that analyses the answers beside the
	// replies (structured output); empty means OpenAIModel.
	AnalysisModel string `flag:"analysis-model" env:"VIVA_ANALYSIS_MODEL" yaml:"analysis_model" help:"model that analyses answers beside the replies (structured output); empty uses --openai-model" accept:"a model name such as gpt-4o-mini"`
	// LLMFirstTokenTimeout bounds the wait for the model's first token in
	// each attempt; a request that never answers is retried once, then
	// reported, instead of leaving the room silent.
	LLMFirstTokenTimeout time.Duration `flag:"llm-first-token-timeout" env:"VIVA_LLM_FIRST_TOKEN_TIMEOUT" yaml:"llm_first_token_timeout" default:"8s" check:"gt=0s,le=60s" help:"longest wait for the model's first token before the request is retried" accept:"a duration above 0 and at most 60s, such as 8s"`
	// LLMChunkGapTimeout bounds the silence between streamed chunks once
	// the model has started answering.
	LLMChunkGapTimeout time.Duration `flag:"llm-chunk-gap-timeout" env:"VIVA_LLM_CHUNK_GAP_TIMEOUT" yaml:"llm_chunk_gap_timeout" default:"5s" check:"gt=0s,le=60s" help:"longest silence between the model's streamed chunks" accept:"a duration above 0 and at most 60s, such as 5s"`

	// STT chooses the speech recogniser: "deepgram", "openai", "sphinx", or
	// "" (auto, see ResolvedSTT).
	STT string `flag:"stt" env:"VIVA_STT" yaml:"stt" check:"oneof=auto|deepgram|openai|sphinx" help:"speech recogniser: deepgram, openai, or sphinx (offline); empty picks by the keys set" accept:"deepgram, openai, sphinx or auto"`
	// TTS chooses the speech synthesiser: "openai", "flite", or "" (auto,
	// see ResolvedTTS).
	TTS string `flag:"tts" env:"VIVA_TTS" yaml:"tts" check:"oneof=auto|openai|flite" help:"speech synthesiser: openai, or flite (offline); empty picks openai when OPENAI_API_KEY is set" accept:"openai, flite or auto"`
	// DeepgramAPIKey authenticates with Deepgram. Secret.
	DeepgramAPIKey string `env:"DEEPGRAM_API_KEY" yaml:"deepgram_api_key" secret:"true" help:"Deepgram API key; enables the deepgram recogniser" json:"-"`
	// DeepgramModel is the Deepgram live recognition model.
	DeepgramModel string `flag:"deepgram-model" env:"VIVA_DEEPGRAM_MODEL" yaml:"deepgram_model" default:"nova-3" check:"nonempty" help:"Deepgram recognition model" accept:"a model name such as nova-3"`
	// OpenAISTTModel is the OpenAI transcription model.
	OpenAISTTModel string `flag:"openai-stt-model" env:"VIVA_OPENAI_STT_MODEL" yaml:"openai_stt_model" default:"gpt-4o-mini-transcribe" check:"nonempty" help:"OpenAI transcription model" accept:"a model name such as gpt-4o-mini-transcribe"`
	// OpenAITTSModel is the OpenAI speech model.
	OpenAITTSModel string `flag:"openai-tts-model" env:"VIVA_OPENAI_TTS_MODEL" yaml:"openai_tts_model" default:"gpt-4o-mini-tts" check:"nonempty" help:"OpenAI speech model" accept:"a model name such as gpt-4o-mini-tts"`
	// OpenAITTSVoice is the OpenAI voice the interviewer speaks with.
	OpenAITTSVoice string `flag:"openai-tts-voice" env:"VIVA_OPENAI_TTS_VOICE" yaml:"openai_tts_voice" default:"alloy" check:"nonempty" help:"OpenAI voice of the interviewer" accept:"a voice name such as alloy"`

	// LiveKitURL is the LiveKit server the worker and web app talk to.
	LiveKitURL string `flag:"livekit-url" env:"LIVEKIT_URL" yaml:"livekit_url" check:"url=ws|wss|http|https" help:"LiveKit server URL" accept:"a ws://, wss://, http:// or https:// URL such as ws://127.0.0.1:7880"`
	// LiveKitAPIKey names the key pair used to sign LiveKit tokens.
	LiveKitAPIKey string `flag:"livekit-api-key" env:"LIVEKIT_API_KEY" yaml:"livekit_api_key" help:"LiveKit API key (devkey for livekit-server --dev)" accept:"the API key of your LiveKit project"`
	// LiveKitAPISecret signs LiveKit tokens. Secret.
	LiveKitAPISecret string `env:"LIVEKIT_API_SECRET" yaml:"livekit_api_secret" secret:"true" help:"LiveKit API secret (secret for livekit-server --dev)" json:"-"`
	// LiveKitPort is the signal port of the LiveKit server viva dev starts
	// on 127.0.0.1 when LiveKitURL is empty; its WebRTC media use the next
	// two ports (TCP, then UDP).
	LiveKitPort int `flag:"livekit-port" env:"VIVA_LIVEKIT_PORT" yaml:"livekit_port" default:"7880" check:"ge=1,le=65533" help:"signal port of the LiveKit server viva dev starts on 127.0.0.1 (WebRTC uses the next two, TCP and UDP)" accept:"a port from 1 to 65533 such as 7880, with the next two ports free as well"`
	// AgentName is the name the worker registers under and the web app
	// dispatches to.
	AgentName string `flag:"agent-name" env:"VIVA_AGENT_NAME" yaml:"agent_name" check:"name" help:"agent name the worker registers and the web app dispatches to" accept:"letters, digits, '.', '-' and '_', such as viva-interviewer"`
	// MaxSessions is how many interviews one worker holds at once.
	MaxSessions int `flag:"max-sessions" env:"VIVA_MAX_SESSIONS" yaml:"max_sessions" default:"100" check:"ge=1" help:"interviews one worker holds at once" accept:"a whole number of at least 1, such as 100"`
	// DrainTimeout is how long a stopping worker lets running interviews
	// finish before saving them as stopped; 0 stops and saves them at once.
	DrainTimeout time.Duration `flag:"drain-timeout" env:"VIVA_DRAIN_TIMEOUT" yaml:"drain_timeout" default:"60s" check:"ge=0s" help:"how long a stopping worker lets running interviews finish (0 stops them at once)" accept:"a duration such as 60s or 2m, or a number of seconds"`
	// RejoinGrace is how long an interview waits for a candidate who left
	// the room (a reload, a crashed browser) to come back and continue.
	RejoinGrace time.Duration `flag:"rejoin-grace" env:"VIVA_REJOIN_GRACE" yaml:"rejoin_grace" default:"60s" check:"ge=0s,le=30m" help:"how long an interview waits for a candidate who left to rejoin (0 ends it at once)" accept:"a duration from 0s to 30m, such as 60s"`
	// EndpointingDelay is the silence after the final transcript that ends
	// the candidate's turn.
	EndpointingDelay time.Duration `flag:"endpointing-delay" env:"VIVA_ENDPOINTING_DELAY" yaml:"endpointing_delay" check:"gt=0s" help:"silence that ends the candidate's turn" accept:"a duration above 0, between the endpointing minimum and maximum, such as 500ms"`
	// EndpointingMin is the shortest endpointing delay.
	EndpointingMin time.Duration `flag:"endpointing-min" env:"VIVA_ENDPOINTING_MIN" yaml:"endpointing_min" check:"gt=0s" help:"shortest endpointing delay" accept:"a duration above 0, no longer than the endpointing maximum, such as 200ms"`
	// EndpointingMax is the longest endpointing delay.
	EndpointingMax time.Duration `flag:"endpointing-max" env:"VIVA_ENDPOINTING_MAX" yaml:"endpointing_max" check:"gt=0s,le=10s" help:"longest endpointing delay" accept:"a duration above 0 and at most 10s, such as 3s"`
	// InterruptThreshold is how long the candidate must speak over the
	// agent before the agent stops talking.
	InterruptThreshold time.Duration `flag:"interrupt-threshold" env:"VIVA_INTERRUPT_THRESHOLD" yaml:"interrupt_threshold" check:"gt=0s,le=5s" help:"candidate speech over the agent that interrupts it" accept:"a duration above 0 and at most 5s, such as 500ms"`
	// ThinkingPause is how long the interviewer waits after an answer that
	// stops mid-clause ("…and the main reason was", "um") before taking
	// the turn: room to think.
	ThinkingPause time.Duration `flag:"thinking-pause" env:"VIVA_THINKING_PAUSE" yaml:"thinking_pause" check:"gt=0s,le=10s" help:"wait after an answer that stops mid-clause before the interviewer speaks" accept:"a duration above 0 and at most 10s, such as 2.5s"`
	// FalseInterruptionTimeout is how long a reply stopped by the
	// candidate's sound waits for words before it resumes from the
	// sentence it was in; 0 cuts it for good.
	FalseInterruptionTimeout time.Duration `flag:"false-interruption-timeout" env:"VIVA_FALSE_INTERRUPTION_TIMEOUT" yaml:"false_interruption_timeout" check:"ge=0s,le=10s" help:"wait for words after the candidate's sound stopped the interviewer before it resumes (0 never resumes)" accept:"a duration from 0s to 10s, such as 2s"`
	// AwayAfter is the candidate's silence after the interviewer spoke
	// that brings a kind check-in; the second brings an offer to stop,
	// the third closes the interview. 0 never checks in.
	AwayAfter time.Duration `flag:"away-after" env:"VIVA_AWAY_AFTER" yaml:"away_after" check:"ge=0s,le=10m" help:"candidate silence that brings a check-in; three in a row close the interview (0 never)" accept:"a duration from 0s to 10m, such as 20s"`
	// HearingTimeout bounds the wait for the candidate to subscribe to
	// the interviewer's audio before the greeting; 0 greets at once.
	HearingTimeout time.Duration `flag:"hearing-timeout" env:"VIVA_HEARING_TIMEOUT" yaml:"hearing_timeout" check:"ge=0s,le=1m" help:"longest wait for the candidate to receive the interviewer's audio before greeting (0 greets at once)" accept:"a duration from 0s to 1m, such as 5s"`

	// Addr is the address the web server listens on.
	Addr string `flag:"addr" env:"VIVA_ADDR" yaml:"addr" default:"127.0.0.1:8080" check:"hostport" help:"address the web server listens on" accept:"host:port such as 127.0.0.1:8080 or :8080"`
	// ReviewerToken is the password of the reviewer pages and API. Secret.
	ReviewerToken string `env:"VIVA_REVIEWER_TOKEN" yaml:"reviewer_token" secret:"true" check:"minlen=16" help:"shared development password of the web app (signs in with every permission); production uses viva users" accept:"at least 16 random characters, for example from: openssl rand -hex 16" json:"-"`
	// UsersFile is the file of the web app's user accounts (viva users);
	// empty means users.json in an "accounts" directory inside DataDir.
	UsersFile string `flag:"users-file" env:"VIVA_USERS_FILE" yaml:"users_file" help:"file of the web app's user accounts (default: accounts/users.json in the data directory)" accept:"a file path such as ./data/users.json"`
	// SecretsKey seals the provider keys a recruiter enters for one
	// interview (AES-256-GCM): 32 bytes as 64 hex characters or base64.
	// viva web and viva agent need the same value; empty means interviews
	// cannot bring their own keys. Secret.
	SecretsKey string `env:"VIVA_SECRETS_KEY" yaml:"secrets_key" secret:"true" check:"secretkey" help:"key that seals per-interview provider keys (same value for web and agent); empty disables own keys" accept:"32 bytes as 64 hex characters or base64, for example from: openssl rand -hex 32" json:"-"`
	// TokenTTL is the lifetime of a candidate's LiveKit token.
	TokenTTL time.Duration `flag:"token-ttl" env:"VIVA_TOKEN_TTL" yaml:"token_ttl" check:"ge=1m,le=168h" help:"lifetime of a candidate's room token" accept:"a duration from 1m to 168h, such as 10m"`
	// LinkTTL is how long a candidate's interview link stays valid after
	// registration unless the interview has started.
	LinkTTL time.Duration `flag:"link-ttl" env:"VIVA_LINK_TTL" yaml:"link_ttl" check:"ge=1h,le=8760h" help:"how long a candidate's interview link stays valid unless the interview has started" accept:"a duration from 1h to 8760h, such as 168h (7 days)"`
	// PublicURL is the web app's address as candidates reach it, used in
	// join links; empty means links relative to the request.
	PublicURL string `flag:"public-url" env:"VIVA_PUBLIC_URL" yaml:"public_url" check:"url=http|https" help:"public address of the web app, for join links" accept:"an http:// or https:// URL such as https://interviews.example.com"`
	// WebhookURLs are the hiring systems' endpoints that receive signed
	// interview events, comma-separated; empty sends none.
	WebhookURLs string `flag:"webhook-urls" env:"VIVA_WEBHOOK_URLS" yaml:"webhook_urls" check:"urls=http|https" help:"comma-separated URLs that receive signed events: interview.completed, report.ready, decision.recorded" accept:"comma-separated http:// or https:// URLs such as https://hr.example.com/hooks/viva"`
	// WebhookSecret signs every webhook body (HMAC-SHA256); required with
	// WebhookURLs. Secret.
	WebhookSecret string `env:"VIVA_WEBHOOK_SECRET" yaml:"webhook_secret" secret:"true" check:"minlen=16" help:"secret that signs webhook events (HMAC-SHA256); required with VIVA_WEBHOOK_URLS" accept:"at least 16 random characters, for example from: openssl rand -hex 32" json:"-"`
	// SMTPURL is the mail server that emails candidates the link to their
	// feedback, smtp://user:password@host:587 (always STARTTLS); empty
	// sends no email. Secret: it holds the mail password.
	SMTPURL string `env:"VIVA_SMTP_URL" yaml:"smtp_url" secret:"true" check:"url=smtp" help:"mail server for candidates' invitations, reminders and feedback emails (STARTTLS); empty sends none" accept:"an smtp:// URL such as smtp://user:password@smtp.example.com:587" json:"-"`
	// BrandName is the company name candidates see in page headers, page
	// titles and the join page.
	BrandName string `flag:"brand-name" env:"VIVA_BRAND_NAME" yaml:"brand_name" check:"nonempty" help:"company name shown to candidates in headers, titles and the join page" accept:"a name such as Example Corp"`
	// BrandLogo is the company logo shown beside BrandName: an image file
	// (SVG, PNG, JPEG, WebP or GIF, served by the web app) or an https://
	// URL of one; empty shows the name alone.
	BrandLogo string `flag:"brand-logo" env:"VIVA_BRAND_LOGO" yaml:"brand_logo" check:"logo" help:"company logo: an image file (svg, png, jpg, webp, gif) or an https:// URL of one" accept:"a path to an existing .svg, .png, .jpg, .webp or .gif file, or an https:// URL such as https://example.com/logo.svg"`
	// ConsentText is the wording the candidate agrees to on the join page
	// before the microphone is asked for; empty means the built-in wording,
	// which says that an AI interviewer conducts the interview, what is
	// recorded and that a person reviews the result.
	ConsentText string `flag:"consent-text" env:"VIVA_CONSENT_TEXT" yaml:"consent_text" help:"wording the candidate agrees to before joining (default: the built-in notice)" accept:"plain text of up to 4000 characters"`
	// ConsentFile is a plain-text file holding the consent wording, for
	// wording too long for an environment variable; it may not be set
	// together with ConsentText.
	ConsentFile string `flag:"consent-file" env:"VIVA_CONSENT_FILE" yaml:"consent_file" check:"file" help:"plain-text file with the wording the candidate agrees to before joining" accept:"a path to an existing text file"`
	// LogLevel is the lowest level logged: debug, info, warn or error.
	LogLevel string `flag:"log-level" env:"VIVA_LOG_LEVEL" yaml:"log_level" default:"info" check:"oneof=debug|info|warn|error" help:"lowest log level" accept:"debug, info, warn or error"`

	// LoadThreshold is the worker's load (the larger of its process's CPU
	// share and its interviews over MaxSessions) at which it declines new
	// interviews, so LiveKit offers them to another worker.
	LoadThreshold float64 `flag:"load-threshold" env:"VIVA_LOAD_THRESHOLD" yaml:"load_threshold" default:"0.75" check:"gt=0,le=1" help:"worker load (the larger of its CPU share and sessions over max sessions) at which it declines new interviews" accept:"a number above 0 and at most 1, such as 0.75 (1 declines only when full)"`
	// HealthAddr is where the worker answers health checks (GET / is 200
	// while registered with LiveKit, 503 while draining or disconnected)
	// and serves GET /metrics; empty or "off" serves neither.
	HealthAddr string `flag:"health-addr" env:"VIVA_HEALTH_ADDR" yaml:"health_addr" default:":8081" check:"listen" help:"address of the worker's health check (GET /) and metrics (GET /metrics); empty or off for none" accept:"host:port such as :8081 or 127.0.0.1:8081, or off"`
	// PprofAddr is where Go's profiler (net/http/pprof) is served, on a
	// listener of its own; empty (the default) serves no profiler.
	PprofAddr string `flag:"pprof" env:"VIVA_PPROF_ADDR" yaml:"pprof_addr" check:"listen" help:"address that serves Go's profiler (/debug/pprof/) on a listener of its own; keep it private; empty for none" accept:"host:port such as 127.0.0.1:6060, or off"`

	// origins says where each value came from, by YAML key, for messages.
	origins map[string]origin
	// reads are the YAML keys of the settings the command reads, as
	// LoadSettings was given them; nil means every setting.
	reads map[string]bool
}

// Defaults that packages used without a Config also apply to their zero
// options (the web app's agent name and token lifetime, the worker's
// turn-taking waits). They are the settings' defaults here too: each is
// written only once.
const (
	// DefaultAgentName is the LiveKit agent name the worker registers under
	// and the web app's tokens dispatch to. Both must agree: a dispatch to
	// another name finds no worker.
	DefaultAgentName = "viva-interviewer"
	// DefaultTokenTTL is the lifetime of a candidate's room token. LiveKit
	// checks it only when the token joins (a connected participant's
	// client is kept connected with tokens the server refreshes), and the
	// room page mints a fresh one on every join and rejoin: so it only
	// bounds how long a copied token, one minted before a revocation or
	// the interview's end, can open the room.
	DefaultTokenTTL = 10 * time.Minute
	// DefaultLinkTTL is how long a candidate's link stays valid unless
	// the interview has started: seven days from registration.
	DefaultLinkTTL = 7 * 24 * time.Hour
	// DefaultBrandName is the name candidates see when the operator names
	// no company.
	DefaultBrandName = "viva"
	// DefaultHearingTimeout is the longest wait for the candidate to
	// subscribe to the interviewer's audio before greeting anyway.
	DefaultHearingTimeout = 5 * time.Second
	// DefaultFalseInterruptionTimeout is how long a reply stopped by the
	// candidate's sound waits for words before it resumes.
	DefaultFalseInterruptionTimeout = 2 * time.Second
	// DefaultAwayAfter is the candidate's silence that brings a check-in.
	DefaultAwayAfter = 20 * time.Second

	// DefaultEndpointingDelay is the base wait after the end of speech
	// before the candidate's turn ends.
	DefaultEndpointingDelay = 500 * time.Millisecond
	// DefaultEndpointingMin is the shortest adaptive endpointing delay.
	DefaultEndpointingMin = 200 * time.Millisecond
	// DefaultEndpointingMax is the longest adaptive endpointing delay.
	DefaultEndpointingMax = 3 * time.Second
	// DefaultThinkingPause is the wait after an answer that stops
	// mid-clause.
	DefaultThinkingPause = 2500 * time.Millisecond
	// DefaultInterruptThreshold is how much voiced speech over the agent
	// interrupts it.
	DefaultInterruptThreshold = 500 * time.Millisecond
)

// LogoExtensions are the file name extensions a BrandLogo file may have.
var LogoExtensions = []string{".svg", ".png", ".jpg", ".jpeg", ".webp", ".gif"}

// codeDefaults are the defaults of the settings whose default is a Go
// constant above rather than a default tag, by field name.
var codeDefaults = map[string]string{
	"AgentName": DefaultAgentName,
	"TokenTTL":  DefaultTokenTTL.String(),
	"LinkTTL":   DefaultLinkTTL.String(),
	"BrandName": DefaultBrandName,

	"HearingTimeout":           DefaultHearingTimeout.String(),
	"FalseInterruptionTimeout": DefaultFalseInterruptionTimeout.String(),
	"AwayAfter":                DefaultAwayAfter.String(),

	"EndpointingDelay":   DefaultEndpointingDelay.String(),
	"EndpointingMin":     DefaultEndpointingMin.String(),
	"EndpointingMax":     DefaultEndpointingMax.String(),
	"ThinkingPause":      DefaultThinkingPause.String(),
	"InterruptThreshold": DefaultInterruptThreshold.String(),
}

// Engine names, as Resolved* return them.
const (
	EngineScripted = "scripted"
	EngineOpenAI   = "openai"
	EngineDeepgram = "deepgram"
	EngineSphinx   = "sphinx"
	EngineFlite    = "flite"
)

// auto is the spelled-out form of an empty engine choice.
const auto = "auto"

// ResolvedUsersFile is the users file: UsersFile, or accounts/users.json
// inside DataDir.
func (c *Config) ResolvedUsersFile() string {
	if c.UsersFile != "" {
		return c.UsersFile
	}
	return filepath.Join(c.DataDir, "accounts", "users.json")
}

// ResolvedRecordingsDir is the recordings directory: RecordingsDir, or
// recordings inside DataDir.
func (c *Config) ResolvedRecordingsDir() string {
	if c.RecordingsDir != "" {
		return c.RecordingsDir
	}
	return filepath.Join(c.DataDir, "recordings")
}

// RequireLiveKit reports, in one error, which of the LiveKit URL, API key
// and secret are missing; commands that talk to LiveKit call it at startup.
func (c *Config) RequireLiveKit() error {
	var missing []string
	if c.LiveKitURL == "" {
		missing = append(missing, "LIVEKIT_URL")
	}
	if c.LiveKitAPIKey == "" {
		missing = append(missing, "LIVEKIT_API_KEY")
	}
	if c.LiveKitAPISecret == "" {
		missing = append(missing, "LIVEKIT_API_SECRET")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("config: %s not set: set them for your LiveKit server (ws://127.0.0.1:7880, devkey and secret for livekit-server --dev), or run viva dev to start one",
		strings.Join(missing, ", "))
}

// ResolvedLLM is the language model engine in use: the one chosen, or with
// auto, openai when OPENAI_API_KEY is set and scripted otherwise.
func (c *Config) ResolvedLLM() string {
	switch c.LLM {
	case "", auto:
		if c.OpenAIAPIKey != "" {
			return EngineOpenAI
		}
		return EngineScripted
	}
	return c.LLM
}

// ResolvedSTT is the speech recogniser in use: the one chosen, or with auto,
// deepgram when DEEPGRAM_API_KEY is set, else openai when OPENAI_API_KEY is
// set, else sphinx.
func (c *Config) ResolvedSTT() string {
	switch c.STT {
	case "", auto:
		switch {
		case c.DeepgramAPIKey != "":
			return EngineDeepgram
		case c.OpenAIAPIKey != "":
			return EngineOpenAI
		}
		return EngineSphinx
	}
	return c.STT
}

// ResolvedTTS is the speech synthesiser in use: the one chosen, or with
// auto, openai when OPENAI_API_KEY is set and flite otherwise.
func (c *Config) ResolvedTTS() string {
	switch c.TTS {
	case "", auto:
		if c.OpenAIAPIKey != "" {
			return EngineOpenAI
		}
		return EngineFlite
	}
	return c.TTS
}

// SlogLevel is LogLevel as a slog.Level (info when unset or unknown).
func (c *Config) SlogLevel() slog.Level {
	switch c.LogLevel {
	case "debug":
		return slog.LevelDebug
	case "warn":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	}
	return slog.LevelInfo
}

// WebhookURLList returns the webhook URLs, one per item of WebhookURLs.
func (c *Config) WebhookURLList() []string { return splitList(c.WebhookURLs) }
