package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// The workers viva bench can measure.
const (
	agentViva     = "viva"
	agentAgentsJS = "agents-js"
	// defaultAgentsJSDir is where the agents-js worker lives in a checkout.
	defaultAgentsJSDir = "bench/agentsjs"
)

// findAgentsJS checks that dir holds the agents-js worker with its packages
// installed and node on $PATH, and returns dir as an absolute path.
func findAgentsJS(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(abs, "agent.mjs")); err != nil {
		return "", fmt.Errorf("no agents-js worker in %s (agent.mjs): run viva bench from the repository's root or give --agents-js-dir", abs)
	}
	if _, err := os.Stat(filepath.Join(abs, "node_modules", "@livekit", "agents", "package.json")); err != nil {
		return "", fmt.Errorf("agents-js is not installed in %s: run make bench-agentsjs (npm ci there)", abs)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("agents-js needs Node.js (node on $PATH): %w", err)
	}
	return abs, nil
}
