package tollgate

import (
	"context"
	"crypto/sha1"
	"embed"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
)

// ScriptContract is the script contract (lua/README.md, "Contract version") this package
// speaks: the scripts it ships follow it, and it refuses servers and policies of another.
const ScriptContract = 3

// The assembled scripts, copied from the build (build/lua) by scripts/copy-lua.sh; never
// edited here. scripts_test.go fails when they differ from the build's.
//
//go:embed lua/*.lua
var luaFiles embed.FS

type script struct {
	name     string
	source   string
	sha      string
	shaArg   interface{} // sha, boxed once for the commands
	contract int         // from the header's "Contract: N" line
}

var contractLine = regexp.MustCompile(`(?m)^Contract: (\d+)`)

func loadScript(name string) *script {
	source, err := luaFiles.ReadFile("lua/" + name + ".lua")
	if err != nil {
		panic("tollgate: the module lacks lua/" + name + ".lua: " + err.Error())
	}
	sum := sha1.Sum(source)
	s := &script{name: name, source: string(source), sha: hex.EncodeToString(sum[:])}
	s.shaArg = s.sha
	if m := contractLine.FindSubmatch(source); m != nil {
		s.contract, _ = strconv.Atoi(string(m[1]))
	}
	return s
}

var (
	hitScript            = loadScript("hit")
	refundScript         = loadScript("refund")
	banScript            = loadScript("ban")
	unbanScript          = loadScript("unban")
	resetScript          = loadScript("reset")
	overrideSetScript    = loadScript("override_set")
	overrideDeleteScript = loadScript("override_delete")
	policySetScript      = loadScript("policy_set")
	policyDeleteScript   = loadScript("policy_delete")
)

// evalsha sends cmd, which starts EVALSHA (or EVALSHA_RO) and the script's SHA, and on NOSCRIPT
// (a restart, a failover, SCRIPT FLUSH, a proxy that forwards EVAL but not SCRIPT LOAD) the same
// call once as EVAL with the source, which also caches the script again. Both within ctx.
func (s *script) evalsha(ctx context.Context, c Client, cmd []interface{}) (interface{}, error) {
	reply, err := c.Do(ctx, cmd...)
	if err == nil {
		return reply, nil
	}
	if !isNoScript(err) {
		return nil, classify(err)
	}
	again := make([]interface{}, len(cmd))
	copy(again, cmd)
	again[0] = "EVAL"
	if cmd[0] == "EVALSHA_RO" {
		again[0] = "EVAL_RO"
	}
	again[1] = s.source
	reply, err = c.Do(ctx, again...)
	if err != nil {
		return nil, classify(err)
	}
	return reply, nil
}

// call runs the script with keys and args (EVALSHA, or EVALSHA_RO when readOnly).
func (s *script) call(ctx context.Context, c Client, readOnly bool, keys []string, args ...interface{}) (interface{}, error) {
	cmd := make([]interface{}, 0, 3+len(keys)+len(args))
	if readOnly {
		cmd = append(cmd, "EVALSHA_RO")
	} else {
		cmd = append(cmd, "EVALSHA")
	}
	cmd = append(cmd, s.sha, strconv.Itoa(len(keys)))
	for _, k := range keys {
		cmd = append(cmd, k)
	}
	cmd = append(cmd, args...)
	return s.evalsha(ctx, c, cmd)
}

// checkContract asks the server which contract the scripts it runs follow (a script called with
// no keys and the single argument "contract" answers it, writing nothing).
func checkContract(ctx context.Context, c Client) error {
	reply, err := hitScript.call(ctx, c, true, nil, "contract")
	if err != nil {
		return err
	}
	n, ok := replyInt(reply)
	if !ok || n != ScriptContract || hitScript.contract != ScriptContract {
		return &Error{Kind: ErrContract, Message: fmt.Sprintf(
			"the server's hit.lua answers contract %v and the module's copy says %d; this client speaks contract %d (lua/README.md, \"Contract version\")",
			reply, hitScript.contract, ScriptContract)}
	}
	return nil
}
