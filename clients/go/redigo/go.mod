module tollgate.dev/tollgate/redigo

go 1.19

require (
	github.com/gomodule/redigo v1.8.3
	tollgate.dev/tollgate v0.9.0
)

// For developing and testing offline in Tollgate's repository: the module beside this one, and
// redigo from Debian (golang-github-gomodule-redigo-dev). Replacements apply only where this is
// the main module; clients/go/package.sh leaves them out of the packaged folder.
replace (
	github.com/gomodule/redigo => /usr/share/gocode/src/github.com/gomodule/redigo
	tollgate.dev/tollgate => ../
)
