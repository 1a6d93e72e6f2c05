package quantum

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/qjobs/quantum/qtype"
)

// API is the job service as one user sees it: a method for every endpoint
// of /api/v1, and Wait. Service.For gives the in-process implementation;
// package client gives one over HTTP. Both return the same values (jobs
// and devices as the API shows them: times to the millisecond, numbers in
// maps as int64 or float64) and the same *Error codes, so that code
// written against API runs unchanged in process or against a remote
// server.
type API interface {
	// VerifyUser returns the user the API acts for.
	VerifyUser(ctx context.Context) (User, error)
	CreateJob(ctx context.Context, req JobRequest) (*Job, error)
	GetJob(ctx context.Context, qrn string) (*Job, error)
	GetJobResult(ctx context.Context, qrn string) (*JobResult, error)
	// GetJobProgram returns the job's program as submitted: a batch's
	// programs are in JobProgram.Batch.
	GetJobProgram(ctx context.Context, qrn string) (*JobProgram, error)
	// CancelJob asks an unfinished job to stop; Wait (or GetJob) shows
	// when it has.
	CancelJob(ctx context.Context, qrn string) error
	DeleteJob(ctx context.Context, qrn string) error
	DeleteJobs(ctx context.Context, qrns []string) (*DeleteJobsResult, error)
	ListJobs(ctx context.Context, q JobQuery) (*JobPage, error)
	ListDevices(ctx context.Context, q DeviceQuery) (*DevicePage, error)
	GetDevice(ctx context.Context, qrn string) (*Device, error)
	// GetDeviceCalibrations returns a QPU's calibration document
	// (NOT_FOUND for a device without one, as every simulator).
	GetDeviceCalibrations(ctx context.Context, qrn string) (*qtype.CalibrationDocument, error)
	EstimateCost(ctx context.Context, deviceQRN string, shots int) (float64, error)
	// CreditsBalance answers the user's credits (see WithCredits).
	// organizationID "" means the user's own organization; another is
	// NOT_FOUND.
	CreditsBalance(ctx context.Context, organizationID string) (*CreditsBalance, error)
	// Wait returns the job once it is COMPLETED, FAILED or CANCELLED,
	// without polling: it follows the job's changes as they happen. It
	// answers REQUEST_CANCELLED if ctx ends first, and SERVICE_BUSY if the
	// Service closes first.
	Wait(ctx context.Context, qrn string) (*Job, error)
}

// For returns the API acting for u, in process.
func (s *Service) For(u User) API { return &userAPI{s: s, u: u} }

type userAPI struct {
	s *Service
	u User
}

var _ API = (*userAPI)(nil)

func (a *userAPI) VerifyUser(ctx context.Context) (User, error) { return a.u, nil }

func (a *userAPI) CreateJob(ctx context.Context, req JobRequest) (*Job, error) {
	return shownJob(a.s.CreateJob(ctx, a.u, req))
}

func (a *userAPI) GetJob(ctx context.Context, qrn string) (*Job, error) {
	return shownJob(a.s.GetJob(ctx, a.u, qrn))
}

func (a *userAPI) GetJobResult(ctx context.Context, qrn string) (*JobResult, error) {
	res, err := a.s.GetJobResult(ctx, a.u, qrn)
	if err != nil {
		return nil, err
	}
	res.TimeStamps = shownStamps(res.TimeStamps)
	if res.Results != nil {
		for i := range res.Results {
			c := &res.Results[i]
			c.TimeStamps = shownStamps(c.TimeStamps)
			if c.ResultData.MeasurementCounts == nil {
				c.ResultData.MeasurementCounts = map[string]int{}
			}
		}
		return res, nil
	}
	if res.ResultData.MeasurementCounts == nil && res.ResultData.Data == nil {
		res.ResultData.MeasurementCounts = map[string]int{} // an annealer's data comes without counts
	}
	return res, nil
}

func (a *userAPI) GetJobProgram(ctx context.Context, qrn string) (*JobProgram, error) {
	return a.s.GetJobProgram(ctx, a.u, qrn)
}

func (a *userAPI) CancelJob(ctx context.Context, qrn string) error {
	_, err := a.s.CancelJob(ctx, a.u, qrn)
	return err
}

func (a *userAPI) DeleteJob(ctx context.Context, qrn string) error {
	return a.s.DeleteJob(ctx, a.u, qrn)
}

func (a *userAPI) DeleteJobs(ctx context.Context, qrns []string) (*DeleteJobsResult, error) {
	return a.s.DeleteJobs(ctx, a.u, qrns)
}

func (a *userAPI) ListJobs(ctx context.Context, q JobQuery) (*JobPage, error) {
	p, err := a.s.ListJobs(ctx, a.u, q)
	if err != nil {
		return nil, err
	}
	if p.Jobs == nil {
		p.Jobs = []*Job{}
	}
	for i, j := range p.Jobs {
		if p.Jobs[i], err = shownJob(j, nil); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (a *userAPI) ListDevices(ctx context.Context, q DeviceQuery) (*DevicePage, error) {
	p, err := a.s.ListDevices(ctx, a.u, q)
	if err != nil {
		return nil, err
	}
	if p.Devices == nil {
		p.Devices = []*Device{}
	}
	for i, d := range p.Devices {
		if p.Devices[i], err = shownDevice(d); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func (a *userAPI) GetDevice(ctx context.Context, qrn string) (*Device, error) {
	d, err := a.s.GetDevice(ctx, a.u, qrn)
	if err != nil {
		return nil, err
	}
	return shownDevice(d)
}

func (a *userAPI) GetDeviceCalibrations(ctx context.Context, qrn string) (*qtype.CalibrationDocument, error) {
	d, err := a.s.GetDeviceCalibrations(ctx, a.u, qrn)
	if err != nil {
		return nil, err
	}
	return asDecoded(d)
}

func (a *userAPI) EstimateCost(ctx context.Context, deviceQRN string, shots int) (float64, error) {
	return a.s.EstimateCost(ctx, a.u, deviceQRN, shots)
}

func (a *userAPI) CreditsBalance(ctx context.Context, organizationID string) (*CreditsBalance, error) {
	return a.s.CreditsBalance(ctx, a.u, organizationID)
}

func (a *userAPI) Wait(ctx context.Context, qrn string) (*Job, error) {
	return shownJob(a.s.Wait(ctx, a.u, qrn))
}

// shownJob is the job as the API shows it: what a client decodes from
// the job's JSON (times to the millisecond in UTC; numbers in its maps as
// int64 when integral, else float64), so that a job read in process
// equals the same job read over HTTP.
func shownJob(j *Job, err error) (*Job, error) {
	if err != nil {
		return nil, err
	}
	c, err := asDecoded(j)
	if err != nil {
		return nil, err
	}
	for _, m := range []map[string]any{c.Tags, c.RuntimeOptions, c.Metadata} {
		qtype.FromJSONNumbers(m)
	}
	return c, nil
}

// shownStamps are t as the API shows them: UTC, to the millisecond.
func shownStamps(t qtype.TimeStamps) qtype.TimeStamps {
	c := qtype.TimeStamps{CreatedAt: t.CreatedAt.UTC().Truncate(time.Millisecond), ExecutionDuration: t.ExecutionDuration}
	if t.EndedAt != nil {
		e := t.EndedAt.UTC().Truncate(time.Millisecond)
		c.EndedAt = &e
	}
	return c
}

// shownDevice is the device as the API shows it: without the fields that
// never go on the wire.
func shownDevice(d *Device) (*Device, error) { return asDecoded(d) }

// asDecoded is v written as JSON and read back as a client reads it
// (json.Number for numbers in maps, for FromJSONNumbers).
func asDecoded[T any](v *T) (*T, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, qtype.Errorf(EINTERNAL, "internal error") // a value the Service made: a bug, not the caller's
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out T
	if err := dec.Decode(&out); err != nil {
		return nil, qtype.Errorf(EINTERNAL, "internal error")
	}
	return &out, nil
}
