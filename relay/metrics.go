package relay

import (
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the relay's Prometheus series (docs/operations.md). Labels
// never carry a username, a device id or an envelope id. They are served
// by MetricsHandler, never on the public listener (ADR 0031), and a scrape
// runs no query: what needs the database is counted by refreshGauges.
type metrics struct {
	reg *prometheus.Registry

	accepted   prometheus.Counter       // envelopes stored
	duplicates prometheus.Counter       // resends answered with the original ts
	rejected   *prometheus.CounterVec   // refused sends, by error code
	delivery   prometheus.Histogram     // acceptance to write on a live stream
	ack        prometheus.Histogram     // duration of POST /api/ack
	groups     prometheus.Histogram     // envelopes per group commit
	ackGroups  prometheus.Histogram     // ACKs per grouped delete
	requests   *prometheus.CounterVec   // HTTP answers by status class
	latency    *prometheus.HistogramVec // API requests by route, streams aside

	queueDepth atomic.Int64 // envelopes queued, at the last refresh; -1: not counted
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		accepted: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "relay_envelopes_accepted_total", Help: "Envelopes stored and answered 202.",
		}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "relay_envelopes_duplicate_total", Help: "Resends of an accepted envelope, answered 202 with nothing queued.",
		}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relay_envelopes_rejected_total", Help: "Refused POST /api/messages, by error code.",
		}, []string{"reason"}),
		delivery: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "relay_delivery_latency_seconds",
			Help:    "Time from an envelope's acceptance to its write on a live stream (clocks of different instances may differ slightly).",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}),
		ack: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "relay_ack_duration_seconds", Help: "Time to handle POST /api/ack.",
			Buckets: prometheus.DefBuckets,
		}),
		groups: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "relay_accept_group_size", Help: "Envelopes committed together in one transaction (group commit).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64},
		}),
		ackGroups: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "relay_ack_group_size", Help: "ACKs run together in one statement (ACK grouping).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128},
		}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "relay_http_responses_total", Help: "HTTP answers, by status class (2xx, 4xx, 5xx).",
		}, []string{"class"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "relay_http_request_duration_seconds",
			Help:    "Time to answer an API request, by route (\"POST /api/messages\"); the event stream, which lasts for hours, is not counted.",
			Buckets: prometheus.DefBuckets,
		}, []string{"route"}),
	}
	m.queueDepth.Store(-1)
	m.reg.MustRegister(m.accepted, m.duplicates, m.rejected, m.delivery, m.ack, m.groups, m.ackGroups, m.requests, m.latency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "relay_streams_open", Help: "Event streams open on this instance."},
			func() float64 { return float64(s.hub.Streams()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "relay_queue_depth", Help: "Envelopes queued for all devices, counted every 15 s (-1 before the first count and when the database did not answer)."},
			func() float64 { return float64(m.queueDepth.Load()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_accept_group_failures_total", Help: "Group commits that failed as a whole; their envelopes were then accepted one by one."},
			func() float64 { return float64(s.committer.Failed()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_ack_group_failures_total", Help: "Grouped ACKs that failed as a whole; their ACKs were then run one by one."},
			func() float64 { return float64(s.acker.Failed()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_password_hashes_total", Help: "argon2id computations: one per registration and per login that reaches the password check, known username or not."},
			func() float64 { return float64(s.accounts.PasswordHashes()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_session_cache_hits_total", Help: "Session and device checks answered from memory (ADR 0072)."},
			func() float64 { h, _ := s.accounts.CacheStats(); return float64(h) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_account_cache_hits_total", Help: "Username lookups (sends and the key directory) answered from memory (ADR 0080)."},
			func() float64 { return float64(s.accounts.NameCacheHits()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_session_cache_forgotten_total", Help: "Accounts whose cached sessions were dropped after a change, here or on another instance."},
			func() float64 { _, f := s.accounts.CacheStats(); return float64(f) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_notify_received_total", Help: "Notifications received from other instances."},
			func() float64 { return float64(s.hub.NotifyReceived()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_notify_dropped_total", Help: "Wake-ups not sent to other instances because the queue was full (the catch-up check delivers them)."},
			func() float64 { return float64(s.hub.NotifyDropped()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_push_sent_total", Help: "Web Push signals the push services accepted."},
			func() float64 { return float64(s.pusher.Stats().Sent) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_push_failed_total", Help: "Web Push signals given up: refused, subscription gone (404, 410), endpoint not public, or retried out."},
			func() float64 { return float64(s.pusher.Stats().Failed) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_push_dropped_total", Help: "Web Push signals dropped because too many devices were waiting, or the database did not answer; the sweep pushes their devices."},
			func() float64 { return float64(s.pusher.Stats().Dropped) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_push_swept_total", Help: "Web Push signals claimed by the sweep of the database rather than right after the accept: lost by a crash, a restart or a full queue, or held back by the interval (ADR 0087)."},
			func() float64 { return float64(s.pusher.Stats().Swept) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "relay_push_sweeps_total", Help: "Sweeps of the database for devices due a Web Push signal."},
			func() float64 { return float64(s.pusher.Stats().Sweeps) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "relay_db_pool_acquired_conns", Help: "Database connections in use."},
			func() float64 { return float64(s.pool.Stat().AcquiredConns()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "relay_db_pool_total_conns", Help: "Database connections open."},
			func() float64 { return float64(s.pool.Stat().TotalConns()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "relay_db_pool_max_conns", Help: "Database connections allowed."},
			func() float64 { return float64(s.pool.Stat().MaxConns()) }),
	)
	return m
}

// MetricsHandler serves the relay's Prometheus metrics. Serve it on a
// listener of its own, never the public one: the counters time every send.
func (s *Server) MetricsHandler() http.Handler {
	return promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{})
}

// gaugeRefresh is how often refreshGauges counts the queue: as often as a
// usual Prometheus scrape, without a query per scrape.
const gaugeRefresh = 15 * time.Second

// refreshGauges counts what the gauges show from the database, now and
// every gaugeRefresh until ctx ends.
func (s *Server) refreshGauges(ctx context.Context) {
	t := time.NewTicker(gaugeRefresh)
	defer t.Stop()
	for {
		s.countQueue(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// countQueue sets relay_queue_depth, or -1 when the database does not
// answer within a few seconds.
func (s *Server) countQueue(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var n int64
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM queue").Scan(&n); err != nil {
		n = -1
	}
	s.metrics.queueDepth.Store(n)
}
