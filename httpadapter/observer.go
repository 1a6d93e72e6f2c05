package httpadapter

import "time"

// Observer receives the handler's measurements, for metrics (package
// metrics adapts them to Prometheus). Its methods must be quick.
type Observer interface {
	// Request: a request to route (the pattern it matched, "unmatched"
	// for none) was answered status after took. An event stream is
	// reported when it ends.
	Request(route string, status int, took time.Duration)
	// Streams: an event stream opened (+1) or ended (-1).
	Streams(delta int)
}

// WithObserver reports every request and every event stream to o.
func WithObserver(o Observer) Option {
	return func(h *handler) {
		if o != nil {
			h.obs = o
		}
	}
}

type nopObserver struct{}

func (nopObserver) Request(string, int, time.Duration) {}
func (nopObserver) Streams(int)                        {}
