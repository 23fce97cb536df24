package relay_test

import (
	"slices"
	"testing"

	"relay/deletion"
)

// vacuumExempt are the tables with a column that could name an account
// (accountColumns) which `relay admin vacuum` need not rewrite, each with
// the reason: none of their rows ever holds a username, a device id or an
// account's id.
var vacuumExempt = map[string]string{
	"push_vapid":      "the relay's own VAPID key pair, one row, no account",
	"relay_epoch":     "the database's epoch token (ADR 0090), one row, no account",
	"relay_instances": "the relay instances seen (ADR 0055), no account",
}

// TestVacuumRewritesEveryAccountTable: every table that can hold a row
// naming an account is rewritten by the vacuum after a deletion
// (deletion.Tables), unless it is exempt above with its reason. A new
// table with an account's or a device's column fails here until it is
// listed in one or the other.
func TestVacuumRewritesEveryAccountTable(t *testing.T) {
	s := newTestServer(t)
	cols := s.accountColumns(t)
	if len(cols) < 5 {
		t.Fatalf("the schema query found %d tables: it cannot be reading the schema", len(cols))
	}
	for tb, cs := range cols {
		if slices.Contains(deletion.Tables, tb) {
			continue
		}
		if _, ok := vacuumExempt[tb]; ok {
			continue
		}
		t.Errorf("table %s (columns %v) can name an account but relay admin vacuum does not rewrite it: add it to deletion.Tables, or to vacuumExempt with why", tb, cs)
	}
	for tb := range vacuumExempt {
		if _, ok := cols[tb]; !ok {
			t.Errorf("vacuumExempt lists %s, which the schema no longer has among the tables that can name an account", tb)
		}
	}
}
