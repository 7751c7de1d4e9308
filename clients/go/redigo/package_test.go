package redigo_test

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"tollgate.dev/tollgate"
)

// An application built from the packaged module folder (clients/go/package.sh), not from this
// repository's sources, limits its requests: 429 with the header fields and the policy's message.
func TestPackagedModuleLimitsANetHTTPServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	l := fresh(t, tollgate.Options{})
	savePolicy(t, l, "comment", map[string]string{"windows": "60000:2", "message": "Two comments a minute"})

	root, _ := filepath.Abs(filepath.Join("..", "..", ".."))
	packaged := t.TempDir()
	pack := exec.Command("bash", filepath.Join(root, "clients", "go", "package.sh"), packaged)
	pack.Env = append(os.Environ(), "TOLLGATE_LUA_DIR="+filepath.Join(root, "build", "lua"))
	if out, err := pack.CombinedOutput(); err != nil {
		t.Fatalf("package.sh: %v\n%s", err, out)
	}
	app := t.TempDir()
	source, _ := os.ReadFile(filepath.Join("testdata", "app", "main.go"))
	goMod := "module example.com/app\n\ngo 1.19\n\nrequire (\n\tgithub.com/gomodule/redigo v1.8.3\n" +
		"\ttollgate.dev/tollgate v0.9.0\n\ttollgate.dev/tollgate/redigo v0.9.0\n)\n\nreplace (\n" +
		"\ttollgate.dev/tollgate => " + filepath.Join(packaged, "tollgate") + "\n" +
		"\ttollgate.dev/tollgate/redigo => " + filepath.Join(packaged, "tollgate", "redigo") + "\n" +
		"\tgithub.com/gomodule/redigo => " + redigoSources() + "\n)\n"
	for name, content := range map[string][]byte{"main.go": source, "go.mod": []byte(goMod)} {
		if err := os.WriteFile(filepath.Join(app, name), content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	build := exec.Command("go", "build", "-o", "app", ".")
	build.Dir = app
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	run := exec.Command(filepath.Join(app, "app"))
	run.Env = append(os.Environ(), "REDIS_ADDR="+server.Addr)
	stdout, _ := run.StdoutPipe()
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = run.Process.Kill(); _ = run.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "listening on ") {
		t.Fatalf("the app said %q: %v", line, err)
	}
	base := "http://" + strings.TrimSpace(strings.TrimPrefix(line, "listening on "))

	get := func(path, user string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", base+path, nil)
		req.Header.Set("X-User", user)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, string(body)
	}
	for i := 0; i < 2; i++ {
		if resp, _ := get("/comments", "42"); resp.StatusCode != 200 || resp.Header.Get("RateLimit") == "" {
			t.Fatalf("request %d: %d %v", i+1, resp.StatusCode, resp.Header)
		}
	}
	resp, body := get("/comments", "42")
	if resp.StatusCode != http.StatusTooManyRequests || strings.TrimSpace(body) != "Two comments a minute" ||
		resp.Header.Get("RateLimit-Policy") != `"comment-1m";q=2;w=60` ||
		!strings.HasPrefix(resp.Header.Get("RateLimit"), `"comment-1m";r=0;t=`) || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third request: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if resp, _ := get("/health", "42"); resp.StatusCode != 200 {
		t.Fatalf("a skipped path was limited: %d", resp.StatusCode)
	}
	if resp, _ := get("/comments", "43"); resp.StatusCode != 200 {
		t.Fatalf("another user was limited: %d", resp.StatusCode)
	}
}

// redigoSources: Debian's redigo (golang-github-gomodule-redigo-dev), as this module's go.mod
// replaces it.
func redigoSources() string {
	if dir := os.Getenv("TOLLGATE_REDIGO_SRC"); dir != "" {
		return dir
	}
	return "/usr/share/gocode/src/github.com/gomodule/redigo"
}
