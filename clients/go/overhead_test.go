package tollgate

import (
	"context"
	"strconv"
	"testing"
)

// cannedClient answers every hit with an allowed 7-element reply: what is left to measure is
// the client's own work per decision (bench/go-client measures it against a server).
type cannedClient struct{ reply []interface{} }

func (c cannedClient) Do(ctx context.Context, args ...interface{}) (interface{}, error) {
	return c.reply, nil
}

func BenchmarkHitWithoutIO(b *testing.B) {
	client := cannedClient{[]interface{}{int64(1), []byte("ok"), int64(1), int64(10), int64(9), int64(60000), int64(0)}}
	l, err := NewLimiter(client, Options{Policies: []Policy{{Action: "bench", Windows: []Window{w(10, 60_000)}}}})
	if err != nil {
		b.Fatal(err)
	}
	l.contractOK.Store(true)
	users := make([]string, 1000)
	for i := range users {
		users[i] = "user" + strconv.Itoa(i)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := l.Hit(ctx, "bench", users[i%len(users)], 1); err != nil {
			b.Fatal(err)
		}
	}
}
