// Package layout holds, as a test, the hard lines of viva's package map:
//   - the conversation side (package agent and everything it builds on:
//     the llm, stt and tts providers, agent/voice, the spoken session of
//     agent/spoken, fsm, stages, interviews, config) imports nothing of
//     LiveKit or pion, so a turn can run without a room;
//   - the LiveKit agent protocol (package lkagent) imports nothing of viva
//     but its own subpackages, so another project can reuse it;
//   - the speech and model engines import nothing of the interview domain;
//   - the ground floor (internal/... and incident) imports nothing of viva
//     above it, so imports point down: the benchmark and the test rigs,
//     which run workers and rooms, live above it in bench and testrig;
//   - reports take the interview's event names from interviews, never
//     from webhooks;
//   - the interview domain knows no storage backend: interviews/filestore
//     and interviews/postgres are adapters beside it.
//
// The test reads the real import graph with `go list -deps -json`; a
// broken rule fails it with the chain of imports that breaks it.
//
// The same tests keep the written map true: docs/architecture.md has one
// row for each package of the module and none for a package that is gone,
// and every relative link and anchor in README.md and docs/*.md leads to a
// file and a heading that exist.
package layout
