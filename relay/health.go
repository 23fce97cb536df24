package relay

import (
	"context"
	"errors"
	"net/http"
	"time"

	"relay/migrations"
)

// The probes of load balancers and orchestrators: alive, and ready for
// traffic (docs/operations.md).

// GET /healthz: the process is alive.
func (s *Server) healthz(w http.ResponseWriter, _ *http.Request, _ *checked) error {
	writeJSON(w, http.StatusOK, map[string]string{"status": "alive"})
	return nil
}

// GET /readyz: the instance is not shutting down, and the database answers
// and holds every migration this relay knows, so the instance can take
// traffic. While it drains, a load balancer learns to send new requests
// elsewhere.
func (s *Server) readyz(w http.ResponseWriter, r *http.Request, _ *checked) error {
	select {
	case <-s.closing:
		return codeNotReady.errorf("this instance is shutting down")
	default:
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	v, err := migrations.Version(ctx, s.pool)
	if err != nil {
		return codeNotReady.errorf("the database does not answer: %v", unwrapAll(err))
	}
	if v < migrations.Latest() {
		return codeNotReady.errorf("the database is at migration %d of %d; run relay migrate", v, migrations.Latest())
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "migration": v})
	return nil
}

// unwrapAll returns the innermost error, short and without SQL.
func unwrapAll(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
}
