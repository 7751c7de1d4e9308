package tollgate

import (
	"context"
	"errors"
	"strconv"
)

// Client is all the Redis client this package needs: one command, one reply. An adapter wraps
// the application's own client (the redigo one ships in tollgate.dev/tollgate/redigo; a go-redis
// one is five lines, see the README).
//
// Do sends args (the command name first) and returns the reply as int64, string or []byte,
// []interface{} of those, or nil. It must return within ctx's deadline. A Redis error reply is
// returned as an error that is a ReplyError or has a RedisError() method (go-redis' errors
// have); any other error means Redis did not answer (the failure policy then decides a hit).
type Client interface {
	Do(ctx context.Context, args ...interface{}) (interface{}, error)
}

// Subscriber is implemented by adapters that can listen to a pub/sub channel. Listen blocks
// until ctx ends or the connection fails, calls ready once subscribed, and onMessage with each
// message's payload. The Limiter uses it to drop a policy from its cache the moment it changes.
type Subscriber interface {
	Listen(ctx context.Context, channel string, ready func(), onMessage func(payload []byte)) error
}

// ReplyError is an error reply of Redis ("NOSCRIPT ...", "TG_INVALID ...") as an adapter
// returns it.
type ReplyError string

func (e ReplyError) Error() string { return string(e) }

// RedisError marks it as a reply of the server, as go-redis' errors are marked.
func (e ReplyError) RedisError() {}

// replyErrorText is the text of a Redis error reply, or false for a transport failure.
func replyErrorText(err error) (string, bool) {
	var marked interface{ RedisError() }
	if errors.As(err, &marked) {
		return err.Error(), true
	}
	return "", false
}

// Reply readers: adapters return bulk strings as string or []byte.

func replyString(v interface{}) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case []byte:
		return string(s), true
	}
	return "", false
}

func replyInt(v interface{}) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case string, []byte:
		s, _ := replyString(v)
		i, err := strconv.ParseInt(s, 10, 64)
		return i, err == nil
	}
	return 0, false
}

func replyArray(v interface{}) ([]interface{}, bool) {
	a, ok := v.([]interface{})
	return a, ok
}
