package tollgate

import "testing"

// lua/README.md "Ids are escaped": the same bytes give the same keys in every client.
func TestEscapeID(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{"alice", "alice"},
		{"a:b", "a%3Ab"},
		{"Zoë", "Zoë"},
		{"\xff", "%FF"},
		{"\xfe", "%FE"},
		{"\uFFFD", "\uFFFD"},
		{"{x}*?[]\\%", "%7Bx%7D%2A%3F%5B%5D%5C%25"},
		{"a b\nc", "a%20b%0Ac"},
		{"\uFEFF", "\uFEFF"},
		{"\xed\xa0\x80", "%ED%A0%80"}, // a surrogate is no UTF-8
		{"\xc0\xaf", "%C0%AF"},        // an overlong form neither
		{"-_.@+=!~,;#&$()'/<>|^`\"", "-_.@+=!~,;#&$()'/<>|^`\""},
	} {
		got := EscapeID(c.id)
		if got != c.want {
			t.Errorf("EscapeID(%q) = %q, want %q", c.id, got, c.want)
		}
		if back, ok := unescapeID(got); !ok || back != c.id {
			t.Errorf("unescapeID(%q) = %q, %v", got, back, ok)
		}
	}
	for _, bad := range []string{"%3a", "%41", "a:b", "%4", "%ZZ"} {
		if _, ok := unescapeID(bad); ok {
			t.Errorf("unescapeID(%q) accepted what EscapeID never writes", bad)
		}
	}
}

func TestPrefixRule(t *testing.T) {
	for _, good := range []string{"tg", "my-app", "shop_eu.v2"} {
		if err := validatePrefix(good); err != nil {
			t.Errorf("%q refused: %v", good, err)
		}
	}
	for _, bad := range []string{"a:b", "a*", "a{", "a b", "a%", string(make([]byte, 65))} {
		if _, err := NewLimiter(nil, Options{Prefix: bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestHitCommandLayout(t *testing.T) {
	keys := keySchema{prefix: "tg"}
	short := &Policy{Action: "like", Windows: []Window{w(10, 60_000)}}
	if err := short.Validate(); err != nil {
		t.Fatal(err)
	}
	cmd := prepare(short, keys, false).command(keys, false, "a:b", PolicyCost, "0")
	want := []interface{}{"EVALSHA", hitScript.sha, "4", "tg:{a%3Ab}:ban", "tg:{a%3Ab}:like:ban",
		"tg:{a%3Ab}:overrides", "tg:{a%3Ab}:like:fw:60000", "hit", "fixed_window", "1", "10", "60000"}
	assertCommand(t, cmd, want)

	full := &Policy{Action: "comment", Windows: []Window{w(10, 30_000)}, Ban: 60_000_000_000, Shadow: true}
	if err := full.Validate(); err != nil {
		t.Fatal(err)
	}
	clusterKeys := keySchema{prefix: "tg", cluster: true}
	cmd = prepare(full, clusterKeys, false).command(clusterKeys, true, "alice", 3, "0")
	want = []interface{}{"EVALSHA_RO", hitScript.sha, "6", "tg:{alice}:ban", "tg:{alice}:comment:ban",
		"tg:{alice}:overrides", "tg:{alice}:audit", "tg:{alice}:audit", "tg:{alice}:comment:fw:30000",
		"peek", "fixed_window", "3", "0", "0", "60000", "", "0", "alice", "comment", "tg:events", "first_hit",
		"10", "30000"}
	assertCommand(t, cmd, want)
}

func assertCommand(t *testing.T, got, want []interface{}) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("command %v, want %v", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("argument %d is %v, want %v (command %v)", i, got[i], want[i], got)
		}
	}
}
