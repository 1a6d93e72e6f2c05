package quantum

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/qjobs/quantum/internal/gate"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

func errClosing() *Error {
	return &Error{Code: EBUSY, Message: "the service is shutting down", RetryAfter: gate.BusyRetry}
}

// ownJob loads a job the user may touch: VALIDATION_ERROR for a malformed
// QRN, NOT_FOUND for no such job, FORBIDDEN for another user's.
func (s *Service) ownJob(ctx context.Context, u User, qrn string) (*storage.JobRecord, error) {
	if err := qtype.CheckJobQRN(qrn); err != nil {
		return nil, err
	}
	j, err := s.store.GetJob(ctx, qrn)
	if errors.Is(err, storage.ErrJobNotFound) {
		return nil, qtype.Errorf(ENOTFOUND, "job %s not found", qrn)
	}
	if err != nil {
		return nil, s.internal(ctx, err, "get job")
	}
	if j.Owner != u.ID {
		return nil, qtype.Errorf(EFORBIDDEN, "no permission to access job %s", qrn)
	}
	return j, nil
}

// GetJob returns one of the user's jobs, with its live queue position.
func (s *Service) GetJob(ctx context.Context, u User, qrn string) (*Job, error) {
	j, err := s.ownJob(ctx, u, qrn)
	if err != nil {
		return nil, err
	}
	return s.withQueuePosition(ctx, shown(j))
}

// shown is the user's own copy of a record (which the store may share,
// read-only): its metadata names the node that claimed it last, so that
// an operator can follow it across the nodes that share a store.
func shown(r *storage.JobRecord) *Job {
	j := r.Job.Clone()
	if j.NumCircuits == 0 {
		j.NumCircuits = 1 // stored before batches existed
	}
	if r.Node != "" {
		j.Metadata["node"] = r.Node
	}
	return j
}

func (s *Service) withQueuePosition(ctx context.Context, j *Job) (*Job, error) {
	j.QueuePosition = nil
	if j.Status == StatusQueued {
		pos, err := s.store.QueuePosition(ctx, j.JobQRN)
		if err != nil {
			return nil, s.internal(ctx, err, "queue position")
		}
		if pos > 0 {
			j.QueuePosition = &pos
		}
	}
	return j, nil
}

// GetJobResult returns the counts, cost and times of a COMPLETED job;
// RESULT_NOT_READY for a job in any other status.
func (s *Service) GetJobResult(ctx context.Context, u User, qrn string) (*JobResult, error) {
	j, err := s.ownJob(ctx, u, qrn)
	if err != nil {
		return nil, err
	}
	if j.Status != StatusCompleted {
		return nil, qtype.Errorf(ERESULTNOTREADY, "the result of job %s is not available: the job is %s", qrn, j.Status)
	}
	stored, err := s.store.GetResult(ctx, qrn)
	if err != nil {
		return nil, s.internal(ctx, err, "get result")
	}
	// The user's own copies: the store's are read-only.
	res := &JobResult{Status: j.Status, Cost: j.Cost, TimeStamps: j.TimeStamps}
	res.TimeStamps.EndedAt = qtype.ClonePtr(j.TimeStamps.EndedAt)
	if stored.Circuits == nil {
		res.ResultData.MeasurementCounts = maps.Clone(stored.Counts)
		if stored.Data != nil {
			res.ResultData.Data = qtype.CloneMap(stored.Data)
		}
		return res, nil
	}
	stored = stored.Clone()
	res.Results = make([]CircuitResult, len(stored.Circuits))
	for i, o := range stored.Circuits {
		ended := o.EndedAt
		res.Results[i] = CircuitResult{
			Status:     StatusCompleted,
			Cost:       o.Cost,
			TimeStamps: qtype.TimeStamps{CreatedAt: j.TimeStamps.CreatedAt, EndedAt: &ended, ExecutionDuration: o.ExecutionMs},
			ResultData: ResultData{MeasurementCounts: o.Counts},
		}
	}
	return res, nil
}

// GetJobProgram returns the program as it was submitted: a batch's
// programs in JobProgram.Batch.
func (s *Service) GetJobProgram(ctx context.Context, u User, qrn string) (*JobProgram, error) {
	if _, err := s.ownJob(ctx, u, qrn); err != nil {
		return nil, err
	}
	p, err := s.store.GetProgram(ctx, qrn)
	if err != nil {
		return nil, s.internal(ctx, err, "get program")
	}
	jp, err := qtype.DecodeProgram(p)
	if err != nil {
		return nil, s.internal(ctx, err, "get program")
	}
	return jp, nil
}

// CancelJob asks an unfinished job to stop and returns it. A job that has
// not started is CANCELLED at once; a running one is CANCELLING until its
// simulation has stopped, then CANCELLED. Cancelling a CANCELLING job
// succeeds again; a finished job gives INVALID_JOB_STATE, and a device whose
// backend cannot cancel CANCEL_NOT_SUPPORTED.
func (s *Service) CancelJob(ctx context.Context, u User, qrn string) (*Job, error) {
	for {
		j, err := s.ownJob(ctx, u, qrn)
		if err != nil {
			return nil, err
		}
		switch {
		case j.Status.IsTerminal():
			return nil, qtype.Errorf(EINVALIDJOBSTATE, "job %s is %s and cannot be cancelled", qrn, j.Status)
		case j.Status == StatusCancelling:
			return shown(j), nil
		}
		if b, ok := s.devices.BackendOf(j.DeviceQRN); ok && !b.Cancellable() {
			return nil, qtype.Errorf(ECANCELNOTSUPPORTED, "device %s does not support cancelling jobs", j.DeviceQRN)
		}
		now := s.now().UTC()
		from := j.Status
		j, err = s.store.UpdateJob(ctx, qrn, from, func(j *storage.JobRecord) {
			j.Status = StatusCancelling
			j.UpdatedAt = now
		}, nil)
		if errors.Is(err, storage.ErrStatusChanged) {
			continue // it moved on meanwhile: look again
		}
		if err != nil {
			return nil, s.internal(ctx, err, "cancel job")
		}
		s.runner.Cancel(from, qrn)
		return shown(j), nil
	}
}

// DeleteJob deletes a finished job with its program and result. An
// unfinished job gives JOB_NOT_FINAL and is kept.
func (s *Service) DeleteJob(ctx context.Context, u User, qrn string) error {
	j, err := s.ownJob(ctx, u, qrn)
	if err != nil {
		return err
	}
	if !j.Status.IsTerminal() {
		return qtype.Errorf(EJOBNOTFINAL, "job %s is %s; only finished jobs can be deleted (cancel it first)", qrn, j.Status)
	}
	err = s.store.DeleteJob(ctx, qrn, j.Status)
	switch {
	case errors.Is(err, storage.ErrJobNotFound):
		return qtype.Errorf(ENOTFOUND, "job %s not found", qrn)
	case err != nil:
		return s.internal(ctx, err, "delete job")
	}
	return nil
}

// DeleteJobs deletes several jobs and reports each QRN as deleted or
// failed, with a reason. Between 1 and 100 QRNs.
func (s *Service) DeleteJobs(ctx context.Context, u User, qrns []string) (*DeleteJobsResult, error) {
	if len(qrns) < 1 || len(qrns) > 100 {
		return nil, qtype.Invalid("qrns", "must hold 1 to 100 job QRNs, got %d", len(qrns))
	}
	res := &DeleteJobsResult{SuccessfulIDs: []string{}, FailedIDs: map[string]string{}}
	for _, qrn := range qrns {
		err := s.DeleteJob(ctx, u, qrn)
		switch ErrorCode(err) {
		case "":
			res.SuccessfulIDs = append(res.SuccessfulIDs, qrn)
		case ENOTFOUND:
			res.FailedIDs[qrn] = ReasonNotFound
		case EFORBIDDEN:
			res.FailedIDs[qrn] = ReasonForbidden
		case EJOBNOTFINAL:
			res.FailedIDs[qrn] = ReasonNotFinal
		case EVALIDATION:
			res.FailedIDs[qrn] = ReasonInvalidQRN
		default:
			res.FailedIDs[qrn] = ReasonInternalFail
		}
	}
	return res, nil
}

// ListJobs returns a page of the user's jobs, newest first.
func (s *Service) ListJobs(ctx context.Context, u User, q JobQuery) (*JobPage, error) {
	var v qtype.Validation
	page, limit := pageAndLimit(&v, q.Page, q.Limit, 50)
	f := storage.JobFilter{Owner: u.ID, Provider: q.Provider, Search: q.Search, Offset: pageOffset(page, limit), Limit: limit}
	checkText(&v, "provider", q.Provider)
	switch {
	case q.Vendor == "" || q.Vendor == "all":
	case slices.Contains(qtype.Vendors, q.Vendor):
		f.Vendor = q.Vendor
	default:
		v.Add("vendor", "must be all or one of %s", strings.Join(qtype.Vendors, ", "))
	}
	switch {
	case q.Status != "":
		if !validStatus(q.Status) {
			v.Add("status", "must be one of %s", joinStatuses(qtype.JobStatuses()))
		}
		f.Statuses = []JobStatus{q.Status}
	case q.StatusGroup == "" || q.StatusGroup == "all":
	case q.StatusGroup == "pending" || q.StatusGroup == "returned":
		f.Statuses = qtype.StatusGroups()[q.StatusGroup]
	default:
		v.Add("statusGroup", "must be all, pending or returned")
	}
	checkSearch(&v, q.Search)
	if len(q.Tags) > 0 {
		f.Tags = map[string]any{}
		for _, k := range sortedKeys(q.Tags) {
			tv, ok := qtype.TagValue(q.Tags[k])
			str, isStr := tv.(string)
			switch {
			case !validText(k) || isStr && !validText(str):
				v.Add("tags", textRule)
			case !ok:
				v.Add("tags", "value of %q must be a string, an integer or a boolean", k)
			}
			f.Tags[k] = tv
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	recs, total, err := s.store.ListJobs(ctx, f)
	if errors.Is(err, storage.ErrScanLimit) {
		field := "status"
		if q.Search != "" {
			field = "search"
		}
		return nil, qtype.Invalid(field, "%s", storeDetail(err))
	}
	if err != nil {
		return nil, s.internal(ctx, err, "list jobs")
	}
	jobs := make([]*Job, len(recs))
	for i, r := range recs {
		if jobs[i], err = s.withQueuePosition(ctx, shown(r)); err != nil {
			return nil, err
		}
	}
	return &JobPage{Jobs: jobs, Pagination: newPagination(page, limit, total)}, nil
}

func joinStatuses(ss []JobStatus) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = string(s)
	}
	return strings.Join(parts, ", ")
}

// EstimateCost returns what a job of the given number of shots on the
// device is expected to cost, in credits.
func (s *Service) EstimateCost(ctx context.Context, u User, deviceQRN string, shots int) (float64, error) {
	var v qtype.Validation
	d, ok := s.devices.Get(deviceQRN)
	switch {
	case deviceQRN == "":
		v.Add("deviceQrn", "is required")
	case !ok || !d.VisibleTo(u.ID):
		v.Add("deviceQrn", "no device %q", deviceQRN)
	}
	if shots < 1 {
		v.Add("shots", "must be at least 1")
	} else if ok && shots > d.ShotLimit() {
		v.Add("shots", "must be at most %d on %s", d.ShotLimit(), d.QRN)
	} else if ok && shots < d.MinShots {
		v.Add("shots", "must be at least %d on %s", d.MinShots, d.QRN)
	}
	if err := v.Err(); err != nil {
		return 0, err
	}
	return d.EstimatedCost(shots), nil
}
