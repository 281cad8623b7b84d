package lkagent

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/livekit"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// The connection to the server: dialling with backoff, registering,
// serving its messages and answering availability.

// backoffDelay is the wait before reconnect attempt n (from 0): min doubled
// per attempt up to max, of which the upper half is random ("equal jitter")
// so that workers cut off together do not reconnect together.
func backoffDelay(attempt int, min, max time.Duration, jitter func() float64) time.Duration {
	d := max
	if attempt < 30 {
		if e := min << attempt; e > 0 && e < max {
			d = e
		}
	}
	half := d / 2
	return half + time.Duration(jitter()*float64(d-half))
}

// dialWebsocket opens the /agent websocket with a worker token.
func (w *Worker) dialWebsocket(ctx context.Context) (transport, error) {
	token, err := auth.NewAccessToken(w.opts.APIKey, w.opts.APISecret).
		SetVideoGrant(&auth.VideoGrant{Agent: true}).
		SetValidFor(time.Hour).
		ToJWT()
	if err != nil {
		return nil, fmt.Errorf("lkagent: sign worker token: %w", err)
	}
	d := websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 10 * time.Second}
	conn, resp, err := d.DialContext(ctx, w.agentURL, http.Header{"Authorization": {"Bearer " + token}})
	if err != nil {
		if resp != nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
			return nil, fmt.Errorf("%w (HTTP %d from %s)", ErrUnauthorized, resp.StatusCode, w.agentURL)
		}
		return nil, fmt.Errorf("lkagent: connect to %s: %w", w.agentURL, err)
	}
	conn.SetReadLimit(maxServerMessageBytes)
	return &wsTransport{conn: conn, writeTimeout: w.writeTimeout}, nil
}

// serve runs one connection: register, then answer the server until the
// connection fails or the worker stops. registered reports whether the
// server accepted the registration.
func (w *Worker) serve() (registered bool, err error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-w.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	tr, err := w.dial(ctx)
	if err != nil {
		return false, err
	}

	in := make(chan *livekit.ServerMessage)
	readErr := make(chan error, 1)
	quit := make(chan struct{})
	defer func() {
		close(quit)
		w.detach(tr)
		tr.Close()
	}()
	go func() {
		for {
			m, err := tr.Read()
			if err != nil {
				readErr <- err
				return
			}
			select {
			case in <- m:
			case <-quit:
				return
			}
		}
	}()

	reg, err := w.register(tr, in, readErr)
	if err != nil {
		return false, err
	}
	w.attach(tr, reg.GetWorkerId())
	if w.onRegister != nil {
		w.onRegister(reg.GetWorkerId())
	}
	w.log.Info("lkagent: registered with LiveKit", "worker_id", reg.GetWorkerId(),
		"server_version", reg.GetServerInfo().GetVersion(), "url", w.agentURL, "running_jobs", w.Active())
	if err := tr.Write(w.statusMessage()); err != nil {
		return true, fmt.Errorf("lkagent: send status: %w", err)
	}
	return true, w.answer(tr, in, readErr)
}

// register sends the registration on tr and waits for the server's answer
// among the messages read into in.
func (w *Worker) register(tr transport, in <-chan *livekit.ServerMessage, readErr <-chan error) (*livekit.RegisterWorkerResponse, error) {
	if err := tr.Write(w.registerMessage()); err != nil {
		return nil, fmt.Errorf("lkagent: send registration: %w", err)
	}
	regTimer := time.NewTimer(w.registerTimeout)
	defer regTimer.Stop()
	for {
		select {
		case m := <-in:
			if reg := m.GetRegister(); reg != nil {
				return reg, nil
			}
		case err := <-readErr:
			return nil, fmt.Errorf("lkagent: registration: %w", err)
		case <-regTimer.C:
			return nil, fmt.Errorf("lkagent: no registration answer within %s", w.registerTimeout)
		case <-w.stop:
			return nil, errStopping
		}
	}
}

// answer serves a registered connection: it answers the server's
// messages, pings, and reports the worker's status until the connection
// fails or the worker stops.
func (w *Worker) answer(tr transport, in <-chan *livekit.ServerMessage, readErr <-chan error) error {
	ping := time.NewTicker(w.pingInterval)
	defer ping.Stop()
	status := time.NewTicker(w.opts.StatusInterval)
	defer status.Stop()
	silence := w.pingInterval + w.pingTimeout
	watchdog := time.NewTimer(silence)
	defer watchdog.Stop()
	for {
		var out *livekit.WorkerMessage
		select {
		case m := <-in:
			watchdog.Reset(silence)
			out = w.handle(m)
		case err := <-readErr:
			return fmt.Errorf("lkagent: connection lost: %w", err)
		case <-watchdog.C:
			return fmt.Errorf("lkagent: no message from the server for %s", silence)
		case <-ping.C:
			out = &livekit.WorkerMessage{Message: &livekit.WorkerMessage_Ping{
				Ping: &livekit.WorkerPing{Timestamp: time.Now().UnixMilli()},
			}}
		case <-status.C:
			out = w.statusMessage()
		case <-w.kick:
			out = w.statusMessage()
		case <-w.stop:
			return errStopping
		}
		if out != nil {
			if err := tr.Write(out); err != nil {
				return fmt.Errorf("lkagent: send: %w", err)
			}
		}
	}
}

// attach makes tr the connection job statuses go out on.
func (w *Worker) attach(tr transport, workerID string) {
	w.mu.Lock()
	w.tr, w.workerID = tr, workerID
	w.mu.Unlock()
}

// detach forgets tr and the slots reserved on it (the server that asked for
// them is gone with the connection).
func (w *Worker) detach(tr transport) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tr == tr {
		w.tr = nil
	}
	if len(w.reserved) > 0 {
		for id, t := range w.reserved {
			t.Stop()
			delete(w.reserved, id)
		}
		w.notifyLocked()
	}
}

// registerMessage registers a room-job worker under the agent name.
func (w *Worker) registerMessage() *livekit.WorkerMessage {
	return &livekit.WorkerMessage{Message: &livekit.WorkerMessage_Register{Register: &livekit.RegisterWorkerRequest{
		Type:      livekit.JobType_JT_ROOM,
		AgentName: w.agentName,
		Version:   w.opts.Version,
		AllowedPermissions: &livekit.ParticipantPermission{
			CanSubscribe:      true,
			CanPublish:        true,
			CanPublishData:    true,
			CanUpdateMetadata: true, // the agent sets its own attributes
		},
	}}}
}

// load is the worker's load in [0, 1].
func (w *Worker) load() float32 {
	var l float32
	if w.opts.Load != nil {
		l = w.opts.Load()
	} else {
		w.mu.Lock()
		l = float32(len(w.jobs)+len(w.reserved)) / float32(w.opts.MaxSessions)
		w.mu.Unlock()
	}
	return min(max(l, 0), 1)
}

// threshold is the load at which the worker declines jobs.
func (w *Worker) threshold() float32 {
	if w.opts.LoadThreshold > 0 {
		return w.opts.LoadThreshold
	}
	return 1
}

// statusMessage reports load, job count and whether the worker is full.
func (w *Worker) statusMessage() *livekit.WorkerMessage {
	load := w.load()
	w.mu.Lock()
	n := len(w.jobs)
	full := w.draining || n+len(w.reserved) >= w.opts.MaxSessions || load >= w.threshold()
	w.mu.Unlock()
	status := livekit.WorkerStatus_WS_AVAILABLE
	if full {
		status = livekit.WorkerStatus_WS_FULL
	}
	return &livekit.WorkerMessage{Message: &livekit.WorkerMessage_UpdateWorker{UpdateWorker: &livekit.UpdateWorkerStatus{
		Status:   &status,
		Load:     load,
		JobCount: uint32(n),
	}}}
}

// handle answers one server message; it returns the reply to send, if any.
func (w *Worker) handle(m *livekit.ServerMessage) *livekit.WorkerMessage {
	switch msg := m.GetMessage().(type) {
	case *livekit.ServerMessage_Availability:
		return w.answerAvailability(msg.Availability)
	case *livekit.ServerMessage_Assignment:
		w.startJob(msg.Assignment)
	case *livekit.ServerMessage_Termination:
		w.terminate(msg.Termination.GetJobId())
	case *livekit.ServerMessage_Pong:
		w.log.Debug("lkagent: pong", "rtt", time.Since(time.UnixMilli(msg.Pong.GetLastTimestamp())))
	}
	return nil
}

// answerAvailability accepts a job when a slot is free and the worker is not
// draining; the slot is held until the assignment arrives.
func (w *Worker) answerAvailability(req *livekit.AvailabilityRequest) *livekit.WorkerMessage {
	job := req.GetJob()
	id := job.GetId()
	load := w.load()
	w.mu.Lock()
	_, running := w.jobs[id]
	_, held := w.reserved[id]
	reason := ""
	switch {
	case id == "":
		reason = DeclineNoID
	case job.GetType() != livekit.JobType_JT_ROOM:
		reason = DeclineNotRoomJob
	case job.GetAgentName() != w.agentName:
		reason = DeclineOtherAgent
	case w.draining:
		reason = DeclineDraining
	case running || held:
		reason = DeclineDuplicate
	case len(w.jobs)+len(w.reserved) >= w.opts.MaxSessions:
		reason = DeclineAtCapacity
	case load >= w.threshold():
		reason = DeclineLoad
	default:
		w.reserved[id] = time.AfterFunc(w.reserveTimeout, func() { w.release(id) })
	}
	tr := w.tr
	w.mu.Unlock()
	if reason == "" && w.opts.Admit != nil {
		// The slot is held while Admit decides; the answer goes out on
		// the connection that asked.
		go func() {
			ctx, cancel := context.WithTimeout(w.jobsCtx, AdmitTimeout)
			defer cancel()
			offer := Job{ID: id, RoomName: job.GetRoom().GetName(), Metadata: job.GetMetadata(), AgentName: job.GetAgentName(), Raw: job}
			reason := ""
			if err := w.opts.Admit(ctx, offer); err != nil {
				reason = DeclineRefused
				w.log.Info("lkagent: refused job", "job_id", id, "room", offer.RoomName, "err", err)
				_ = w.unreserve(id)
			}
			if tr == nil {
				return
			}
			if err := tr.Write(w.availabilityAnswer(job, reason, load)); err != nil {
				w.log.Debug("lkagent: availability answer not sent", "job_id", id, "err", err)
			}
		}()
		return nil
	}
	return w.availabilityAnswer(job, reason, load)
}

// wsTransport is a transport over a gorilla websocket.
type wsTransport struct {
	conn         *websocket.Conn
	writeTimeout time.Duration
	wmu          sync.Mutex
	closeOnce    sync.Once
}

// Read returns the next server message (protobuf, or JSON if the server
// chose text frames).
func (t *wsTransport) Read() (*livekit.ServerMessage, error) {
	for {
		typ, data, err := t.conn.ReadMessage()
		if err != nil {
			return nil, err
		}
		msg := &livekit.ServerMessage{}
		switch typ {
		case websocket.BinaryMessage:
			err = proto.Unmarshal(data, msg)
		case websocket.TextMessage:
			err = protojson.Unmarshal(data, msg)
		default:
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("lkagent: decode server message: %w", err)
		}
		return msg, nil
	}
}

// Write sends one message as a binary protobuf frame.
func (t *wsTransport) Write(m *livekit.WorkerMessage) error {
	data, err := proto.Marshal(m)
	if err != nil {
		return fmt.Errorf("lkagent: encode message: %w", err)
	}
	t.wmu.Lock()
	defer t.wmu.Unlock()
	_ = t.conn.SetWriteDeadline(time.Now().Add(t.writeTimeout))
	return t.conn.WriteMessage(websocket.BinaryMessage, data)
}

// Close says goodbye with a close frame and closes the socket.
func (t *wsTransport) Close() error {
	var err error
	t.closeOnce.Do(func() {
		_ = t.conn.WriteControl(websocket.CloseMessage,
			websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(time.Second))
		err = t.conn.Close()
	})
	return err
}
