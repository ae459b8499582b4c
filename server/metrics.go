package server

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/memgate/memgate"
	"github.com/memgate/memgate/gate"
)

// metrics are the server's Prometheus metrics, in a registry of its own so
// that two servers in one process do not collide.
type metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	latency   *prometheus.HistogramVec
	decided   *prometheus.CounterVec
	gateScore *prometheus.HistogramVec
}

// queueLen is implemented by stores with an audit writer queue
// (store/sqlite).
type queueLen interface{ AuditQueue() int }

// memoryBacklog is implemented by stores that index the audit trail by
// memory after the fact (store/sqlite).
type memoryBacklog interface{ AuditMemoryBacklog() int64 }

// watchStore adds the gauges of what the store can report.
func (m *metrics) watchStore(st any) {
	if q, ok := st.(queueLen); ok {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "memgate_audit_queue", Help: "Audit writes waiting for the store's audit writer.",
		}, func() float64 { return float64(q.AuditQueue()) }))
	}
	if b, ok := st.(memoryBacklog); ok {
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "memgate_audit_memory_index_backlog",
			Help: "Audit events the index of the trail by memory does not cover yet (reads by memory scan them).",
		}, func() float64 { return float64(b.AuditMemoryBacklog()) }))
	}
}

// indexLag reports, at each scrape, how far a persistent index lags the
// store (see memgate.Engine.IndexStatus); nothing for an index that every
// process builds from the store.
type indexLag struct {
	eng                                *memgate.Engine
	pending, oldest, applied, failures *prometheus.Desc
}

func newIndexLag(eng *memgate.Engine) *indexLag {
	return &indexLag{eng: eng,
		pending:  prometheus.NewDesc("memgate_index_outbox_pending", "Store changes the persistent index has yet to apply (its outbox).", nil, nil),
		oldest:   prometheus.NewDesc("memgate_index_lag_seconds", "How long the oldest change the persistent index has yet to apply has waited.", nil, nil),
		applied:  prometheus.NewDesc("memgate_index_applied_total", "Store changes this server applied to the persistent index.", nil, nil),
		failures: prometheus.NewDesc("memgate_index_apply_failures_total", "Failed attempts of this server to apply store changes to the persistent index.", nil, nil),
	}
}

func (c *indexLag) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.pending
	ch <- c.oldest
	ch <- c.applied
	ch <- c.failures
}

func (c *indexLag) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	st, err := c.eng.IndexStatus(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.pending, err)
		return
	}
	if !st.Following {
		return
	}
	ch <- prometheus.MustNewConstMetric(c.pending, prometheus.GaugeValue, float64(st.Pending))
	ch <- prometheus.MustNewConstMetric(c.oldest, prometheus.GaugeValue, st.Oldest.Seconds())
	ch <- prometheus.MustNewConstMetric(c.applied, prometheus.CounterValue, float64(st.Applied))
	ch <- prometheus.MustNewConstMetric(c.failures, prometheus.CounterValue, float64(st.Failures))
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "memgate_http_requests_total", Help: "HTTP requests by route and status.",
		}, []string{"route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "memgate_http_request_duration_seconds", Help: "HTTP request latency by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route"}),
		decided: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "memgate_decisions_total", Help: "Admission decisions by decision, first reason and task bucket (intent×tool risk).",
		}, []string{"decision", "reason", "bucket"}),
		gateScore: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "memgate_gate_fit", Help: "The gate's fit score of the candidates it scored, by task bucket.",
			Buckets: []float64{0, .1, .2, .3, .4, .5, .6, .7, .8, .9, 1},
		}, []string{"bucket"}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.decided, m.gateScore,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *metrics) observe(route string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// decisions counts an admission's decisions.
func (m *metrics) decisions(adm *memgate.Admission) {
	bucket := gate.Bucket(&adm.Context)
	for _, it := range adm.Items {
		reason := "none"
		if len(it.Reasons) > 0 {
			reason = string(it.Reasons[0])
		}
		m.decided.WithLabelValues(string(it.Decision), reason, bucket).Inc()
		if it.Scores.GateScored {
			m.gateScore.WithLabelValues(bucket).Observe(it.Scores.GateFit)
		}
	}
}
