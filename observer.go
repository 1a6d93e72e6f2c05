package quantum

import (
	"context"

	"github.com/qjobs/quantum/qtype"
)

// WithObserver reports the Service's measurements to o (default: none).
func WithObserver(o Observer) Option {
	return func(s *Service) {
		if o != nil {
			s.obs = o
		}
	}
}

// Stats is a snapshot of the Service for gauges.
type Stats struct {
	// MemoryInUse is the memory the jobs running here hold of the budget,
	// MemoryBudget the budget (WithMemoryBudget).
	MemoryInUse, MemoryBudget int64
	// Workers is how many jobs this Service runs at most at once.
	Workers int
	// Running counts the jobs running on this Service, by device.
	Running map[string]int
	// Queued counts the QUEUED jobs in the store, by registered device.
	Queued map[string]int
}

// Stats reads the Service's state: its own, and the queue depth of each
// device from the store.
func (s *Service) Stats(ctx context.Context) (Stats, error) {
	st := Stats{MemoryInUse: s.runner.MemoryUsed(), MemoryBudget: s.budget, Workers: s.workers,
		Running: map[string]int{}, Queued: map[string]int{}}
	for _, qrn := range s.runner.RunningQRNs() {
		if dev, ok := qtype.JobDevice(qrn); ok {
			st.Running[dev]++
		}
	}
	for _, d := range s.devices.All() {
		n, err := s.store.CountQueued(ctx, d.QRN)
		if err != nil {
			return st, err
		}
		st.Queued[d.QRN] = n
	}
	return st, nil
}
