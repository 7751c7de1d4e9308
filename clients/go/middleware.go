package tollgate

import (
	"errors"
	"net/http"
)

// HTTPOptions configure Middleware.
type HTTPOptions struct {
	Action string                       // the policy's action; required
	Key    func(r *http.Request) string // the user the request counts for (user id, API key, address); required; "" = not limited
	Skip   func(r *http.Request) bool   // requests not limited at all (health checks, staff); optional
	Cost   func(r *http.Request) int64  // the request's cost; default PolicyCost
	// OnError answers a request whose hit failed (no policy, Redis away with failure mode
	// "report"). Default: 503 for ErrUnavailable, 500 otherwise.
	OnError func(w http.ResponseWriter, r *http.Request, err error)
}

// Middleware limits an http.Handler: each request not skipped is a hit of Action for Key(r).
// Every limited response carries RateLimit-Policy and RateLimit; a refused request is answered
// 429 with Retry-After and the policy's message as its body, and never reaches next.
func (l *Limiter) Middleware(o HTTPOptions) func(http.Handler) http.Handler {
	if o.Action == "" || o.Key == nil {
		panic("tollgate: Middleware needs an Action and a Key function")
	}
	onError := o.OnError
	if onError == nil {
		onError = func(w http.ResponseWriter, r *http.Request, err error) {
			status := http.StatusInternalServerError
			if errors.Is(err, ErrUnavailable) {
				status = http.StatusServiceUnavailable
			}
			http.Error(w, http.StatusText(status), status)
		}
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if o.Skip != nil && o.Skip(r) {
				next.ServeHTTP(w, r)
				return
			}
			key := o.Key(r)
			if key == "" {
				next.ServeHTTP(w, r)
				return
			}
			cost := PolicyCost
			if o.Cost != nil {
				cost = o.Cost(r)
			}
			d, err := l.Hit(r.Context(), o.Action, key, cost)
			if err != nil {
				onError(w, r, err)
				return
			}
			d.Headers(nil).Set(w.Header())
			if !d.Allowed {
				message := d.Message
				if message == "" {
					message = http.StatusText(http.StatusTooManyRequests)
				}
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = w.Write([]byte(message + "\n"))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
