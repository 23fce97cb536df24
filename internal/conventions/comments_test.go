package conventions

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// issueRef matches a reference to a tracker issue: "issue 12", "issues
// 3 and 4", "Issue #7", or "#34" after a space or parenthesis. Issues are
// closed and forgotten; the ADRs and docs they produced stay, so code
// names those instead (ADR 0094).
var issueRef = regexp.MustCompile(`(?i)\bissues? ?#?[0-9]+|(^|[\s(])#[0-9]+\b`)

// TestIssueRefCatches is the control of TestNoIssueNumbers: each form the
// rule forbids is caught, and what it allows is not.
func TestIssueRefCatches(t *testing.T) {
	for _, s := range []string{"// the records of issue 14", "// (Issue #7)", "// see #34", "/* (#5) */", "// issues 3 and 4"} {
		if !issueRef.MatchString(s) {
			t.Errorf("%q not caught", s)
		}
	}
	for _, s := range []string{"// ADR 0094", "// docs/protocol.md, \"Event stream\"", "color: #fff", "fmt.Sprintf(\"%#v\", x)", "// the issue was"} {
		if issueRef.MatchString(s) {
			t.Errorf("%q caught", s)
		}
	}
}

// TestNoIssueNumbers: no Go file and no file of the served web client
// names an issue number. Third-party code vendored for the client
// (webclient/static/vendor, ADR 0098) is theirs, kept as shipped.
func TestNoIssueNumbers(t *testing.T) {
	root := filepath.Join("..", "..")
	skip := map[string]bool{"testdata": true, "node_modules": true, "bin": true}
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			if skip[d.Name()] || filepath.ToSlash(rel) == "webclient/static/vendor" || (path != root && strings.HasPrefix(d.Name(), ".")) { // .git, .pg, .artifacts
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if !strings.HasSuffix(rel, ".go") && !(strings.HasPrefix(rel, "webclient/static/") && strings.HasSuffix(rel, ".js")) {
			return nil
		}
		if rel == "internal/conventions/comments_test.go" {
			return nil // this file shows the forbidden forms, to test the rule
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for i, line := range strings.Split(string(b), "\n") {
			if m := issueRef.FindString(line); m != "" {
				t.Errorf("%s:%d names an issue (%q); name the ADR or doc instead", rel, i+1, strings.TrimSpace(m))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Fatalf("read %d files; the walk missed the tree", n)
	}
}
