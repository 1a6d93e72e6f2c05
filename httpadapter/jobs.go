package httpadapter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"unicode/utf8"

	"go.uber.org/zap"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
)

// createJob answers 201 with the whole Job: the public client validates the
// full object, and a client that reads only jobQrn and status still works.
func (h *handler) createJob(w http.ResponseWriter, r *http.Request, u quantum.User) {
	req, err := h.decodeJobRequest(w, r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	req.IdempotencyKey = r.Header.Get("Idempotency-Key")
	job, err := h.svc.CreateJob(r.Context(), u, req)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if rec, ok := w.(*recorder); ok {
		rec.job = job.JobQRN
	}
	h.okJob(w, http.StatusCreated, job)
}

func (h *handler) decodeJobRequest(w http.ResponseWriter, r *http.Request) (quantum.JobRequest, error) {
	raw, err := h.readRaw(w, r)
	if err != nil {
		return quantum.JobRequest{}, err
	}
	if req, ok := quickJobRequest(raw); ok {
		return req, nil
	}
	return jobRequestOf(raw)
}

// jobRequestOf reads a create's body field by field, naming every problem.
func jobRequestOf(raw []byte) (quantum.JobRequest, error) {
	body, err := bodyFields(raw)
	if err != nil {
		return quantum.JobRequest{}, err
	}
	var req quantum.JobRequest
	var fe fieldErrors
	hasProgram := present(body["program"])
	if raw := body["program"]; hasProgram {
		if t := bytes.TrimSpace(raw); t[0] == '[' {
			req.Batch = decodeBatch(raw, &fe)
		} else {
			req.Program = decodeProgram(raw, "program", &fe)
		}
	}
	if raw := body["shots"]; present(raw) {
		req.Shots = decodeInt(raw, "shots", &fe)
	} else if req.Program == nil || qtype.ExperimentType(req.Program.Format) != "annealing" {
		fe.add("shots", "is required") // a problem's may be absent: the Service makes it 1
	}
	if raw := body["deviceQrn"]; present(raw) {
		req.DeviceQRN = decodeString(raw, "deviceQrn", &fe)
	} else {
		fe.add("deviceQrn", "is required")
	}
	if raw := body["name"]; present(raw) {
		req.Name = decodeString(raw, "name", &fe)
	}
	if raw := body["tags"]; present(raw) {
		req.Tags = decodeObject(raw, "tags", &fe)
	}
	if raw := body["runtimeOptions"]; present(raw) {
		req.RuntimeOptions = decodeObject(raw, "runtimeOptions", &fe)
	}
	if !hasProgram && len(fe) > 0 {
		// Without other errors the Service says so, with the rest of its
		// checks, as it does for a request made in process.
		fe = append(fieldErrors{{Field: "program", Message: "is required"}}, fe...)
	}
	return req, fe.err()
}

// decodeProgram reads one {format, data} object; name is how its fields
// are named in errors.
func decodeProgram(raw json.RawMessage, name string, fe *fieldErrors) *quantum.Program {
	var p map[string]json.RawMessage
	if err := json.Unmarshal(raw, &p); err != nil || p == nil {
		fe.add(name, "must be an object with format and data")
		return nil
	}
	prog := &quantum.Program{}
	if present(p["format"]) {
		prog.Format = decodeString(p["format"], name+".format", fe)
	} else {
		fe.add(name+".format", "is required")
	}
	if raw := p["data"]; present(raw) {
		// data may be any JSON value by the spec: text formats take a
		// string (QASM, Quil, base64 for QIR); JSON formats take the
		// object itself or a string holding it (the public client's
		// json.dumps), kept as its compact text.
		if t := bytes.TrimSpace(raw); t[0] != '"' && qtype.IsJSONFormat(prog.Format) {
			if !utf8.Valid(raw) {
				fe.add(name+".data", textRule)
			} else {
				prog.Data, _ = qtype.CompactJSON(raw)
			}
		} else {
			prog.Data = decodeString(raw, name+".data", fe)
		}
	} else {
		fe.add(name+".data", "is required")
	}
	return prog
}

// decodeBatch reads a batch: an array of programs, each named
// program[i] in errors. Its length is the Service's to check, so that a
// batch says the same over HTTP as in process.
func decodeBatch(raw json.RawMessage, fe *fieldErrors) []quantum.Program {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		fe.add("program", "must be an object with format and data, or an array of them")
		return nil
	}
	if len(elems) > qtype.MaxBatchCircuits {
		fe.add("program", fmt.Sprintf("a batch holds at most %d programs, got %d", qtype.MaxBatchCircuits, len(elems)))
		return nil
	}
	batch := make([]quantum.Program, len(elems))
	for i, e := range elems {
		if p := decodeProgram(e, fmt.Sprintf("program[%d]", i), fe); p != nil {
			batch[i] = *p
		}
		if len(*fe) >= 20 {
			break // a batch of 2,000 bad programs is said in a few lines
		}
	}
	return batch
}

func (h *handler) listJobs(w http.ResponseWriter, r *http.Request, u quantum.User) {
	q := &query{r: r}
	jq := quantum.JobQuery{
		Vendor:      q.str("vendor"),
		Provider:    q.str("provider"),
		Status:      quantum.JobStatus(q.str("status")),
		StatusGroup: q.str("statusGroup"),
		Search:      q.search(),
		Page:        q.int("page"),
		Limit:       q.int("limit"),
	}
	if q.has("tags") {
		var tags map[string]any
		if !utf8.ValidString(q.str("tags")) {
			q.fe.add("tags", textRule)
		} else if err := json.Unmarshal([]byte(q.str("tags")), &tags); err != nil || tags == nil {
			q.fe.add("tags", "must be a JSON object of tag keys and values")
		} else {
			jq.Tags = decodeObject(json.RawMessage(q.str("tags")), "tags", &q.fe)
		}
	}
	if err := q.fe.err(); err != nil {
		h.fail(w, r, err)
		return
	}
	page, err := h.svc.ListJobs(r.Context(), u, jq)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	jobs := page.Jobs
	if jobs == nil {
		jobs = []*quantum.Job{}
	}
	h.page(w, jobs, page.Pagination)
}

func (h *handler) getJob(w http.ResponseWriter, r *http.Request, u quantum.User) {
	job, err := h.svc.GetJob(r.Context(), u, r.PathValue("job_qrn"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.okJob(w, http.StatusOK, job)
}

func (h *handler) getJobResult(w http.ResponseWriter, r *http.Request, u quantum.User) {
	res, err := h.svc.GetJobResult(r.Context(), u, r.PathValue("job_qrn"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if err := writeResult(w, res); err != nil && r.Context().Err() == nil {
		h.log.Info("result not fully written", zap.String("requestId", requestID(w)), zap.Error(err))
	}
}

func (h *handler) getJobProgram(w http.ResponseWriter, r *http.Request, u quantum.User) {
	p, err := h.svc.GetJobProgram(r.Context(), u, r.PathValue("job_qrn"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusOK, p)
}

type cancelAnswer struct {
	Message string            `json:"message"`
	JobQRN  string            `json:"jobQrn"`
	Status  quantum.JobStatus `json:"status"`
}

// cancelJob takes no body and no Content-Type: the public client sends
// neither. A body, and its Content-Type, are ignored (browsers and curl -d
// send text/plain and form types with an empty one).
func (h *handler) cancelJob(w http.ResponseWriter, r *http.Request, u quantum.User) {
	job, err := h.svc.CancelJob(r.Context(), u, r.PathValue("job_qrn"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusAccepted, cancelAnswer{
		Message: "Cancellation requested for job " + job.JobQRN,
		JobQRN:  job.JobQRN,
		Status:  quantum.StatusCancelling,
	})
}

type messageAnswer struct {
	Message string `json:"message"`
}

func (h *handler) deleteJob(w http.ResponseWriter, r *http.Request, u quantum.User) {
	qrn := r.PathValue("job_qrn")
	if err := h.svc.DeleteJob(r.Context(), u, qrn); err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusOK, messageAnswer{Message: "Job " + qrn + " deleted"})
}

func (h *handler) deleteJobs(w http.ResponseWriter, r *http.Request, u quantum.User) {
	q := &query{r: r}
	var qrns []string
	if !q.has("qrns") {
		q.fe.add("qrns", "is required")
	} else if err := json.Unmarshal([]byte(q.str("qrns")), &qrns); err != nil || qrns == nil {
		q.fe.add("qrns", "must be a JSON array of job QRN strings")
	}
	if err := q.fe.err(); err != nil {
		h.fail(w, r, err)
		return
	}
	res, err := h.svc.DeleteJobs(r.Context(), u, qrns)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusOK, res)
}

type statusesAnswer struct {
	Statuses []quantum.JobStatus            `json:"statuses"`
	Groups   map[string][]quantum.JobStatus `json:"groups"`
}

func (h *handler) jobStatuses(w http.ResponseWriter, r *http.Request, u quantum.User) {
	h.ok(w, http.StatusOK, statusesAnswer{Statuses: qtype.JobStatuses(), Groups: qtype.StatusGroups()})
}

type costAnswer struct {
	EstimatedCost float64 `json:"estimatedCost"`
	DeviceQRN     string  `json:"deviceQrn"`
	Shots         int     `json:"shots"`
}

func (h *handler) costEstimate(w http.ResponseWriter, r *http.Request, u quantum.User) {
	q := &query{r: r}
	device := q.str("deviceQrn")
	// shots=0 reaches the Service, which answers it with the device's
	// problems too.
	shots, _ := q.number("shots")
	if !q.has("shots") {
		q.fe.add("shots", "is required")
	}
	if device == "" && len(q.fe) > 0 {
		// Without other errors the Service says so.
		q.fe = append(fieldErrors{{Field: "deviceQrn", Message: "is required"}}, q.fe...)
	}
	if err := q.fe.err(); err != nil {
		h.fail(w, r, err)
		return
	}
	cost, err := h.svc.EstimateCost(r.Context(), u, device, shots)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusOK, costAnswer{EstimatedCost: cost, DeviceQRN: device, Shots: shots})
}
