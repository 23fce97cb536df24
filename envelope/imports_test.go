package envelope

import (
	"go/build"
	"strings"
	"testing"
)

// TestParsingNeedsNoAccounts: envelope checks the shape of what a client
// posts and nothing else, so of this module it imports only the leaf
// package of canonical spellings, never the packages that own accounts or
// queues (ADR 0094).
func TestParsingNeedsNoAccounts(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.HasPrefix(imp, "relay/") && imp != "relay/canonical" {
			t.Errorf("envelope imports %s; parsing must need no accounts, queues or server", imp)
		}
	}
}
