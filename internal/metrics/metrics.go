// Package metrics defines viva's Prometheus metrics once: what the
// interviewer worker measures (sessions, turns, the latency of each part of
// a turn, provider faults, dispatches, record saves, load) and what the web
// app measures (requests, interviews created, reports, webhooks). Every
// name starts with viva_.
//
// Metrics live in a Registry of their own per process, never in
// Prometheus's global default one: two tests (or two servers in one
// process) count separately. A nil *Worker or *Web records nothing, so code
// that runs without metrics needs no checks.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Namespace prefixes every metric name.
const Namespace = "viva"

// Label names.
const (
	labelPhase    = "phase"
	labelRole     = "role"
	labelProvider = "provider"
	labelKind     = "kind"
	labelReason   = "reason"
	labelRoute    = "route"
	labelCode     = "code"
	labelEvent    = "event"
)

// The phases of a turn, as the values of viva_turn_latency_seconds's phase
// label. They are the per-turn figures of interviews.TurnMetrics.
const (
	// PhaseEndOfUtterance: the candidate's last voiced audio to the
	// decision that their turn ended.
	PhaseEndOfUtterance = "end_of_utterance"
	// PhaseSTTFinal: the end of speech to the recogniser's final
	// transcript.
	PhaseSTTFinal = "stt_final"
	// PhaseLLMFirstToken: the model request to its first token.
	PhaseLLMFirstToken = "llm_first_token"
	// PhaseTTSFirstByte: the first sentence sent to speech synthesis to
	// its first audio.
	PhaseTTSFirstByte = "tts_first_byte"
	// PhaseEndToEnd: the end of the candidate's turn to the interviewer's
	// first audio.
	PhaseEndToEnd = "end_to_end"
)

// RouteUnmatched is the route label of a request no route matched: paths
// are never labels, so a scan of random paths cannot grow the metrics.
const RouteUnmatched = "unmatched"

// latencyBucketsSeconds are the buckets of turn latencies: voice agents
// live between tens of milliseconds and a few seconds.
var latencyBucketsSeconds = []float64{0.01, 0.025, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10}

// httpBucketsSeconds are the buckets of HTTP request durations.
var httpBucketsSeconds = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// NewRegistry returns an empty registry with the Go runtime's and the
// process's own collectors (CPU seconds, resident memory, open files), so a
// scrape shows the process's cost beside viva's figures.
func NewRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Handler serves reg's metrics in the Prometheus text format, for GET
// /metrics.
func Handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}

// Worker holds the interviewer worker's metrics. Create it with NewWorker;
// its methods are safe for concurrent use, and do nothing on a nil Worker.
type Worker struct {
	activeSessions prometheus.Gauge
	turns          *prometheus.CounterVec
	latency        *prometheus.HistogramVec
	providerErrors *prometheus.CounterVec
	accepted       prometheus.Counter
	declined       *prometheus.CounterVec
	saves          prometheus.Counter
	saveFailures   prometheus.Counter
	reg            prometheus.Registerer
}

// NewWorker registers the worker's metrics with reg.
func NewWorker(reg prometheus.Registerer) *Worker {
	w := &Worker{
		reg: reg,
		activeSessions: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: "worker_active_sessions",
			Help: "Interviews this worker holds now."}),
		turns: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "turns_total",
			Help: "Turns recorded, by who spoke (candidate or agent)."}, []string{labelRole}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "turn_latency_seconds",
			Help:    "Latency of each phase of a turn: end_of_utterance, stt_final, llm_first_token, tts_first_byte, end_to_end.",
			Buckets: latencyBucketsSeconds}, []string{labelPhase}),
		providerErrors: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "provider_errors_total",
			Help: "Faults of the model, speech recognition and speech synthesis providers, by provider and kind, recovered or not."},
			[]string{labelProvider, labelKind}),
		accepted: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "dispatches_accepted_total",
			Help: "Jobs LiveKit offered this worker that it accepted."}),
		declined: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "dispatches_declined_total",
			Help: "Jobs LiveKit offered this worker that it declined, by reason (LiveKit then offers them to another worker)."},
			[]string{labelReason}),
		saves: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "record_saves_total",
			Help: "Interview record saves attempted."}),
		saveFailures: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "record_save_failures_total",
			Help: "Interview record saves that failed (each is retried)."}),
	}
	reg.MustRegister(w.activeSessions, w.turns, w.latency, w.providerErrors, w.accepted, w.declined, w.saves, w.saveFailures)
	return w
}

// SessionStarted counts an interview this worker now holds; call
// SessionEnded when it ends.
func (w *Worker) SessionStarted() {
	if w != nil {
		w.activeSessions.Inc()
	}
}

// SessionEnded counts an interview this worker no longer holds.
func (w *Worker) SessionEnded() {
	if w != nil {
		w.activeSessions.Dec()
	}
}

// Turn counts one turn by role ("candidate" or "agent").
func (w *Worker) Turn(role string) {
	if w != nil {
		w.turns.WithLabelValues(role).Inc()
	}
}

// Latency observes one phase of a turn (one of the Phase constants); a
// phase that was not measured (zero or negative) is left out.
func (w *Worker) Latency(phase string, d time.Duration) {
	if w != nil && d > 0 {
		w.latency.WithLabelValues(phase).Observe(d.Seconds())
	}
}

// ProviderError counts one provider fault.
func (w *Worker) ProviderError(provider, kind string) {
	if w != nil {
		w.providerErrors.WithLabelValues(provider, kind).Inc()
	}
}

// Dispatch counts LiveKit's offer of a job: accepted, or declined for
// reason.
func (w *Worker) Dispatch(accepted bool, reason string) {
	switch {
	case w == nil:
	case accepted:
		w.accepted.Inc()
	default:
		w.declined.WithLabelValues(reason).Inc()
	}
}

// RecordSaved counts one attempt to save an interview record and whether
// it failed.
func (w *Worker) RecordSaved(err error) {
	if w == nil {
		return
	}
	w.saves.Inc()
	if err != nil {
		w.saveFailures.Inc()
	}
}

// WatchLoad exports the worker's load and its process's CPU share as
// gauges read at each scrape: load is what the worker reports to LiveKit
// (and declines jobs above its threshold by), cpuShare the smoothed CPU
// share of the cores the process may use. Call it once.
func (w *Worker) WatchLoad(load, cpuShare func() float64) {
	if w == nil {
		return
	}
	w.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "worker_load",
			Help: "Load this worker reports to LiveKit, 0 to 1: the larger of its CPU share and sessions over max sessions."}, load),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "worker_cpu_share",
			Help: "CPU this worker's process uses, smoothed, as a share of the cores it may use (0 to 1)."}, cpuShare),
	)
}

// WatchRegistered exports whether the worker is registered with LiveKit
// and taking jobs (1) or draining or disconnected (0), read at each
// scrape. Call it once.
func (w *Worker) WatchRegistered(registered func() bool) {
	if w == nil {
		return
	}
	w.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: Namespace, Name: "worker_registered",
		Help: "1 while the worker is registered with LiveKit and taking jobs, 0 while draining or disconnected."},
		func() float64 {
			if registered() {
				return 1
			}
			return 0
		}))
}

// Web holds the web app's metrics. Create it with NewWeb; its methods are
// safe for concurrent use, and do nothing on a nil Web.
type Web struct {
	requests         *prometheus.CounterVec
	duration         *prometheus.HistogramVec
	created          prometheus.Counter
	reportsReady     prometheus.Counter
	reportsFailed    prometheus.Counter
	webhookDelivered *prometheus.CounterVec
	webhookFailed    *prometheus.CounterVec
}

// NewWeb registers the web app's metrics with reg.
func NewWeb(reg prometheus.Registerer) *Web {
	w := &Web{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "http_requests_total",
			Help: "HTTP requests answered, by route pattern and status code."}, []string{labelRoute, labelCode}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace, Name: "http_request_duration_seconds",
			Help: "Time to answer HTTP requests, by route pattern.", Buckets: httpBucketsSeconds}, []string{labelRoute}),
		created: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "interviews_created_total",
			Help: "Interviews registered by recruiters."}),
		reportsReady: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "reports_generated_total",
			Help: "Feedback reports generated."}),
		reportsFailed: prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: "reports_failed_total",
			Help: "Attempts at a feedback report that failed (retried up to the runner's limit)."}),
		webhookDelivered: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "webhooks_delivered_total",
			Help: "Webhook events a receiver accepted, by event."}, []string{labelEvent}),
		webhookFailed: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "webhooks_failed_total",
			Help: "Webhook events that could not be delivered after their retries, by event."}, []string{labelEvent}),
	}
	reg.MustRegister(w.requests, w.duration, w.created, w.reportsReady, w.reportsFailed, w.webhookDelivered, w.webhookFailed)
	return w
}

// Request counts one answered request by its route pattern ("" for
// RouteUnmatched) and status code, and observes how long it took.
func (w *Web) Request(route string, code int, d time.Duration) {
	if w == nil {
		return
	}
	if route == "" {
		route = RouteUnmatched
	}
	w.requests.WithLabelValues(route, strconv.Itoa(code)).Inc()
	w.duration.WithLabelValues(route).Observe(d.Seconds())
}

// InterviewCreated counts one registered interview.
func (w *Web) InterviewCreated() {
	if w != nil {
		w.created.Inc()
	}
}

// Report counts one report attempt: generated when err is nil, failed
// otherwise.
func (w *Web) Report(err error) {
	switch {
	case w == nil:
	case err == nil:
		w.reportsReady.Inc()
	default:
		w.reportsFailed.Inc()
	}
}

// Webhook counts one webhook event's delivery to one receiver: delivered
// when ok, failed otherwise.
func (w *Web) Webhook(event string, ok bool) {
	switch {
	case w == nil:
	case ok:
		w.webhookDelivered.WithLabelValues(event).Inc()
	default:
		w.webhookFailed.WithLabelValues(event).Inc()
	}
}
