// Package s3test runs a real S3-compatible object store for tests:
// SeaweedFS (github.com/seaweedfs/seaweedfs, Apache-2.0, maintained) in
// its one-process form, `weed mini`, with its data in a temporary
// directory and every port on 127.0.0.1. SeaweedFS is a whole storage
// system whose S3 gateway serves AWS signature version 4, ranged reads,
// listing and deletion as S3 does, so the tests speak to what an operator
// runs, not to a fake. Its binary is bin/weed in the module's root (make
// bin/weed builds it from the Go module proxy).
//
// Start fails the test, saying how to build the binary, when it is
// missing: tests never skip silently.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/viva-interviews/viva/internal/linelog"
)

// binaryPath is the server's binary, relative to the module's root.
const binaryPath = "bin/weed"

// Bucket is the bucket every server starts with.
const Bucket = "recordings"

// startTimeout bounds the server's start.
const startTimeout = 2 * time.Minute

// Server is a running SeaweedFS with its S3 gateway.
type Server struct {
	// Endpoint is the S3 gateway's URL, http://127.0.0.1:PORT.
	Endpoint string
	// AccessKeyID and SecretAccessKey are the administrator's credentials.
	AccessKeyID, SecretAccessKey string
	// Region is the region to sign for.
	Region string
}

// Start runs a server for the test, stopped when it ends, with Bucket
// created.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := findBinary()
	if err != nil {
		t.Fatal(err)
	}
	ports, err := freePorts(10)
	if err != nil {
		t.Fatalf("s3test: %v", err)
	}
	dir := t.TempDir()
	secret := make([]byte, 20)
	_, _ = rand.Read(secret)
	s := &Server{Endpoint: "http://127.0.0.1:" + strconv.Itoa(ports[0]), AccessKeyID: "vivatest", SecretAccessKey: hex.EncodeToString(secret), Region: "us-east-1"}
	p := func(i int) string { return strconv.Itoa(ports[i]) }
	cmd := exec.Command(bin, "mini", "-dir="+dir, "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-bucket="+Bucket,
		"-s3.port="+p(0), "-s3.port.grpc="+p(1), "-master.port="+p(2), "-master.port.grpc="+p(3),
		"-volume.port="+p(4), "-volume.port.grpc="+p(5), "-filer.port="+p(6), "-filer.port.grpc="+p(7),
		"-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false", "-admin.ui=false", "-master.telemetry=false",
		"-volume.max=4", "-master.volumeSizeLimitMB=16")
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+s.AccessKeyID, "AWS_SECRET_ACCESS_KEY="+s.SecretAccessKey)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logs, err := linelog.Create(filepath.Join(dir, "weed.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("s3test: starting %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		defer logs.Close()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	if err := s.waitReady(exited); err != nil {
		lines := logs.Lines()
		t.Fatalf("s3test: %v; the end of its log:\n%s", err, strings.Join(lines[max(0, len(lines)-40):], "\n"))
	}
	return s
}

// waitReady waits until the gateway answers, signed with the
// administrator's keys, that the bucket exists: weed mini creates it
// after the gateway starts listening.
func (s *Server) waitReady(exited <-chan error) error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	u, _ := url.Parse(s.Endpoint)
	client, err := minio.New(u.Host, &minio.Options{Creds: credentials.NewStaticV4(s.AccessKeyID, s.SecretAccessKey, ""), Region: s.Region})
	if err != nil {
		return err
	}
	backoff := 20 * time.Millisecond
	for {
		if ok, err := client.BucketExists(ctx, Bucket); err == nil && ok {
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("weed mini exited before it served S3: %v", err)
		case <-ctx.Done():
			return fmt.Errorf("weed mini did not serve bucket %s within %v", Bucket, startTimeout)
		case <-time.After(backoff):
			backoff = min(2*backoff, time.Second)
		}
	}
}

// freePorts returns n ports free on 127.0.0.1 at the moment.
func freePorts(n int) ([]int, error) {
	var out []int
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
}

// findBinary returns bin/weed under the module's root, or an error saying
// how to build it.
func findBinary() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("s3test: no go.mod above the working directory")
		}
		dir = parent
	}
	bin := filepath.Join(dir, binaryPath)
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("s3test: bin/weed missing: run `make bin/weed` (looked for %s)", bin)
	}
	return bin, nil
}
