package relay

import (
	"context"
	"net/http"
	"time"

	"relay/epoch"
)

// POST /api/ack: what a device has stored leaves its queue.

// POST /api/ack
func (s *Server) ack(w http.ResponseWriter, r *http.Request, in *checked) error {
	upTo, ep, err := parseAck(in.body)
	if err != nil {
		return err
	}
	start := time.Now()
	if ep != "" {
		if err := s.checkAckEpoch(r.Context(), ep); err != nil {
			return err
		}
	}
	if _, err := s.acker.Ack(r.Context(), in.device, upTo); err != nil {
		return err
	}
	s.metrics.ack.Observe(time.Since(start).Seconds())
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// checkAckEpoch refuses an ACK whose epoch is not the database's now (ADR
// 0090): its seq numbers were read in another history of the queue, where
// they may name rows the client never saw. The epoch is read fresh for
// every such ACK, so an ACK that crosses a failover or a restore deletes
// nothing; ACKs without an epoch skip the read.
func (s *Server) checkAckEpoch(ctx context.Context, ep string) error {
	p, err := epoch.Read(ctx, s.pool)
	if err != nil {
		return err
	}
	if cur := p.String(); cur != ep {
		ae := codeEpochChanged.errorf("this ACK's epoch is not the relay's epoch %s: the relay's history of this queue went back "+
			"(its database was restored or failed over), so nothing was deleted. Open the stream again, "+
			"recognise by envelope id what is already stored, and tell the user that messages sent meanwhile may be missing", cur)
		ae.extra = map[string]any{"epoch": cur}
		return ae
	}
	return nil
}
