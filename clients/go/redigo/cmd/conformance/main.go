// Command conformance runs the conformance cases through the Go client against a private
// redis-server and prints PASS / FAIL / SKIP per case and "N passed, M failed". It exits 1 when
// a case failed. Usage: go run ./cmd/conformance [case files or a directory]
// (default: conformance/cases of the repository above the working directory).
package main

import (
	"fmt"
	"os"
	"strings"

	"tollgate.dev/tollgate/redigo/conformance"
	"tollgate.dev/tollgate/redigo/redistest"
)

func main() {
	files, err := caseFiles(os.Args[1:])
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	server, err := redistest.Start()
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance:", err)
		os.Exit(2)
	}
	defer server.Close()
	counts := map[string]int{}
	for _, file := range files {
		c, err := conformance.Load(file)
		outcome := conformance.Outcome{Status: "FAIL", Line: fmt.Sprintf("FAIL %s: %v", file, err)}
		if err == nil {
			outcome = conformance.Run(server, c)
		}
		fmt.Println(outcome.Line)
		counts[outcome.Status]++
	}
	summary := fmt.Sprintf("%d passed, %d failed", counts["PASS"], counts["FAIL"])
	if counts["SKIP"] > 0 {
		summary += fmt.Sprintf(", %d skipped", counts["SKIP"])
	}
	fmt.Println(summary)
	if counts["FAIL"] > 0 {
		server.Close()
		os.Exit(1)
	}
}

func caseFiles(args []string) ([]string, error) {
	if len(args) == 0 {
		dir, err := conformance.CasesDir()
		if err != nil {
			return nil, err
		}
		return conformance.Files(dir)
	}
	var files []string
	for _, a := range args {
		if strings.HasSuffix(a, ".json") {
			files = append(files, a)
			continue
		}
		more, err := conformance.Files(a)
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	return files, nil
}
