module tollgate.dev/bench/goclient

go 1.19

require (
	github.com/gomodule/redigo v1.8.3
	tollgate.dev/tollgate v0.9.0
	tollgate.dev/tollgate/redigo v0.9.0
)

// Offline, from this repository and Debian (bench/clients/go_bench.sh runs it).
replace (
	github.com/gomodule/redigo => /usr/share/gocode/src/github.com/gomodule/redigo
	tollgate.dev/tollgate => ../../../clients/go
	tollgate.dev/tollgate/redigo => ../../../clients/go/redigo
)
