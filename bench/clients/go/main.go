// The Go client's own cost per decision, beside a bare EVALSHA loop of the same script: both
// through the same redigo pool, the same goroutines, the same random users, against one private
// redis-server, every hit allowed. After a warm-up, each round gives each of the two `-slice`
// seconds in turns of `-turn` seconds (A B A B ..., the first of a round alternating), so both
// share the same moments of a machine whose speed moves; the ratio is taken within each round
// and the median of the rounds printed with their range. The client's CPU is the process'
// (getrusage); the server runs apart.
//
//	go run . [-goroutines 8] [-slice 1] [-turn 0.1] [-rounds 15] [-users 1000]
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gomodule/redigo/redis"
	"tollgate.dev/tollgate"
	tgredigo "tollgate.dev/tollgate/redigo"
	"tollgate.dev/tollgate/redigo/redistest"
)

// result: the totals of rounds (decisions, wall time, CPU), then their rates.
type result struct {
	decisions   float64
	wall, cpu   time.Duration
	perSecond   float64
	cpuUsPerHit float64
}

func (r *result) add(o result) {
	r.decisions += o.decisions
	r.wall += o.wall
	r.cpu += o.cpu
}

func (r result) rates() result {
	r.perSecond = r.decisions / r.wall.Seconds()
	r.cpuUsPerHit = float64(r.cpu.Microseconds()) / r.decisions
	return r
}

func main() {
	goroutines := flag.Int("goroutines", 8, "concurrent callers, one connection each")
	slice := flag.Float64("slice", 1, "seconds of each a round")
	turn := flag.Float64("turn", 0.1, "seconds of one turn")
	rounds := flag.Int("rounds", 15, "rounds; the median of their ratios is printed")
	users := flag.Int("users", 1000, "random users")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *profile != "" {
		f, err := os.Create(*profile)
		if err != nil {
			panic(err)
		}
		_ = pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	server, err := redistest.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	defer server.Close()
	pool := server.Pool()
	pool.MaxIdle = *goroutines
	limiter, err := tollgate.NewLimiter(tgredigo.New(pool), tollgate.Options{})
	if err != nil {
		panic(err)
	}
	defer limiter.Close()
	ctx := context.Background()
	// Never denied: the common hit, the short form (lua/README.md), the fixed window's fast path.
	if _, err := limiter.SavePolicy(ctx, "bench", map[string]string{"windows": "60000:1000000000"}, "bench", ""); err != nil {
		panic(err)
	}
	ids := make([]string, *users)
	for i := range ids {
		ids[i] = "user" + strconv.Itoa(i)
	}
	if _, err := limiter.Hit(ctx, "bench", ids[0], 1); err != nil { // reads the policy, asks the contract
		panic(err)
	}
	sha := hitSHA(pool)

	// The bare loop: the very command the client sends, its keys built beforehand.
	bare := func(conn redis.Conn, user int) error {
		k := bareKeys[user]
		_, err := conn.Do("EVALSHA", sha, "4", k[0], k[1], k[2], k[3], "hit", "fixed_window", "1", "1000000000", "60000")
		return err
	}
	for _, id := range ids {
		bareKeys = append(bareKeys, [4]string{"tg:{" + id + "}:ban", "tg:{" + id + "}:bench:ban", "tg:{" + id + "}:overrides",
			"tg:{" + id + "}:bench:fw:60000"})
	}
	client := func(_ redis.Conn, user int) error {
		_, err := limiter.Hit(ctx, "bench", ids[user], 1)
		return err
	}

	ownWork, allocs := withoutIO(ids)

	runs := []func(redis.Conn, int) error{bare, client}
	turnLength := time.Duration(*turn * float64(time.Second))
	for i, run := range runs { // warm-up: connections open, code and caches warm
		measure(pool, *goroutines, *users, time.Second, run, i == 0)
	}
	turns := int(*slice / *turn + 0.5)
	if turns < 1 {
		turns = 1
	}
	var perRound [2][]result
	for round := 0; round < *rounds; round++ {
		var total [2]result
		for t := 0; t < turns; t++ {
			for k := range runs {
				i := (k + round) % 2
				total[i].add(measure(pool, *goroutines, *users, turnLength, runs[i], i == 0))
			}
		}
		for i := range runs {
			perRound[i] = append(perRound[i], total[i].rates())
		}
	}
	var ratios, bareRate, clientRate, bareCPU, clientCPU, added []float64
	for r := range perRound[0] {
		b, c := perRound[0][r], perRound[1][r]
		ratios = append(ratios, c.perSecond/b.perSecond)
		bareRate, clientRate = append(bareRate, b.perSecond), append(clientRate, c.perSecond)
		bareCPU, clientCPU = append(bareCPU, b.cpuUsPerHit), append(clientCPU, c.cpuUsPerHit)
		added = append(added, c.cpuUsPerHit-b.cpuUsPerHit)
	}
	fmt.Printf("Go client against a bare EVALSHA loop of hit.lua: %d goroutines, %d users, %d rounds of %g s each in turns of %g s; medians over the rounds (range)\n\n",
		*goroutines, *users, *rounds, *slice, *turn)
	fmt.Println("| path | decisions/s | client CPU µs/decision |")
	fmt.Println("|---|---:|---:|")
	fmt.Printf("| bare EVALSHA (redigo, keys built beforehand) | %.0f | %s |\n", median(bareRate), spread(bareCPU, 1))
	fmt.Printf("| tollgate `Limiter.Hit` (redigo adapter) | %.0f | %s |\n", median(clientRate), spread(clientCPU, 1))
	fmt.Printf("\ndecisions/s, Limiter.Hit / bare loop: %s (goal >= 0.9)\n", spread(ratios, 2))
	fmt.Printf("what the client adds: %s µs of CPU per decision\n", spread(added, 1))
	fmt.Printf("the client's own work without I/O: %.2f µs of CPU per decision, %.0f allocations\n", ownWork, allocs)
}

func median(values []float64) float64 {
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}

// spread is "median (min-max)".
func spread(values []float64, digits int) string {
	sorted := append([]float64(nil), values...)
	sort.Float64s(sorted)
	return fmt.Sprintf("%.*f (%.*f-%.*f)", digits, median(values), digits, sorted[0], digits, sorted[len(sorted)-1])
}

// cannedClient answers every call with an allowed hit at once.
type cannedClient struct{}

var cannedReply = []interface{}{int64(1), []byte("ok"), int64(1), int64(1000000000), int64(999999999), int64(60000), int64(0)}

func (cannedClient) Do(ctx context.Context, args ...interface{}) (interface{}, error) {
	if len(args) == 4 && args[3] == "contract" {
		return int64(tollgate.ScriptContract), nil
	}
	return cannedReply, nil
}

// withoutIO: Limiter.Hit over a client that answers at once, one goroutine: the CPU and the
// allocations of the client's own work per decision (escaping, keys, the command, the reply).
func withoutIO(ids []string) (float64, float64) {
	limiter, err := tollgate.NewLimiter(cannedClient{}, tollgate.Options{Policies: []tollgate.Policy{
		{Action: "bench", Windows: []tollgate.Window{{Limit: 1000000000, Window: time.Minute}}}}})
	if err != nil {
		panic(err)
	}
	defer limiter.Close()
	ctx := context.Background()
	const n = 200000
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := cpuTime()
	for i := 0; i < n; i++ {
		if _, err := limiter.Hit(ctx, "bench", ids[i%len(ids)], 1); err != nil {
			panic(err)
		}
	}
	cpu = cpuTime() - cpu
	runtime.ReadMemStats(&after)
	return float64(cpu.Nanoseconds()) / 1000 / n, float64(after.Mallocs-before.Mallocs) / n
}

var bareKeys [][4]string

// hitSHA is the SHA the server knows hit.lua by (the client loaded it with its first hit).
func hitSHA(pool *redis.Pool) string {
	conn := pool.Get()
	defer conn.Close()
	source, err := os.ReadFile("../../../clients/go/lua/hit.lua")
	if err != nil {
		panic(err)
	}
	sha, err := redis.String(conn.Do("SCRIPT", "LOAD", string(source)))
	if err != nil {
		panic(err)
	}
	return sha
}

// measure runs call from goroutines callers for d, each on a connection of its own (the
// client's Do takes its own from the pool: the same count in use).
func measure(pool *redis.Pool, goroutines, users int, d time.Duration, call func(redis.Conn, int) error, ownConn bool) result {
	var done atomic.Int64
	var wg sync.WaitGroup
	stop := time.Now().Add(d)
	cpuBefore := cpuTime()
	started := time.Now()
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			random := rand.New(rand.NewSource(seed))
			var conn redis.Conn
			if ownConn {
				conn = pool.Get()
				defer conn.Close()
			}
			for n := 0; ; n++ {
				if n%64 == 0 && time.Now().After(stop) {
					return
				}
				if err := call(conn, random.Intn(users)); err != nil {
					panic(err)
				}
				done.Add(1)
			}
		}(int64(g))
	}
	wg.Wait()
	elapsed := time.Since(started)
	cpu := cpuTime() - cpuBefore
	return result{decisions: float64(done.Load()), wall: elapsed, cpu: cpu}
}

func cpuTime() time.Duration {
	var usage syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &usage)
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}
