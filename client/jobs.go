package client

import (
	"context"
	"encoding/json"
	"net/url"
	"strconv"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
)

// Every method that takes a QRN checks it before it goes into a URL path:
// a "QRN" like "statuses" or "events" would reach another route, and the
// Service's own check gives the same VALIDATION_ERROR.

func (c *Client) VerifyUser(ctx context.Context) (quantum.User, error) {
	var u quantum.User
	err := c.do(ctx, call{method: "GET", path: []string{"users", "verify"}, idempotent: true}, &u, nil)
	return u, err
}

func (c *Client) GetJob(ctx context.Context, qrn string) (*quantum.Job, error) {
	if err := qtype.CheckJobQRN(qrn); err != nil {
		return nil, err
	}
	var j quantum.Job
	if err := c.do(ctx, call{method: "GET", path: []string{"jobs", qrn}, idempotent: true}, &j, nil); err != nil {
		return nil, err
	}
	return &j, nil
}

func (c *Client) GetJobResult(ctx context.Context, qrn string) (*quantum.JobResult, error) {
	if err := qtype.CheckJobQRN(qrn); err != nil {
		return nil, err
	}
	var r quantum.JobResult
	k := call{method: "GET", path: []string{"jobs", qrn, "result"}, idempotent: true, limit: maxResult}
	if err := c.do(ctx, k, &r, nil); err != nil {
		return nil, err
	}
	for i := range r.Results {
		if r.Results[i].ResultData.MeasurementCounts == nil {
			r.Results[i].ResultData.MeasurementCounts = map[string]int{}
		}
	}
	if r.Results == nil && r.ResultData.MeasurementCounts == nil && r.ResultData.Data == nil {
		r.ResultData.MeasurementCounts = map[string]int{} // an annealer's data comes without counts
	}
	return &r, nil
}

func (c *Client) GetJobProgram(ctx context.Context, qrn string) (*quantum.JobProgram, error) {
	if err := qtype.CheckJobQRN(qrn); err != nil {
		return nil, err
	}
	var p quantum.JobProgram
	k := call{method: "GET", path: []string{"jobs", qrn, "program"}, idempotent: true, limit: maxResult}
	if err := c.do(ctx, k, &p, nil); err != nil {
		return nil, err
	}
	return &p, nil
}

// CancelJob asks the job to stop. Asking twice is harmless, so it is
// retried like a read.
func (c *Client) CancelJob(ctx context.Context, qrn string) error {
	if err := qtype.CheckJobQRN(qrn); err != nil {
		return err
	}
	return c.do(ctx, call{method: "POST", path: []string{"jobs", qrn, "cancel"}, idempotent: true}, nil, nil)
}

func (c *Client) DeleteJob(ctx context.Context, qrn string) error {
	if err := qtype.CheckJobQRN(qrn); err != nil {
		return err
	}
	return c.do(ctx, call{method: "DELETE", path: []string{"jobs", qrn}, idempotent: true}, nil, nil)
}

func (c *Client) DeleteJobs(ctx context.Context, qrns []string) (*quantum.DeleteJobsResult, error) {
	if qrns == nil {
		qrns = []string{}
	}
	list, err := json.Marshal(qrns)
	if err != nil {
		return nil, &quantum.Error{Code: quantum.EINTERNAL, Message: "client: " + err.Error()}
	}
	var r quantum.DeleteJobsResult
	k := call{method: "DELETE", path: []string{"jobs"}, query: url.Values{"qrns": {string(list)}}, idempotent: true}
	if err := c.do(ctx, k, &r, nil); err != nil {
		return nil, err
	}
	return &r, nil
}

func (c *Client) ListJobs(ctx context.Context, q quantum.JobQuery) (*quantum.JobPage, error) {
	v := url.Values{}
	set(v, "vendor", q.Vendor)
	set(v, "provider", q.Provider)
	set(v, "status", string(q.Status))
	set(v, "statusGroup", q.StatusGroup)
	set(v, "search", q.Search)
	if q.Tags != nil {
		tags, err := json.Marshal(q.Tags)
		if err != nil {
			return nil, invalid(quantum.FieldError{Field: "tags", Message: "must be a JSON object of tag keys and values"})
		}
		v.Set("tags", string(tags))
	}
	setInt(v, "page", q.Page)
	setInt(v, "limit", q.Limit)
	page := quantum.JobPage{Jobs: []*quantum.Job{}}
	if err := c.do(ctx, call{method: "GET", path: []string{"jobs"}, query: v, idempotent: true}, &page.Jobs, &page.Pagination); err != nil {
		return nil, err
	}
	if page.Jobs == nil { // "data": null
		page.Jobs = []*quantum.Job{}
	}
	return &page, nil
}

func (c *Client) ListDevices(ctx context.Context, q quantum.DeviceQuery) (*quantum.DevicePage, error) {
	v := url.Values{}
	set(v, "qrn", q.QRN)
	set(v, "vendor", q.Vendor)
	set(v, "providerId", q.ProviderID)
	set(v, "deviceType", q.DeviceType)
	set(v, "status", q.Status)
	setBool(v, "retired", q.Retired)
	setBool(v, "private", q.Private)
	setBool(v, "verified", q.Verified)
	setBool(v, "directAccess", q.DirectAccess)
	set(v, "search", q.Search)
	set(v, "sortBy", q.SortBy)
	set(v, "sortOrder", q.SortOrder)
	setInt(v, "page", q.Page)
	setInt(v, "limit", q.Limit)
	page := quantum.DevicePage{Devices: []*quantum.Device{}}
	if err := c.do(ctx, call{method: "GET", path: []string{"devices"}, query: v, idempotent: true}, &page.Devices, &page.Pagination); err != nil {
		return nil, err
	}
	if page.Devices == nil {
		page.Devices = []*quantum.Device{}
	}
	return &page, nil
}

func (c *Client) GetDevice(ctx context.Context, qrn string) (*quantum.Device, error) {
	if err := qtype.CheckDeviceQRN(qrn); err != nil {
		return nil, err
	}
	var d quantum.Device
	if err := c.do(ctx, call{method: "GET", path: []string{"devices", qrn}, idempotent: true}, &d, nil); err != nil {
		return nil, err
	}
	return &d, nil
}

func (c *Client) GetDeviceCalibrations(ctx context.Context, qrn string) (*qtype.CalibrationDocument, error) {
	if err := qtype.CheckDeviceQRN(qrn); err != nil {
		return nil, err
	}
	var d qtype.CalibrationDocument
	if err := c.do(ctx, call{method: "GET", path: []string{"devices", qrn, "calibrations"}, idempotent: true}, &d, nil); err != nil {
		return nil, err
	}
	return &d, nil
}

func (c *Client) EstimateCost(ctx context.Context, deviceQRN string, shots int) (float64, error) {
	var r struct {
		EstimatedCost float64 `json:"estimatedCost"`
	}
	q := url.Values{"deviceQrn": {deviceQRN}, "shots": {strconv.Itoa(shots)}}
	if err := c.do(ctx, call{method: "GET", path: []string{"jobs", "cost-estimate"}, query: q, idempotent: true}, &r, nil); err != nil {
		return 0, err
	}
	return r.EstimatedCost, nil
}

func (c *Client) CreditsBalance(ctx context.Context, organizationID string) (*quantum.CreditsBalance, error) {
	q := url.Values{}
	set(q, "organizationId", organizationID)
	var b quantum.CreditsBalance
	if err := c.do(ctx, call{method: "GET", path: []string{"billing", "credits", "balance"}, query: q, idempotent: true}, &b, nil); err != nil {
		return nil, err
	}
	return &b, nil
}

func set(v url.Values, name, value string) {
	if value != "" {
		v.Set(name, value)
	}
}

func setInt(v url.Values, name string, n int) {
	if n != 0 {
		v.Set(name, strconv.Itoa(n))
	}
}

func setBool(v url.Values, name string, b *bool) {
	if b != nil {
		v.Set(name, strconv.FormatBool(*b))
	}
}
