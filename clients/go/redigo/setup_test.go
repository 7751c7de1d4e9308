package redigo_test

import (
	"context"
	"os"
	"testing"
	"time"

	"tollgate.dev/tollgate"
	tgredigo "tollgate.dev/tollgate/redigo"
	"tollgate.dev/tollgate/redigo/redistest"
)

// server is the package's private redis-server, started by TestMain and killed after the tests.
var server *redistest.Server

func TestMain(m *testing.M) {
	var err error
	if server, err = redistest.Start(); err != nil {
		println(err.Error())
		os.Exit(1)
	}
	code := m.Run()
	server.Close()
	os.Exit(code)
}

// fresh empties the server and gives a Limiter over a pool of its own, closed with the test.
func fresh(t *testing.T, opts tollgate.Options) *tollgate.Limiter {
	t.Helper()
	if _, err := server.Do("FLUSHALL"); err != nil {
		t.Fatal(err)
	}
	return limiterOn(t, tgredigo.New(server.Pool()), opts)
}

func limiterOn(t *testing.T, client tollgate.Client, opts tollgate.Options) *tollgate.Limiter {
	t.Helper()
	l, err := tollgate.NewLimiter(client, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func savePolicy(t *testing.T, l *tollgate.Limiter, action string, fields map[string]string) {
	t.Helper()
	if _, err := l.SavePolicy(context.Background(), action, fields, "test", "set up"); err != nil {
		t.Fatal(err)
	}
}

func hit(t *testing.T, l *tollgate.Limiter, action, user string) tollgate.Decision {
	t.Helper()
	d, err := l.Hit(context.Background(), action, user, 1)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// eventually retries check until it holds or 3 s have passed (for what arrives by pub/sub).
func eventually(t *testing.T, what string, check func() bool) {
	t.Helper()
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if check() {
			return
		}
	}
	t.Fatal("never happened: " + what)
}
