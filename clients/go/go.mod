module tollgate.dev/tollgate

go 1.19
