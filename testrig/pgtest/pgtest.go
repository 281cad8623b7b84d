// Package pgtest runs a real PostgreSQL server for tests: Debian's
// PostgreSQL 15 (package postgresql), initialised in a temporary directory
// and listening on a free port of 127.0.0.1 and on a unix socket inside that
// directory. One server serves a whole test binary; every test gets a fresh
// database of its own.
//
// A package's TestMain runs its tests through Main, which stops the server
// at the end; the server starts on the first call of Database, so tests
// that need no database cost nothing. When PostgreSQL is not installed,
// Database fails the test with what to do: tests never skip silently.
package pgtest

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// BinDir holds Debian's PostgreSQL 15 programs (initdb, postgres).
const BinDir = "/usr/lib/postgresql/15/bin"

// SuperUser is the server's superuser, whose password is in every URL
// Database returns.
const SuperUser = "postgres"

// systemUser runs the server when the tests run as root: PostgreSQL refuses
// to run as root. Debian's package creates it.
const systemUser = "postgres"

// startTimeout bounds initdb plus the server's start.
const startTimeout = 2 * time.Minute

// readyLine is what the server logs once it accepts connections.
const readyLine = "database system is ready to accept connections"

// Server is a running PostgreSQL server.
type Server struct {
	dir      string // the temporary directory: data, socket, password file
	port     int
	password string
	cmd      *exec.Cmd
	exited   chan struct{} // closed when the server process has ended
	dbs      atomic.Int64  // databases created, for unique names
}

var (
	once     sync.Once
	shared   *Server
	startErr error
)

// Main runs the tests of m and then stops the server they used, if any.
// Call it from TestMain: os.Exit(pgtest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		if err := shared.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "pgtest:", err)
		}
	}
	return code
}

// Database creates an empty database on the test binary's server (started
// on first use) and returns its URL, with the superuser's password, for
// t alone; the database is dropped when t ends.
func Database(t testing.TB) string {
	t.Helper()
	once.Do(func() { shared, startErr = Start() })
	if startErr != nil {
		t.Fatalf("pgtest: %v", startErr)
	}
	name := fmt.Sprintf("test_%d", shared.dbs.Add(1))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := shared.exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: creating database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := shared.exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("pgtest: dropping database %s: %v", name, err)
		}
	})
	return shared.URL(name)
}

// URL returns the TCP URL of database db on s, with the superuser and its
// password.
func (s *Server) URL(db string) string {
	u := url.URL{Scheme: "postgres", User: url.UserPassword(SuperUser, s.password),
		Host: net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)), Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// SocketDir is the directory of the server's unix socket.
func (s *Server) SocketDir() string { return filepath.Join(s.dir, "sock") }

// exec runs one statement in the maintenance database.
func (s *Server) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, s.URL("postgres"))
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
	return err
}

// Start initialises a server in a new temporary directory and starts it;
// connections over TCP need the password, those over the socket are
// trusted.
func Start() (*Server, error) {
	initdb := filepath.Join(BinDir, "initdb")
	if _, err := os.Stat(initdb); err != nil {
		return nil, fmt.Errorf("PostgreSQL 15 is not installed (%s: %v): run make deps (scripts/deps.sh installs Debian's postgresql package)", initdb, err)
	}
	cred, err := credential()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "viva-pgtest-*")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, password: randomHex(16), exited: make(chan struct{})}
	ok := false
	defer func() {
		if !ok {
			_ = os.RemoveAll(dir)
		}
	}()
	pwfile := filepath.Join(dir, "pwfile")
	if err := os.WriteFile(pwfile, []byte(s.password+"\n"), 0o600); err != nil {
		return nil, err
	}
	if err := os.Mkdir(s.SocketDir(), 0o700); err != nil {
		return nil, err
	}
	if cred != nil {
		for _, p := range []string{dir, pwfile, s.SocketDir()} {
			if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
				return nil, fmt.Errorf("handing %s to the %s user: %w", p, systemUser, err)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	data := filepath.Join(dir, "data")
	init := exec.CommandContext(ctx, initdb, "-D", data, "-U", SuperUser, "--pwfile", pwfile,
		"--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync")
	init.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := init.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w\n%s", err, out)
	}
	if s.port, err = freePort(); err != nil {
		return nil, err
	}
	s.cmd = exec.Command(filepath.Join(BinDir, "postgres"), "-D", data, "-p", strconv.Itoa(s.port),
		"-k", s.SocketDir(), "-c", "listen_addresses=127.0.0.1",
		// A test server trades durability for speed.
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
		"-c", "max_connections=200", "-c", "shared_buffers=32MB")
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
	logs, err := s.cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting postgres: %w", err)
	}
	ready := make(chan struct{})
	var tail []string // the server's last log lines, for errors
	var tailMu sync.Mutex
	go func() {
		lines := bufio.NewScanner(logs)
		signalled := false
		for lines.Scan() {
			line := lines.Text()
			tailMu.Lock()
			tail = append(tail[max(0, len(tail)-19):], line)
			tailMu.Unlock()
			if !signalled && strings.Contains(line, readyLine) {
				signalled = true
				close(ready)
			}
		}
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	select {
	case <-ready:
	case <-s.exited:
	case <-ctx.Done():
	}
	select {
	case <-ready:
		ok = true
		return s, nil
	default:
	}
	_ = s.Stop()
	tailMu.Lock()
	defer tailMu.Unlock()
	return nil, fmt.Errorf("postgres did not start within %v:\n%s", startTimeout, strings.Join(tail, "\n"))
}

// Stop shuts the server down (fast shutdown) and removes its directory.
func (s *Server) Stop() error {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.exited:
		case <-time.After(30 * time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	}
	return os.RemoveAll(s.dir)
}

// credential returns the system user the server must run as when this
// process is root, and nil otherwise.
func credential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup(systemUser)
	if err != nil {
		return nil, fmt.Errorf("tests run as root and PostgreSQL refuses to: the %s system user is missing (%v): run make deps", systemUser, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("user %s: %w", systemUser, err)
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
