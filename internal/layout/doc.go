// Package layout holds, as a test, the two hard lines of viva's package
// map: the conversation side (package agent and everything it builds on:
// the llm, stt and tts providers, agent/voice, the spoken session of
// agent/spoken, fsm, stages, interviews, config) imports nothing of
// LiveKit or pion, so a turn can run without a room; and the LiveKit agent protocol (package lkagent) imports nothing of
// viva but its own subpackages, so another project can reuse it. The test
// reads the real import graph with `go list -deps -json`; a broken rule
// fails it with the chain of imports that breaks it.
package layout
