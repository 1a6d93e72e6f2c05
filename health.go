package quantum

import (
	"context"
	"errors"
	"fmt"

	"github.com/qjobs/quantum/storage"
)

// readyProbe is a QRN no job has (it is not of the form): the store's
// answer for it, "not found", shows that the store answers.
const readyProbe = "readiness-probe"

// Ready reports whether the Service can do its work: it is not closing
// (its workers run), and its store answers a read within ctx. The error
// says what is wrong, for the operator's log; it is not for clients.
func (s *Service) Ready(ctx context.Context) error {
	if s.runner.IsClosed() {
		return errors.New("the service is closing")
	}
	if _, err := s.store.GetJob(ctx, readyProbe); err != nil && !errors.Is(err, storage.ErrJobNotFound) {
		return fmt.Errorf("the store does not answer: %w", err)
	}
	return nil
}
