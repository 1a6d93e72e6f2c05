package quantum

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// maxIdempotencyKeyLen bounds an idempotency key, which the job stores.
const maxIdempotencyKeyLen = 255

// idempotencyField names the key in errors: the HTTP header that carries
// it, the name clients know.
const idempotencyField = "Idempotency-Key"

func checkIdempotencyKey(key string) error {
	if len(key) > maxIdempotencyKeyLen {
		return qtype.Invalid(idempotencyField, "must be at most %d characters", maxIdempotencyKeyLen)
	}
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x21 || c > 0x7e {
			return qtype.Invalid(idempotencyField, "must be visible ASCII characters (no spaces)")
		}
	}
	return nil
}

// requestHash identifies a create's request by what the job is made of,
// as JSON carries it: a retry that spells the same request differently
// (another field order, 3 for 3.0) is the same request.
func requestHash(req JobRequest) (string, error) {
	tags, err := jsonValues(req.Tags)
	if err != nil {
		return "", err
	}
	opts, err := jsonValues(req.RuntimeOptions)
	if err != nil {
		return "", err
	}
	data, err := json.Marshal(struct {
		Program        *Program       `json:"program"`
		Batch          []Program      `json:"batch,omitempty"`
		Shots          int            `json:"shots"`
		DeviceQRN      string         `json:"deviceQrn"`
		Name           string         `json:"name"`
		Tags           map[string]any `json:"tags"`
		RuntimeOptions map[string]any `json:"runtimeOptions"`
	}{req.Program, req.Batch, req.Shots, req.DeviceQRN, req.Name, tags, opts})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:]), nil
}

// replayed returns the job that an earlier create with the same key made
// for the user within IdempotencyWindow, as it is now; nil if there is
// none. The same key with another request is a VALIDATION_ERROR: it is a
// mistake of the client's, and answering the other job would hide it.
func (s *Service) replayed(ctx context.Context, u User, key, hash string) (*Job, error) {
	since := s.now().UTC().Add(-storage.IdempotencyWindow)
	rec, err := s.store.JobByIdempotencyKey(ctx, u.ID, key, since)
	switch {
	case errors.Is(err, storage.ErrJobNotFound):
		return nil, nil
	case err != nil:
		return nil, s.internal(ctx, err, "look up the idempotency key")
	case rec.RequestHash != hash:
		return nil, qtype.Invalid(idempotencyField, "was used for another request (job %s) in the last %v; send a new key with a new request",
			rec.JobQRN, storage.IdempotencyWindow)
	}
	return s.withQueuePosition(ctx, shown(rec))
}
