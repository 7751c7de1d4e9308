package tollgate

import (
	"os"
	"path/filepath"
	"testing"
)

// The module ships the assembled scripts unchanged: its copy must be the build's, byte for
// byte (TOLLGATE_LUA_DIR, default the repository's build/lua).
func TestScriptsAreTheBuilds(t *testing.T) {
	dir := os.Getenv("TOLLGATE_LUA_DIR")
	if dir == "" {
		dir = filepath.Join("..", "..", "build", "lua")
	}
	built, err := filepath.Glob(filepath.Join(dir, "*.lua"))
	if err != nil || len(built) == 0 {
		t.Fatalf("no assembled scripts in %s: bash scripts/build.sh tollgate_lua_scripts (or set TOLLGATE_LUA_DIR)", dir)
	}
	shipped, _ := luaFiles.ReadDir("lua")
	if len(shipped) != len(built) {
		t.Errorf("the module ships %d scripts, the build has %d: run clients/go/copy-lua.sh", len(shipped), len(built))
	}
	for _, path := range built {
		want, _ := os.ReadFile(path)
		got, err := luaFiles.ReadFile("lua/" + filepath.Base(path))
		if err != nil || string(got) != string(want) {
			t.Errorf("lua/%s differs from %s: run clients/go/copy-lua.sh, never edit the copy", filepath.Base(path), path)
		}
	}
	for _, s := range []*script{hitScript, refundScript, banScript, policySetScript} {
		if s.contract != ScriptContract {
			t.Errorf("%s.lua follows contract %d, this client %d", s.name, s.contract, ScriptContract)
		}
	}
}
