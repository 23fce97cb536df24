package devices

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestLookupAll: each name of a list is answered as Lookup answers it
// alone, in the list's order: an account, a name held after a deletion,
// an unknown name, one held once whose hold has passed; names found are
// kept in the name cache, names not found never are.
func TestLookupAll(t *testing.T) {
	s, _, _ := cachedStore(t)
	ctx := context.Background()
	if _, err := s.CreateAccount(ctx, "bob", "correct horse battery", []byte{4}, nil); err != nil {
		t.Fatal(err)
	}
	for name, until := range map[string]time.Time{"carol": time.Now().Add(time.Hour), "dave": time.Now().Add(-time.Hour)} {
		if _, err := s.pool.Exec(ctx, `INSERT INTO held_names (name_sha256, held_until) VALUES ($1, $2)`, nameHash(name), until); err != nil {
			t.Fatal(err)
		}
	}
	names := []string{"nobody", "bob", "carol", "alice", "dave"}
	for round := range 2 {
		got, err := s.LookupAll(ctx, names)
		if err != nil {
			t.Fatal(err)
		}
		for i, name := range names {
			want, werr := s.Lookup(ctx, name)
			if !errors.Is(got[i].Err, werr) || (werr == nil) != (got[i].Err == nil) || got[i].Account.ID != want.ID || got[i].Account.Username != want.Username {
				t.Errorf("round %d, %s: got %+v, want %+v, %v", round, name, got[i], want, werr)
			}
		}
	}
	// bob and alice: from memory in the second round, and in each
	// round's Lookup after the first; never the names not found.
	if hits := s.NameCacheHits(); hits != 6 {
		t.Fatalf("%d names answered from memory, want 6", hits)
	}
}
