package client

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"

	"github.com/google/uuid"

	"github.com/qjobs/quantum"
)

func (c *Client) VerifyUser(ctx context.Context) (quantum.User, error) {
	var u quantum.User
	err := c.do(ctx, call{method: "GET", path: []string{"users", "verify"}, idempotent: true}, &u)
	return u, err
}

// CreateJob submits a job. Its IdempotencyKey (or, unless
// WithoutAutoIdempotencyKey, one made for it) goes in the Idempotency-Key
// header, which makes the create safe to retry.
func (c *Client) CreateJob(ctx context.Context, req quantum.JobRequest) (*quantum.Job, error) {
	body := map[string]any{"shots": req.Shots, "deviceQrn": req.DeviceQRN, "name": req.Name}
	if req.Program != nil {
		body["program"] = req.Program
	}
	if req.Tags != nil {
		body["tags"] = req.Tags
	}
	if req.RuntimeOptions != nil {
		body["runtimeOptions"] = req.RuntimeOptions
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, &quantum.Error{Code: quantum.EVALIDATION, Message: "the request cannot be sent as JSON: " + err.Error(),
			Details: []quantum.FieldError{{Field: "body", Message: "must hold only JSON values"}}}
	}
	key := req.IdempotencyKey
	if key == "" && c.autoKey {
		key = uuid.NewString()
	}
	k := call{method: "POST", path: []string{"jobs"}, body: data, header: http.Header{}, idempotent: key != ""}
	if key != "" {
		k.header.Set("Idempotency-Key", key)
	}
	var j quantum.Job
	if err := c.do(ctx, k, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

func (c *Client) GetJob(ctx context.Context, qrn string) (*quantum.Job, error) {
	if err := quantum.CheckJobQRN(qrn); err != nil {
		return nil, err
	}
	var j quantum.Job
	if err := c.do(ctx, call{method: "GET", path: []string{"jobs", qrn}, idempotent: true}, &j); err != nil {
		return nil, err
	}
	return &j, nil
}

func (c *Client) GetJobResult(ctx context.Context, qrn string) (*quantum.JobResult, error) {
	if err := quantum.CheckJobQRN(qrn); err != nil {
		return nil, err
	}
	var r quantum.JobResult
	k := call{method: "GET", path: []string{"jobs", qrn, "result"}, idempotent: true, limit: maxResult}
	if err := c.do(ctx, k, &r); err != nil {
		return nil, err
	}
	if r.ResultData.MeasurementCounts == nil {
		r.ResultData.MeasurementCounts = map[string]int{}
	}
	return &r, nil
}

func (c *Client) GetJobProgram(ctx context.Context, qrn string) (*quantum.Program, error) {
	if err := quantum.CheckJobQRN(qrn); err != nil {
		return nil, err
	}
	var p quantum.Program
	k := call{method: "GET", path: []string{"jobs", qrn, "program"}, idempotent: true, limit: maxResult}
	if err := c.do(ctx, k, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// CancelJob asks the job to stop. Asking twice is harmless, so it is
// retried like a read.
func (c *Client) CancelJob(ctx context.Context, qrn string) error {
	if err := quantum.CheckJobQRN(qrn); err != nil {
		return err
	}
	return c.do(ctx, call{method: "POST", path: []string{"jobs", qrn, "cancel"}, idempotent: true}, nil)
}

func (c *Client) DeleteJob(ctx context.Context, qrn string) error {
	if err := quantum.CheckJobQRN(qrn); err != nil {
		return err
	}
	return c.do(ctx, call{method: "DELETE", path: []string{"jobs", qrn}, idempotent: true}, nil)
}

func (c *Client) DeleteJobs(ctx context.Context, qrns []string) (*quantum.DeleteJobsResult, error) {
	if qrns == nil {
		qrns = []string{}
	}
	list, _ := json.Marshal(qrns)
	var r quantum.DeleteJobsResult
	k := call{method: "DELETE", path: []string{"jobs"}, query: url.Values{"qrns": {string(list)}}, idempotent: true}
	if err := c.do(ctx, k, &r); err != nil {
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
			return nil, &quantum.Error{Code: quantum.EVALIDATION, Message: "tags: must be a JSON object of tag keys and values",
				Details: []quantum.FieldError{{Field: "tags", Message: "must be a JSON object of tag keys and values"}}}
		}
		v.Set("tags", string(tags))
	}
	setInt(v, "page", q.Page)
	setInt(v, "limit", q.Limit)
	var page quantum.JobPage
	if err := c.page(ctx, []string{"jobs"}, v, &page.Jobs, &page.Pagination); err != nil {
		return nil, err
	}
	if page.Jobs == nil {
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
	for name, b := range map[string]*bool{"retired": q.Retired, "private": q.Private, "verified": q.Verified, "directAccess": q.DirectAccess} {
		if b != nil {
			v.Set(name, strconv.FormatBool(*b))
		}
	}
	set(v, "search", q.Search)
	set(v, "sortBy", q.SortBy)
	set(v, "sortOrder", q.SortOrder)
	setInt(v, "page", q.Page)
	setInt(v, "limit", q.Limit)
	var page quantum.DevicePage
	if err := c.page(ctx, []string{"devices"}, v, &page.Devices, &page.Pagination); err != nil {
		return nil, err
	}
	if page.Devices == nil {
		page.Devices = []*quantum.Device{}
	}
	return &page, nil
}

// page reads a list: its data into items, and its pagination.
func (c *Client) page(ctx context.Context, path []string, q url.Values, items any, p *quantum.Pagination) error {
	var env struct {
		Data       json.RawMessage    `json:"data"`
		Pagination quantum.Pagination `json:"pagination"`
	}
	k := call{method: "GET", path: path, query: q, idempotent: true}
	if err := c.do(ctx, k, rawEnvelope{&env}); err != nil {
		return err
	}
	*p = env.Pagination
	return decodeInto(env.Data, items)
}

func (c *Client) GetDevice(ctx context.Context, qrn string) (*quantum.Device, error) {
	if err := quantum.CheckDeviceQRN(qrn); err != nil {
		return nil, err
	}
	var d quantum.Device
	if err := c.do(ctx, call{method: "GET", path: []string{"devices", qrn}, idempotent: true}, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

func (c *Client) EstimateCost(ctx context.Context, deviceQRN string, shots int) (float64, error) {
	var r struct {
		EstimatedCost float64 `json:"estimatedCost"`
	}
	q := url.Values{"deviceQrn": {deviceQRN}, "shots": {strconv.Itoa(shots)}}
	err := c.do(ctx, call{method: "GET", path: []string{"jobs", "cost-estimate"}, query: q, idempotent: true}, &r)
	return r.EstimatedCost, err
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
