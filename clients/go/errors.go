package tollgate

import (
	"errors"
	"fmt"
	"strings"
)

// The kinds of error this package returns. Test with errors.Is(err, tollgate.ErrNoPolicy);
// errors.As(err, &e) with e a *tollgate.Error gives the action and the message.
var (
	ErrInvalid     = errors.New("invalid argument")         // TG_INVALID, or a check before sending
	ErrCorrupt     = errors.New("corrupt key")              // TG_CORRUPT, WRONGTYPE
	ErrNoPolicy    = errors.New("no policy")                // no policy hash for the action
	ErrBadPolicy   = errors.New("malformed policy")         // a policy hash this client cannot use
	ErrContract    = errors.New("script contract mismatch") // another contract's policy or scripts
	ErrNoPerm      = errors.New("not permitted")            // TG_NOPERM, NOPERM
	ErrUnavailable = errors.New("redis unavailable")        // no answer in time, failure policy "report"
	ErrConflict    = errors.New("revision conflict")        // TG_CONFLICT
	ErrNotFound    = errors.New("not found")                // TG_NOTFOUND
	ErrReply       = errors.New("unexpected reply")         // a reply of another shape, another error
)

// Error is every error this package returns: Kind is one of the Err* values above.
type Error struct {
	Kind    error
	Action  string // the action concerned, when there is one
	Message string
	Err     error // the underlying error (the adapter's), when there is one
}

func (e *Error) Error() string {
	text := e.Kind.Error()
	if e.Action != "" {
		text += " (action " + e.Action + ")"
	}
	if e.Message != "" {
		text += ": " + e.Message
	}
	return "tollgate: " + text
}

// Is makes errors.Is(err, ErrNoPolicy) true for an *Error of that kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap gives the adapter's error (a timeout, a closed connection) to errors.Is / As.
func (e *Error) Unwrap() error { return e.Err }

func newError(kind error, format string, args ...interface{}) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// scriptRedirect is hit.lua's and refund.lua's TG_OVERRIDE: send the call again with these
// windows ("policy" or "<window_ms>:<limit>,...").
type scriptRedirect struct{ target string }

func (r *scriptRedirect) Error() string { return "TG_OVERRIDE " + r.target }

// classify turns what the adapter returned into this package's errors: the one place that
// reads Redis error replies.
func classify(err error) error {
	text, isReply := replyErrorText(err)
	if !isReply {
		return &Error{Kind: ErrUnavailable, Message: err.Error(), Err: err}
	}
	code, rest := text, ""
	if i := strings.IndexByte(text, ' '); i >= 0 {
		code, rest = text[:i], text[i+1:]
	}
	switch code {
	case "TG_INVALID":
		return &Error{Kind: ErrInvalid, Message: rest, Err: err}
	case "TG_CORRUPT":
		return &Error{Kind: ErrCorrupt, Message: rest, Err: err}
	case "TG_CONTRACT":
		return &Error{Kind: ErrContract, Message: rest, Err: err}
	case "TG_CONFLICT":
		return &Error{Kind: ErrConflict, Message: rest, Err: err}
	case "TG_NOTFOUND":
		return &Error{Kind: ErrNotFound, Message: rest, Err: err}
	case "TG_NOPERM", "NOPERM":
		return &Error{Kind: ErrNoPerm, Message: rest, Err: err}
	case "TG_OVERRIDE":
		return &scriptRedirect{target: rest}
	case "WRONGTYPE":
		return &Error{Kind: ErrCorrupt, Message: text, Err: err}
	case "BUSY", "LOADING", "TRYAGAIN", "MASTERDOWN", "CLUSTERDOWN", "READONLY":
		// The server cannot serve right now: for the failure policy, as good as gone.
		return &Error{Kind: ErrUnavailable, Message: text, Err: err}
	}
	if code == "ERR" && (strings.Contains(rest, "can't run this command") ||
		strings.Contains(rest, "No permissions to access") || strings.Contains(rest, "has no permissions")) {
		return &Error{Kind: ErrNoPerm, Message: text, Err: err}
	}
	return &Error{Kind: ErrReply, Message: text, Err: err}
}

func isNoScript(err error) bool {
	text, isReply := replyErrorText(err)
	return isReply && strings.HasPrefix(text, "NOSCRIPT")
}
