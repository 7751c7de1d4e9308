// Package redistest starts a private redis-server for tests, the conformance runner and the
// benchmark: a free loopback port, a temporary directory, no persistence, killed by Close.
package redistest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/gomodule/redigo/redis"
)

// Server is one running redis-server.
type Server struct {
	Addr   string
	dir    string
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has ended
}

// Start runs redis-server (REDIS_SERVER, else the one on PATH) on a free loopback port and
// waits until it answers PING.
func Start() (*Server, error) {
	binary := os.Getenv("REDIS_SERVER")
	if binary == "" {
		binary = "redis-server"
	}
	dir, err := os.MkdirTemp("", "tollgate-go-redis-")
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 5; attempt++ {
		port, err := freePort()
		if err != nil {
			lastErr = err
			continue
		}
		s := &Server{Addr: "127.0.0.1:" + strconv.Itoa(port), dir: dir}
		s.cmd = exec.Command(binary, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
			"--dir", dir, "--save", "", "--appendonly", "no", "--logfile", filepath.Join(dir, "redis.log"))
		if err := s.cmd.Start(); err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("redistest: cannot start %s: %w", binary, err)
		}
		s.exited = make(chan struct{})
		go func() { _, _ = s.cmd.Process.Wait(); close(s.exited) }()
		if lastErr = s.waitReady(); lastErr == nil {
			return s, nil
		}
		s.kill() // the port was taken meanwhile: try another
	}
	os.RemoveAll(dir)
	return nil, fmt.Errorf("redistest: redis-server did not start: %v", lastErr)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func (s *Server) waitReady() error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return fmt.Errorf("redis-server exited (see %s)", filepath.Join(s.dir, "redis.log"))
		default:
		}
		if c, err := redis.Dial("tcp", s.Addr, redis.DialConnectTimeout(200*time.Millisecond)); err == nil {
			_, err = c.Do("PING")
			c.Close()
			if err == nil {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("redis-server on %s did not answer PING", s.Addr)
}

// Pool is a redigo pool on the server.
func (s *Server) Pool() *redis.Pool {
	return &redis.Pool{
		MaxIdle: 64,
		Dial: func() (redis.Conn, error) {
			return redis.Dial("tcp", s.Addr, redis.DialConnectTimeout(time.Second))
		},
	}
}

// Do runs one command on a connection of its own (for test set-up, not the hot path).
func (s *Server) Do(cmd string, args ...interface{}) (interface{}, error) {
	c, err := redis.Dial("tcp", s.Addr, redis.DialConnectTimeout(time.Second), redis.DialReadTimeout(5*time.Second))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.Do(cmd, args...)
}

// Freeze stops the server (SIGSTOP): it keeps its connections and answers nothing until Thaw.
func (s *Server) Freeze() error { return s.cmd.Process.Signal(syscall.SIGSTOP) }

// Thaw lets a frozen server go on (SIGCONT).
func (s *Server) Thaw() error { return s.cmd.Process.Signal(syscall.SIGCONT) }

func (s *Server) kill() {
	_ = s.cmd.Process.Signal(syscall.SIGCONT)
	_ = s.cmd.Process.Kill()
	<-s.exited
}

// Close kills the server and removes its directory.
func (s *Server) Close() {
	s.kill()
	os.RemoveAll(s.dir)
}
