package redigo_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"tollgate.dev/tollgate"
)

func TestMiddlewareAnswers429WithTheHeaderFields(t *testing.T) {
	l := fresh(t, tollgate.Options{})
	savePolicy(t, l, "api", map[string]string{"windows": "10000:1,60000:5"})
	handler := l.Middleware(tollgate.HTTPOptions{Action: "api",
		Key:  func(r *http.Request) string { return r.URL.Query().Get("key") },
		Skip: func(r *http.Request) bool { return r.Method == http.MethodOptions },
	})(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))

	serve := func(method, key string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(method, "/v1?key="+key, nil))
		return rec
	}
	if rec := serve("GET", "k1"); rec.Code != 200 || rec.Header().Get("RateLimit-Policy") != `"api-10s";q=1;w=10, "api-1m";q=5;w=60` {
		t.Fatalf("first: %d %v", rec.Code, rec.Header())
	}
	rec := serve("GET", "k1")
	if rec.Code != 429 || !strings.HasPrefix(rec.Header().Get("RateLimit"), `"api-10s";r=0;t=`) ||
		rec.Header().Get("Retry-After") == "" || strings.TrimSpace(rec.Body.String()) != "Too Many Requests" {
		t.Fatalf("second: %d %q %v", rec.Code, rec.Body.String(), rec.Header())
	}
	if rec := serve("OPTIONS", "k1"); rec.Code != 200 || rec.Header().Get("RateLimit") != "" {
		t.Fatalf("skipped: %d %v", rec.Code, rec.Header())
	}
	// A failure the middleware cannot decide: the action has no policy.
	broken := l.Middleware(tollgate.HTTPOptions{Action: "none", Key: func(*http.Request) string { return "k" }})(handler)
	rec = httptest.NewRecorder()
	broken.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 500 {
		t.Fatalf("no policy: %d", rec.Code)
	}
}
