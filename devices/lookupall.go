package devices

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// NameResult is what LookupAll found for one username: its account, or
// Err, ErrAccountDeleted for a name held after its account was deleted
// and ErrUnknownAccount for any other.
type NameResult struct {
	Account Account
	Err     error
}

// LookupAll is Lookup for several usernames at once, for an envelope to a
// list of accounts (ADR 0106): results[i] is what names[i] names. The
// names the cache does not hold take one query, and those found in no
// account one more, whatever their number.
func (s *Store) LookupAll(ctx context.Context, names []string) ([]NameResult, error) {
	out := make([]NameResult, len(names))
	var missing []string
	at := map[string]int{} // index of each name not answered from memory
	for i, name := range names {
		if s.cache != nil {
			if acc, ok := s.cache.getName(name, s.now()); ok {
				out[i].Account = acc
				continue
			}
		}
		at[name] = i
		missing = append(missing, name)
	}
	if len(missing) == 0 {
		return out, nil
	}
	var epoch uint64
	var cached bool
	if s.cache != nil {
		epoch, cached = s.cache.begin()
	}
	now := s.now()
	rows, err := s.pool.Query(ctx, `SELECT id, username, public_key FROM accounts WHERE username = ANY ($1)`, missing)
	if err != nil {
		return nil, fmt.Errorf("looking up accounts: %w", err)
	}
	var acc Account
	_, err = pgx.ForEachRow(rows, []any{&acc.ID, &acc.Username, &acc.PublicKey}, func() error {
		i, ok := at[acc.Username]
		if !ok {
			return errors.New("an account of a name not asked for")
		}
		out[i].Account = acc
		delete(at, acc.Username)
		if cached {
			s.cache.storeName(epoch, acc, now)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("looking up accounts: %w", err)
	}
	if len(at) == 0 {
		return out, nil
	}
	// What is left names no account: held after a deletion, or unknown.
	hashes := make([][]byte, 0, len(at))
	byHash := make(map[string]int, len(at))
	for name, i := range at {
		h := nameHash(name)
		hashes = append(hashes, h)
		byHash[string(h)] = i
		out[i].Err = ErrUnknownAccount
	}
	rows, err = s.pool.Query(ctx, `SELECT name_sha256 FROM held_names WHERE name_sha256 = ANY ($1) AND held_until > $2`, hashes, s.now())
	if err != nil {
		return nil, fmt.Errorf("checking held names: %w", err)
	}
	var h []byte
	_, err = pgx.ForEachRow(rows, []any{&h}, func() error {
		if i, ok := byHash[string(h)]; ok {
			out[i].Err = ErrAccountDeleted
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("checking held names: %w", err)
	}
	return out, nil
}
