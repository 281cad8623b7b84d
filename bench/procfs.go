package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicksPerSecond is USER_HZ, the unit of CPU times in /proc: 100 on
// every Linux architecture Go supports.
const clockTicksPerSecond = 100

// processCPU is the CPU time so far (user + system, threads included) of
// process pid and every process it started, still running or ended: a
// worker that runs each interview in a process of its own (agents-js does)
// is measured whole, as one that runs them in threads is.
func processCPU(pid int) (time.Duration, error) {
	tree, err := processTree(pid)
	if err != nil {
		return 0, err
	}
	var total time.Duration
	for _, p := range tree {
		total += p.cpu
	}
	return total, nil
}

// proc is one process's line of /proc/<pid>/stat, as far as the benchmark
// reads it.
type proc struct {
	pid, ppid int
	// cpu is its own CPU time and that of its ended, waited-for children.
	cpu time.Duration
}

// processTree is process pid and its descendants, read from /proc.
func processTree(pid int) ([]proc, error) {
	root, err := readProc(pid)
	if err != nil {
		return nil, fmt.Errorf("read the CPU time of process %d: %w", pid, err)
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	children := map[int][]proc{}
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil || n == pid {
			continue
		}
		if p, err := readProc(n); err == nil { // a process may end meanwhile
			children[p.ppid] = append(children[p.ppid], p)
		}
	}
	tree := []proc{root}
	for i := 0; i < len(tree); i++ {
		tree = append(tree, children[tree[i].pid]...)
	}
	return tree, nil
}

// readProc reads /proc/<pid>/stat.
func readProc(pid int) (proc, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return proc{}, err
	}
	return parseStat(pid, b)
}

// parseStat reads the parent (field 4) and utime + stime + cutime + cstime
// (fields 14–17) of a /proc/<pid>/stat line. The command name (field 2)
// may hold spaces, so fields are counted after its closing parenthesis.
func parseStat(pid int, stat []byte) (proc, error) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return proc{}, fmt.Errorf("malformed /proc stat line %q", stat)
	}
	fields := strings.Fields(string(stat[i+1:]))
	// fields[0] is field 3 (state).
	const ppid, utime, cstime = 4 - 3, 14 - 3, 17 - 3
	if len(fields) <= cstime {
		return proc{}, fmt.Errorf("short /proc stat line %q", stat)
	}
	parent, err := strconv.Atoi(fields[ppid])
	if err != nil {
		return proc{}, fmt.Errorf("/proc stat parent %q: %w", fields[ppid], err)
	}
	var ticks int64
	for _, f := range fields[utime : cstime+1] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return proc{}, fmt.Errorf("/proc stat CPU field %q: %w", f, err)
		}
		ticks += n
	}
	return proc{pid: pid, ppid: parent, cpu: time.Duration(ticks) * time.Second / clockTicksPerSecond}, nil
}

// processRSSBytes is the resident memory (VmRSS of /proc/<pid>/status) of
// process pid and the processes it started; pages they share count in each.
func processRSSBytes(pid int) (int64, error) {
	tree, err := processTree(pid)
	if err != nil {
		return 0, err
	}
	var total int64
	for i, p := range tree {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid))
		if err != nil && i > 0 {
			continue // a child ended meanwhile
		}
		if err != nil {
			return 0, fmt.Errorf("read the memory of process %d: %w", pid, err)
		}
		rss, err := parseVmRSS(b)
		if err != nil {
			return 0, err
		}
		total += rss
	}
	return total, nil
}

// parseVmRSS reads the VmRSS line ("VmRSS:   12345 kB") of a status file.
func parseVmRSS(status []byte) (int64, error) {
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("malformed VmRSS line %q", sc.Text())
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("VmRSS %q: %w", f[0], err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("no VmRSS line in /proc status")
}

// machineTimes are the whole machine's CPU times from /proc/stat, in ticks.
type machineTimes struct {
	busy, total int64
}

// readMachineTimes reads the aggregate "cpu" line of /proc/stat.
func readMachineTimes() (machineTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineTimes{}, fmt.Errorf("read the machine's CPU times: %w", err)
	}
	return parseMachineTimes(b)
}

// parseMachineTimes sums the "cpu" line's fields; idle and iowait (fields
// 4 and 5) are the time not busy. Guest times are already in user and nice.
func parseMachineTimes(stat []byte) (machineTimes, error) {
	line, _, _ := bytes.Cut(stat, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 6 || f[0] != "cpu" {
		return machineTimes{}, fmt.Errorf("malformed /proc/stat cpu line %q", line)
	}
	var t machineTimes
	for i, s := range f[1:min(len(f), 9)] { // user … steal
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return machineTimes{}, fmt.Errorf("/proc/stat cpu field %q: %w", s, err)
		}
		t.total += n
		if i != 3 && i != 4 {
			t.busy += n
		}
	}
	return t, nil
}

// busyFraction is how busy the machine was between two readings (0–1).
func busyFraction(from, to machineTimes) float64 {
	total := to.total - from.total
	if total <= 0 {
		return 0
	}
	return float64(to.busy-from.busy) / float64(total)
}

// usage is what one process and the whole machine have used of the CPU at
// one instant.
type usage struct {
	at      time.Time
	cpu     time.Duration // the process's own CPU time
	machine machineTimes
}

// readUsage reads process pid's and the machine's CPU times now.
func readUsage(pid int) (usage, error) {
	cpu, err := processCPU(pid)
	if err != nil {
		return usage{}, err
	}
	m, err := readMachineTimes()
	if err != nil {
		return usage{}, err
	}
	return usage{at: time.Now(), cpu: cpu, machine: m}, nil
}

// window is what process pid used over one measuring window.
type window struct {
	from, to   time.Time
	cpu        time.Duration // the process's CPU time over the window
	machineCPU float64       // how busy the machine was (0–1)
	rssBytes   int64         // the process's resident memory at the end
	lateFrames int64         // late audio frames over the window
}

// seconds is the window's length.
func (w window) seconds() float64 { return w.to.Sub(w.from).Seconds() }

// measure measures process pid over d; late counts late audio frames so
// far. It returns ctx's error if ctx ends first.
func measure(ctx context.Context, pid int, d time.Duration, late func() int64) (window, error) {
	late0 := late()
	u0, err := readUsage(pid)
	if err != nil {
		return window{}, err
	}
	if !sleep(ctx, d) {
		return window{}, ctx.Err()
	}
	u1, err := readUsage(pid)
	if err != nil {
		return window{}, err
	}
	rss, err := processRSSBytes(pid)
	if err != nil {
		return window{}, err
	}
	return window{from: u0.at, to: time.Now(), cpu: u1.cpu - u0.cpu, machineCPU: busyFraction(u0.machine, u1.machine),
		rssBytes: rss, lateFrames: late() - late0}, nil
}
