// Package worker is viva's room side on LiveKit. Sessions is an
// lkagent.Handler: for each interview job the agent worker (package lkagent)
// is dispatched, it joins the room and holds the spoken interview. The room
// I/O helpers in this package publish what LiveKit's stock frontends read:
// captions as lk.transcription text streams, the lk.agent.state attribute,
// the interview stage, events, and typed chat. It is LiveKit glue only:
// the spoken session itself (listening, speaking, captions' words) is
// package agent/spoken's, carried here on the room's tracks.
//
// Wiring in main, draining on SIGTERM:
//
//	w, err := lkagent.New(opts, &worker.Sessions{...})
//	...
//	go func() {
//		<-sigterm
//		w.Shutdown(context.Background()) // no new jobs; running interviews finish
//	}()
//	err = w.Run(ctx) // returns once Shutdown finished or ctx ended
package worker
