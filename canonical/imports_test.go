package canonical

import (
	"go/build"
	"strings"
	"testing"
)

// TestLeaf: canonical imports no package of this module, so that every
// package, the parser of envelopes included, can use it without depending
// on accounts, queues or the server (ADR 0094).
func TestLeaf(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, "relay/") {
			t.Errorf("canonical imports %s; a leaf imports nothing of the module", imp)
		}
	}
}
