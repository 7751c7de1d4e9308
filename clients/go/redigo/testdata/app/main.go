// A net/http server limited by Tollgate, built by package_test.go against the packaged module
// folder (clients/go/package.sh), as an application would use it.
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"

	"github.com/gomodule/redigo/redis"
	"tollgate.dev/tollgate"
	tgredigo "tollgate.dev/tollgate/redigo"
)

func main() {
	pool := &redis.Pool{MaxIdle: 16, Dial: func() (redis.Conn, error) { return redis.Dial("tcp", os.Getenv("REDIS_ADDR")) }}
	limiter, err := tollgate.NewLimiter(tgredigo.New(pool), tollgate.Options{Prefix: "tg"})
	if err != nil {
		panic(err)
	}
	limit := limiter.Middleware(tollgate.HTTPOptions{
		Action: "comment",
		Key:    func(r *http.Request) string { return r.Header.Get("X-User") },
		Skip:   func(r *http.Request) bool { return r.URL.Path == "/health" },
	})
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "comment saved") })

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	fmt.Println("listening on", listener.Addr())
	panic(http.Serve(listener, limit(mux)))
}
