// Package redigo adapts a redigo pool (github.com/gomodule/redigo) to tollgate.Client and
// tollgate.Subscriber. redigo has no Redis Cluster client: use a single server or Sentinel's
// master through the pool's Dial function.
package redigo

import (
	"context"
	"errors"
	"time"

	"github.com/gomodule/redigo/redis"
	"tollgate.dev/tollgate"
)

// Client is a tollgate.Client over a redigo pool.
type Client struct {
	pool *redis.Pool
}

// New wraps pool. The pool's Dial (or DialContext) also opens the events subscription's own
// connection.
func New(pool *redis.Pool) *Client { return &Client{pool: pool} }

// Do runs one command on a pooled connection within ctx's deadline (redigo reads with a timeout,
// so a server that stops answering costs the deadline, never a hang).
func (c *Client) Do(ctx context.Context, args ...interface{}) (interface{}, error) {
	conn, err := c.pool.GetContext(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	name, _ := args[0].(string)
	var timeout time.Duration
	if deadline, ok := ctx.Deadline(); ok {
		if timeout = time.Until(deadline); timeout <= 0 {
			return nil, context.DeadlineExceeded
		}
	}
	reply, err := redis.DoWithTimeout(conn, timeout, name, args[1:]...)
	var replyErr redis.Error
	if errors.As(err, &replyErr) {
		return nil, tollgate.ReplyError(replyErr)
	}
	return reply, err
}

// Listen subscribes to channel on a connection of its own until ctx ends or it fails.
func (c *Client) Listen(ctx context.Context, channel string, ready func(), onMessage func([]byte)) error {
	var conn redis.Conn
	var err error
	switch {
	case c.pool.DialContext != nil:
		conn, err = c.pool.DialContext(ctx)
	case c.pool.Dial != nil:
		conn, err = c.pool.Dial()
	default:
		return errors.New("tollgate/redigo: the pool has no Dial function")
	}
	if err != nil {
		return err
	}
	defer conn.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		select {
		case <-ctx.Done():
			conn.Close() // ends the Receive below
		case <-stop:
		}
	}()
	psc := redis.PubSubConn{Conn: conn}
	if err := psc.Subscribe(channel); err != nil {
		return err
	}
	for {
		switch m := psc.ReceiveWithTimeout(0).(type) {
		case redis.Subscription:
			if m.Kind == "subscribe" {
				ready()
			}
		case redis.Message:
			onMessage(m.Data)
		case error:
			return m
		}
	}
}

var (
	_ tollgate.Client     = (*Client)(nil)
	_ tollgate.Subscriber = (*Client)(nil)
)
