// Package conformance runs the cross-language conformance cases (conformance/cases/*.json in
// Tollgate's repository, format in conformance/README.md) through the Go client's public API.
package conformance

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// RunnerName is the key of this runner in a case's "skip" object.
const RunnerName = "go"

// Case is one case file.
type Case struct {
	File     string
	Name     string                       `json:"name"`
	Prefix   string                       `json:"prefix"`
	Cluster  bool                         `json:"cluster"`
	Skip     map[string]string            `json:"skip"`
	Policies map[string]map[string]string `json:"policies"`
	Steps    []Step                       `json:"-"`
	RawSteps []json.RawMessage            `json:"steps"`
}

// Step is one step; which fields count depends on Op. Unknown keys are refused when read.
type Step struct {
	Op        string                     `json:"op"`
	Action    *ID                        `json:"action"`
	User      *ID                        `json:"user"`
	Cost      *int64                     `json:"cost"`
	Repeat    int                        `json:"repeat"`
	Client    *ClientOptions             `json:"client"`
	Reason    *string                    `json:"reason"`
	Actor     *string                    `json:"actor"`
	Ms        int64                      `json:"ms"`
	Windows   string                     `json:"windows"`
	Unlimited bool                       `json:"unlimited"`
	Fields    map[string]string          `json:"fields"`
	Delete    bool                       `json:"delete"`
	Command   []string                   `json:"command"`
	Expect    map[string]json.RawMessage `json:"expect"`
}

// ClientOptions are a step's failure policy and deadline.
type ClientOptions struct {
	OnError   string `json:"on_error"`
	TimeoutMs int64  `json:"timeout_ms"`
}

// ID is a user or action id: a JSON string, {"repeat": "a", "times": N} or {"hex": "ff41"}.
type ID struct{ Value string }

func (id *ID) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		return json.Unmarshal(data, &id.Value)
	}
	var form struct {
		Repeat *string `json:"repeat"`
		Times  int     `json:"times"`
		Hex    *string `json:"hex"`
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.DisallowUnknownFields()
	if err := d.Decode(&form); err != nil {
		return fmt.Errorf("an id is a string, {\"repeat\", \"times\"} or {\"hex\"}: %w", err)
	}
	switch {
	case form.Repeat != nil:
		id.Value = strings.Repeat(*form.Repeat, form.Times)
	case form.Hex != nil:
		raw, err := hex.DecodeString(*form.Hex)
		if err != nil {
			return err
		}
		id.Value = string(raw)
	default:
		return fmt.Errorf("an id object needs repeat and times, or hex")
	}
	return nil
}

func (id *ID) String() string {
	if id == nil {
		return ""
	}
	return id.Value
}

// Load reads a case file, refusing unknown keys in its steps.
func Load(path string) (*Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	c := &Case{File: filepath.Base(path)}
	if err := json.Unmarshal(data, c); err != nil {
		return nil, fmt.Errorf("%s: %w", c.File, err)
	}
	for i, raw := range c.RawSteps {
		var s Step
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&s); err != nil {
			return nil, fmt.Errorf("%s: step %d: %w", c.File, i+1, err)
		}
		if s.Repeat == 0 {
			s.Repeat = 1
		}
		c.Steps = append(c.Steps, s)
	}
	if c.Prefix == "" {
		c.Prefix = "tg"
	}
	return c, nil
}

// Files lists the case files of dir, sorted.
func Files(dir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no case files in %s", dir)
	}
	return files, err
}

// CasesDir is conformance/cases of the repository holding this file's module, found from the
// working directory upwards (TOLLGATE_CONFORMANCE_CASES overrides it).
func CasesDir() (string, error) {
	if dir := os.Getenv("TOLLGATE_CONFORMANCE_CASES"); dir != "" {
		return dir, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		candidate := filepath.Join(dir, "conformance", "cases")
		if info, err := os.Stat(candidate); err == nil && info.IsDir() {
			return candidate, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no conformance/cases above the working directory (set TOLLGATE_CONFORMANCE_CASES)")
		}
		dir = parent
	}
}
