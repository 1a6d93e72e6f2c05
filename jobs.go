package quantum

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"go.uber.org/zap"
)

// CheckJobQRN returns the VALIDATION_ERROR on job_qrn that every method
// taking a job QRN answers for one of the wrong form, or nil. A client
// checks with it before building a URL of the QRN.
func CheckJobQRN(qrn string) error {
	if !ValidJobQRN(qrn) {
		return invalid("job_qrn", "must be a job QRN <deviceQrn>-<4 hex>-qjob-<24 hex>")
	}
	return nil
}

// CheckDeviceQRN is CheckJobQRN for a device QRN (device_qrn).
func CheckDeviceQRN(qrn string) error {
	if !validDeviceQRN(qrn) {
		return invalid("device_qrn", "must be a device QRN vendor:provider:type:name")
	}
	return nil
}

func newJobQRN(deviceQRN string, u User) string {
	id := uuid.New()
	var h [32]byte
	hex.Encode(h[:], id[:])
	// A version 4 UUID has 122 random bits; skip its version nibble
	// (index 12) and variant nibble (16): 24 random hex, 96 bits, not
	// guessable.
	var b strings.Builder
	tag := u.qrnTag()
	b.Grow(len(deviceQRN) + len(tag) + 30)
	b.WriteString(deviceQRN)
	b.WriteByte('-')
	b.WriteString(tag)
	b.WriteString("-qjob-")
	b.Write(h[:12])
	b.Write(h[13:16])
	b.Write(h[17:26])
	return b.String()
}

// Longest name and tag key a job may carry.
const maxNameLen = 255

// CreateJob checks the request, the device and the program (it compiles),
// stores the job with its program, and returns it INITIALIZING. Workers take
// it from there. Once the job is stored this method does not fail, so a
// client that retries on errors never stores a job twice.
//
// Besides validation errors it answers TOO_MANY_ACTIVE_JOBS when the user
// has as many unfinished jobs as WithMaxActiveJobsPerUser allows, and
// SERVICE_BUSY when every compile slot stayed busy (WithConcurrentChecks) or
// the Service is closing; both carry a RetryAfter and store nothing. With
// WithCredits, a job whose estimated cost the balance not reserved cannot
// cover is INSUFFICIENT_CREDITS, and nothing is stored.
//
// With req.IdempotencyKey set, a repeat of a create that was stored (the
// same key and request by the same user within IdempotencyWindow) answers
// the job it made, as it is now, instead of making another; the same key
// with another request is a VALIDATION_ERROR on Idempotency-Key.
func (s *Service) CreateJob(ctx context.Context, u User, req JobRequest) (*Job, error) {
	if s.runner.isClosed() {
		return nil, errClosing()
	}
	var hash string
	if key := req.IdempotencyKey; key != "" {
		if err := checkIdempotencyKey(key); err != nil {
			return nil, err
		}
		var err error
		if hash, err = requestHash(req); err != nil {
			return nil, invalid("runtimeOptions", "must hold only JSON values (objects, arrays, strings, numbers, booleans, null)")
		}
		// A retry of a create that was stored answers its job, before any
		// check that the first create passed and a retry might not (the
		// user's limit counts the first job).
		if j, err := s.replayed(ctx, u, key, hash); j != nil || err != nil {
			return j, err
		}
	}
	d, b, task, err := s.checkRequest(ctx, u, req)
	if err != nil {
		return nil, err
	}
	// Counted before the compile, which is the expensive part, and again
	// under the user's lock just before storing, which makes it exact.
	if err := s.checkActive(ctx, u); err != nil {
		return nil, err
	}
	estimate := d.EstimatedBatchCost(max(len(req.Batch), 1), req.Shots)
	reserve, err := s.toReserve(ctx, u, estimate)
	if err != nil {
		return nil, err
	}
	res, err := s.checkTask(ctx, b, task, req)
	if err != nil {
		return nil, err
	}
	program, err := storedProgram(req)
	if err != nil {
		return nil, s.internal(ctx, err, "encode the batch")
	}
	circuits := max(len(req.Batch), 1)
	now := s.now().UTC()
	tags := map[string]any{}
	for k, v := range req.Tags {
		tags[k], _ = tagValue(v)
	}
	job := &JobRecord{Job: Job{
		Name:           req.Name,
		Shots:          req.Shots,
		DeviceQRN:      d.QRN,
		Tags:           tags,
		RuntimeOptions: task.RuntimeOptions,
		JobQRN:         newJobQRN(d.QRN, u),
		Vendor:         d.Vendor,
		Provider:       d.Provider,
		Status:         StatusInitializing,
		ExperimentType: "gate_model",
		TimeStamps:     TimeStamps{CreatedAt: now},
		EstimatedCost:  estimate,
		NumCircuits:    circuits,
		Metadata:       map[string]any{},
	}, Owner: u.ID, UpdatedAt: now, MemoryNeed: res.Memory, Reserved: reserve, IdempotencyKey: req.IdempotencyKey, RequestHash: hash}
	unlock := s.lockUser(u)
	defer unlock()
	if s.runner.isClosed() {
		return nil, errClosing()
	}
	if hash != "" {
		// Looked up again under the user's lock: another create with the
		// key may have been stored while this one compiled.
		if j, err := s.replayed(ctx, u, req.IdempotencyKey, hash); j != nil || err != nil {
			return j, err
		}
	}
	if err := s.checkActive(ctx, u); err != nil {
		return nil, err
	}
	if err := s.store.CreateJob(ctx, job, program); err != nil {
		switch {
		case errors.Is(err, ErrTooLarge):
			return nil, invalid("program.data", "is too large to store: %s", storeDetail(err))
		case errors.Is(err, ErrInsufficientCredits):
			return nil, s.refused(ctx, u, estimate)
		case errors.Is(err, ErrDuplicateKey):
			// Another node stored a create with the key meanwhile.
			if j, err := s.replayed(ctx, u, req.IdempotencyKey, hash); j != nil || err != nil {
				return j, err
			}
		}
		return nil, s.internal(ctx, err, "store job")
	}
	s.runner.admit(job.JobQRN)
	return &job.Job, nil // the store and the watchers have copies of their own
}

// storeDetail is the text of a store's error for a client: without the
// "store: " prefix that tells operators where it came from.
func storeDetail(err error) string {
	return strings.TrimPrefix(err.Error(), "store: ")
}

func errClosing() *Error {
	return &Error{Code: EBUSY, Message: "the service is shutting down", RetryAfter: busyRetry}
}

// lockUser serialises one user's creates between counting their
// unfinished jobs and storing a new one, and returns the unlock.
func (s *Service) lockUser(u User) func() {
	h := fnv.New32a()
	h.Write([]byte(u.ID))
	mu := &s.userLocks[h.Sum32()%uint32(len(s.userLocks))]
	mu.Lock()
	return mu.Unlock
}

// activeRetry is the Retry-After of a create refused for too many
// unfinished jobs: about how long a small job takes to get through.
const activeRetry = 5 * time.Second

var pendingStatuses = StatusGroups()["pending"]

// checkActive refuses a create once the user has as many unfinished jobs
// as allowed.
func (s *Service) checkActive(ctx context.Context, u User) error {
	n, err := s.store.CountJobs(ctx, u.ID, pendingStatuses)
	if err != nil {
		return s.internal(ctx, err, "count active jobs")
	}
	if n >= s.maxActive {
		return &Error{Code: ETOOMANYJOBS, RetryAfter: activeRetry, Message: fmt.Sprintf(
			"you have %d unfinished jobs, the most one user may have; wait for some to finish, or cancel some", n)}
	}
	return nil
}

// checkTask runs the backend's Check on each of the request's programs in
// one of the bounded compile slots, and checks what the largest needs
// against the memory budget: a batch runs its circuits one at a time.
func (s *Service) checkTask(ctx context.Context, b Backend, t Task, req JobRequest) (Resources, error) {
	leave, err := s.checks.enter(ctx)
	if err != nil {
		if isContextErr(err) {
			return Resources{}, s.internal(ctx, err, "its program was checked")
		}
		return Resources{}, err
	}
	defer leave()
	progs, names := req.programs()
	// A batch's programs are checked on as many CPUs as have a compile
	// slot free now; each is still one compile in one slot.
	lanes := 1
	for lanes < min(runtime.GOMAXPROCS(0), len(progs)) {
		more, ok := s.checks.tryEnter()
		if !ok {
			break
		}
		defer more()
		lanes++
	}
	need := make([]int64, len(progs))
	i, err := lowestFailure(ctx, len(progs), lanes, func(i int) error {
		t := t
		t.Program = progs[i]
		res, err := checkBackend(ctx, b, t)
		need[i] = max(res.Memory, 0)
		return err
	})
	if err != nil {
		var qe *Error
		switch {
		case errors.As(err, &qe):
			return Resources{}, inElement(qe, names[i])
		case isContextErr(err) && ctx.Err() != nil:
			return Resources{}, s.internal(ctx, ctx.Err(), "its program was checked")
		}
		return Resources{}, invalid(names[i]+".data", "%s", err.Error())
	}
	for i, n := range need {
		if n > s.budget {
			return Resources{}, invalid(names[i]+".data", "running the program needs %s of memory, more than the service's budget of %s",
				byteSize(n), byteSize(s.budget))
		}
	}
	return Resources{Memory: slices.Max(need)}, nil
}

// lowestFailure calls fn for 0 to n-1 on up to lanes goroutines and
// returns the lowest index whose call failed, with its error, as a loop
// would: once i has failed, no index past it starts, and those before it
// all finish.
func lowestFailure(ctx context.Context, n, lanes int, fn func(i int) error) (int, error) {
	if lanes <= 1 || n <= 1 {
		// One lane is a loop: no goroutine to start for the common
		// single program.
		for i := range n {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			if err := fn(i); err != nil {
				return i, err
			}
		}
		return n, ctx.Err()
	}
	var mu sync.Mutex
	next, failed := 0, n
	var failure error
	var wg sync.WaitGroup
	for range max(lanes, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				if i >= failed || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				if err := fn(i); err != nil {
					mu.Lock()
					if i < failed {
						failed, failure = i, err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if failure == nil && ctx.Err() != nil {
		return 0, ctx.Err()
	}
	return failed, failure
}

// inElement names a batch's element in a backend's error about it: its
// program fields become program[i]'s, and the rest say which program
// they are about.
func inElement(e *Error, name string) *Error {
	if name == "program" || e.Code != EVALIDATION {
		return e
	}
	var v validation
	for _, f := range e.Details {
		if rest, ok := strings.CutPrefix(f.Field, "program"); ok {
			v.add(name+rest, "%s", f.Message)
		} else {
			v.add(f.Field, "%s: %s", name, f.Message)
		}
	}
	if len(v) == 0 {
		return &Error{Code: e.Code, Message: name + ": " + e.Message, RetryAfter: e.RetryAfter}
	}
	return v.err().(*Error)
}

// checkBackend calls the backend's Check, turning a panic in it into an
// error: a user's backend must not take a request down with it.
func checkBackend(ctx context.Context, b Backend, t Task) (res Resources, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = Resources{}, fmt.Errorf("the device's backend failed to check the program: %v", p)
		}
	}()
	return b.Check(ctx, t)
}

// checkRequest validates everything about a request that needs no
// compiling, and resolves its device.
func (s *Service) checkRequest(ctx context.Context, u User, req JobRequest) (*Device, Backend, Task, error) {
	var v validation
	checkPrograms(&v, req)
	if req.Shots < 1 {
		v.add("shots", "must be at least 1")
	}
	var d *Device
	var b Backend
	if req.DeviceQRN == "" {
		v.add("deviceQrn", "is required")
	} else if !checkText(&v, "deviceQrn", req.DeviceQRN) {
		// not looked up: its message would echo the bytes
	} else if dev, ok := s.devices.get(req.DeviceQRN); !ok || !dev.visibleTo(u) {
		v.add("deviceQrn", "no device %q", req.DeviceQRN)
	} else {
		d = dev
		b, _ = s.devices.backendOf(dev.QRN)
		if d.Status != DeviceOnline {
			v.add("deviceQrn", "device %s is %s, not ONLINE", d.QRN, d.Status)
		}
		if req.Shots > d.maxShots() {
			v.add("shots", "must be at most %d on %s", d.maxShots(), d.QRN)
		}
		if req.Shots >= 1 && req.Shots < d.MinShots {
			v.add("shots", "must be at least %d on %s", d.MinShots, d.QRN)
		}
		checkProgramsOn(&v, req, d)
		if nm, ok := req.RuntimeOptions["noiseModel"]; ok && nm != nil {
			name, _ := nm.(string)
			if !slices.Contains(d.NoiseModels, name) {
				if len(d.NoiseModels) == 0 {
					v.add("runtimeOptions.noiseModel", "device %s has no noise models", d.QRN)
				} else {
					v.add("runtimeOptions.noiseModel", "must be one of %s", strings.Join(d.NoiseModels, ", "))
				}
			}
		}
	}
	if checkText(&v, "name", req.Name) && utf8.RuneCountInString(req.Name) > maxNameLen {
		v.add("name", "must be at most %d characters", maxNameLen)
	}
	for _, k := range sortedKeys(req.Tags) {
		if !validText(k) {
			v.add("tags", "keys "+textRule)
			continue
		}
		tv, ok := tagValue(req.Tags[k])
		if !ok {
			v.add("tags."+k, "must be a string, an integer or a boolean")
		} else if str, isStr := tv.(string); isStr {
			checkText(&v, "tags."+k, str)
		}
	}
	checkTextIn(&v, "runtimeOptions", req.RuntimeOptions)
	opts, err := jsonValues(req.RuntimeOptions)
	if err != nil {
		v.add("runtimeOptions", "must hold only JSON values (objects, arrays, strings, numbers, booleans, null)")
	}
	seed, seedErr := seedOption(opts)
	if seedErr != "" {
		v.add("runtimeOptions.seed", "%s", seedErr)
	}
	if err := v.err(); err != nil {
		return nil, nil, Task{}, err
	}
	return d, b, Task{Device: d, Shots: req.Shots, RuntimeOptions: opts, Seed: seed}, nil
}

// seedOption reads runtimeOptions.seed: absent or null means none.
func seedOption(opts map[string]any) (*uint64, string) {
	raw, ok := opts["seed"]
	if !ok || raw == nil {
		return nil, ""
	}
	v, ok := tagValue(raw)
	i, isInt := v.(int64)
	if !ok || !isInt {
		return nil, "must be a non-negative integer"
	}
	if i < 0 {
		return nil, "must be a non-negative integer"
	}
	u := uint64(i)
	return &u, ""
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ownJob loads a job the user may touch: VALIDATION_ERROR for a malformed
// QRN, NOT_FOUND for no such job, FORBIDDEN for another user's.
func (s *Service) ownJob(ctx context.Context, u User, qrn string) (*JobRecord, error) {
	if err := CheckJobQRN(qrn); err != nil {
		return nil, err
	}
	j, err := s.store.GetJob(ctx, qrn)
	if errors.Is(err, ErrJobNotFound) {
		return nil, Errorf(ENOTFOUND, "job %s not found", qrn)
	}
	if err != nil {
		return nil, s.internal(ctx, err, "get job")
	}
	if j.Owner != u.ID {
		return nil, Errorf(EFORBIDDEN, "no permission to access job %s", qrn)
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
func shown(r *JobRecord) *Job {
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
		return nil, Errorf(ERESULTNOTREADY, "the result of job %s is not available: the job is %s", qrn, j.Status)
	}
	stored, err := s.store.GetResult(ctx, qrn)
	if err != nil {
		return nil, s.internal(ctx, err, "get result")
	}
	// The user's own copies: the store's are read-only.
	res := &JobResult{Status: j.Status, Cost: j.Cost, TimeStamps: j.TimeStamps}
	res.TimeStamps.EndedAt = clonePtr(j.TimeStamps.EndedAt)
	if stored.Circuits == nil {
		res.ResultData.MeasurementCounts = maps.Clone(stored.Counts)
		return res, nil
	}
	stored = stored.Clone()
	res.Results = make([]CircuitResult, len(stored.Circuits))
	for i, o := range stored.Circuits {
		ended := o.EndedAt
		res.Results[i] = CircuitResult{
			Status:     StatusCompleted,
			Cost:       o.Cost,
			TimeStamps: TimeStamps{CreatedAt: j.TimeStamps.CreatedAt, EndedAt: &ended, ExecutionDuration: o.ExecutionMs},
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
	jp, err := jobProgram(p)
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
			return nil, Errorf(EINVALIDJOBSTATE, "job %s is %s and cannot be cancelled", qrn, j.Status)
		case j.Status == StatusCancelling:
			return shown(j), nil
		}
		if b, ok := s.devices.backendOf(j.DeviceQRN); ok && !b.Cancellable() {
			return nil, Errorf(ECANCELNOTSUPPORTED, "device %s does not support cancelling jobs", j.DeviceQRN)
		}
		now := s.now().UTC()
		from := j.Status
		j, err = s.store.UpdateJob(ctx, qrn, from, func(j *JobRecord) {
			j.Status = StatusCancelling
			j.UpdatedAt = now
		}, nil)
		if errors.Is(err, ErrStatusChanged) {
			continue // it moved on meanwhile: look again
		}
		if err != nil {
			return nil, s.internal(ctx, err, "cancel job")
		}
		s.runner.cancel(from, qrn)
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
		return Errorf(EJOBNOTFINAL, "job %s is %s; only finished jobs can be deleted (cancel it first)", qrn, j.Status)
	}
	err = s.store.DeleteJob(ctx, qrn, j.Status)
	switch {
	case errors.Is(err, ErrJobNotFound):
		return Errorf(ENOTFOUND, "job %s not found", qrn)
	case err != nil:
		return s.internal(ctx, err, "delete job")
	}
	return nil
}

// DeleteJobs deletes several jobs and reports each QRN as deleted or
// failed, with a reason. Between 1 and 100 QRNs.
func (s *Service) DeleteJobs(ctx context.Context, u User, qrns []string) (*DeleteJobsResult, error) {
	if len(qrns) < 1 || len(qrns) > 100 {
		return nil, invalid("qrns", "must hold 1 to 100 job QRNs, got %d", len(qrns))
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
	var v validation
	page, limit := pageAndLimit(&v, q.Page, q.Limit, 50)
	f := JobFilter{Owner: u.ID, Provider: q.Provider, Search: q.Search, Offset: pageOffset(page, limit), Limit: limit}
	checkText(&v, "provider", q.Provider)
	switch {
	case q.Vendor == "" || q.Vendor == "all":
	case slices.Contains(Vendors, q.Vendor):
		f.Vendor = q.Vendor
	default:
		v.add("vendor", "must be all or one of %s", strings.Join(Vendors, ", "))
	}
	switch {
	case q.Status != "":
		if !validStatus(q.Status) {
			v.add("status", "must be one of %s", joinStatuses(JobStatuses()))
		}
		f.Statuses = []JobStatus{q.Status}
	case q.StatusGroup == "" || q.StatusGroup == "all":
	case q.StatusGroup == "pending" || q.StatusGroup == "returned":
		f.Statuses = StatusGroups()[q.StatusGroup]
	default:
		v.add("statusGroup", "must be all, pending or returned")
	}
	checkSearch(&v, q.Search)
	if len(q.Tags) > 0 {
		f.Tags = map[string]any{}
		for _, k := range sortedKeys(q.Tags) {
			tv, ok := tagValue(q.Tags[k])
			str, isStr := tv.(string)
			switch {
			case !validText(k) || isStr && !validText(str):
				v.add("tags", textRule)
			case !ok:
				v.add("tags", "value of %q must be a string, an integer or a boolean", k)
			}
			f.Tags[k] = tv
		}
	}
	if err := v.err(); err != nil {
		return nil, err
	}
	recs, total, err := s.store.ListJobs(ctx, f)
	if errors.Is(err, ErrScanLimit) {
		field := "status"
		if q.Search != "" {
			field = "search"
		}
		return nil, invalid(field, "%s", storeDetail(err))
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
	var v validation
	d, ok := s.devices.get(deviceQRN)
	switch {
	case deviceQRN == "":
		v.add("deviceQrn", "is required")
	case !ok || !d.visibleTo(u):
		v.add("deviceQrn", "no device %q", deviceQRN)
	}
	if shots < 1 {
		v.add("shots", "must be at least 1")
	} else if ok && shots > d.maxShots() {
		v.add("shots", "must be at most %d on %s", d.maxShots(), d.QRN)
	} else if ok && shots < d.MinShots {
		v.add("shots", "must be at least %d on %s", d.MinShots, d.QRN)
	}
	if err := v.err(); err != nil {
		return 0, err
	}
	return d.EstimatedCost(shots), nil
}

// failMessage is the statusMsg of a job that failed with err.
func failMessage(err error) string {
	var qe *Error
	if errors.As(err, &qe) {
		return qe.Message
	}
	msg := err.Error()
	if msg == "" {
		msg = "execution failed"
	}
	return msg
}

func logJobFailure(l *zap.Logger, qrn string, err error) {
	l.Info("job failed", zap.String("job", qrn), zap.Error(err))
}
