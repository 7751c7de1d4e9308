package conformance

import (
	"path/filepath"
	"testing"

	"tollgate.dev/tollgate/redigo/redistest"
)

// TestConformance runs every case of conformance/cases, one subtest per file.
func TestConformance(t *testing.T) {
	dir, err := CasesDir()
	if err != nil {
		t.Fatal(err)
	}
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	server, err := redistest.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	for _, file := range files {
		file := file
		t.Run(filepath.Base(file), func(t *testing.T) {
			c, err := Load(file)
			if err != nil {
				t.Fatal(err)
			}
			switch outcome := Run(server, c); outcome.Status {
			case "SKIP":
				t.Skip(outcome.Line)
			case "FAIL":
				t.Fatal(outcome.Line)
			}
		})
	}
}
