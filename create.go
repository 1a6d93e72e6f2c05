package quantum

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// A create, top to bottom: CreateJob's steps, then the checks in the order
// it makes them, then how the job is made and stored.

// CreateJob checks the request, the device and the program (it compiles),
// stores the job with its program, and returns it INITIALIZING. Workers take
// it from there. Once the job is stored this method does not fail, so a
// client that retries on errors never stores a job twice.
//
// Besides Validation errors it answers TOO_MANY_ACTIVE_JOBS when the user
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
	// 1. The Service takes creates.
	if s.runner.IsClosed() {
		return nil, errClosing()
	}
	if req.Shots == 0 && isProblem(req) {
		req.Shots = 1 // decisions.md: a problem's shots may be absent
	}
	// 2. A retry of a create that was stored answers its job, before any
	// check that the first create passed and a retry might not (the
	// user's limit counts the first job).
	var hash string
	if key := req.IdempotencyKey; key != "" {
		if err := checkIdempotencyKey(key); err != nil {
			return nil, err
		}
		var err error
		if hash, err = requestHash(req); err != nil {
			return nil, qtype.Invalid("runtimeOptions", "must hold only JSON values (objects, arrays, strings, numbers, booleans, null)")
		}
		if j, err := s.replayed(ctx, u, key, hash); j != nil || err != nil {
			return j, err
		}
	}
	// 3. The request's fields, its device and the formats of its programs:
	// cheap checks, all reported at once.
	d, b, task, err := s.checkRequest(ctx, u, req)
	if err != nil {
		return nil, err
	}
	// 4. The user's unfinished jobs, counted before the compile, which is
	// the expensive part, and again under the user's lock as the job is
	// stored, which makes it exact.
	if s.countFirst(u) {
		if err := s.checkActive(ctx, u); err != nil {
			return nil, err
		}
	}
	// 5. The credits its estimated cost reserves (WithCredits).
	estimate := d.EstimatedBatchCost(max(len(req.Batch), 1), req.Shots)
	reserve, err := s.toReserve(ctx, u, estimate)
	if err != nil {
		return nil, err
	}
	// 6. Its programs compile on the device's backend, in a compile slot,
	// and what they need of the memory budget fits it.
	res, err := s.checkTask(ctx, b, task, req)
	if err != nil {
		return nil, err
	}
	// 7. Stored, in the user's turn, and handed to the engine.
	job := s.newRecord(u, req, d, task, res, estimate, reserve, hash)
	program, err := qtype.EncodeProgram(req.Program, req.Batch)
	if err != nil {
		return nil, s.internal(ctx, err, "encode the batch")
	}
	// One user's creates take turns from the count of their unfinished
	// jobs to the store's write, unless the store bounds them itself in
	// the order it stores them (storage.BatchCreator); creates with an
	// idempotency key always do, for their second lookup below.
	if hash != "" || !s.store.BatchesCreates() {
		unlock := s.lockUser(u)
		defer unlock()
	}
	if s.runner.IsClosed() {
		return nil, errClosing()
	}
	if hash != "" {
		// Looked up again under the user's lock: another create with the
		// key may have been stored while this one compiled.
		if j, err := s.replayed(ctx, u, req.IdempotencyKey, hash); j != nil || err != nil {
			return j, err
		}
	}
	bounded := s.store.BoundedCreator()
	if bounded == nil {
		if err := s.checkActive(ctx, u); err != nil {
			return nil, err
		}
	}
	if j, err := s.storeJob(ctx, u, req, job, program, hash, bounded); j != nil || err != nil {
		return j, err
	}
	s.runner.Admit(job.JobQRN)
	return &job.Job, nil // the store and the watchers have copies of their own
}

// checkRequest validates everything about a request that needs no
// compiling, and resolves its device.
func (s *Service) checkRequest(ctx context.Context, u User, req JobRequest) (*Device, Backend, Task, error) {
	var v qtype.Validation
	checkPrograms(&v, req)
	if req.Shots < 1 {
		v.Add("shots", "must be at least 1")
	}
	var d *Device
	var b Backend
	if req.DeviceQRN == "" {
		v.Add("deviceQrn", "is required")
	} else if !checkText(&v, "deviceQrn", req.DeviceQRN) {
		// not looked up: its message would echo the bytes
	} else if dev, ok := s.devices.Get(req.DeviceQRN); !ok || !dev.VisibleTo(u.ID) {
		v.Add("deviceQrn", "no device %q", req.DeviceQRN)
	} else {
		d = dev
		b, _ = s.devices.BackendOf(dev.QRN)
		if d.Status != DeviceOnline && s.controls != nil {
			// Another node may have set it ONLINE since this one read the
			// controls: a refusal reads them again first. (A device taken
			// OFFLINE elsewhere is refused by the store's insert.)
			if err := s.loadControls(ctx); err != nil {
				return nil, nil, Task{}, err
			}
			d, _ = s.devices.Get(req.DeviceQRN)
		}
		if d.Status != DeviceOnline {
			v.Add("deviceQrn", "device %s is %s, not ONLINE", d.QRN, d.Status)
		}
		if req.Shots > d.ShotLimit() {
			v.Add("shots", "must be at most %d on %s", d.ShotLimit(), d.QRN)
		}
		if req.Shots >= 1 && req.Shots < d.MinShots {
			v.Add("shots", "must be at least %d on %s", d.MinShots, d.QRN)
		}
		checkProgramsOn(&v, req, d)
		if nm, ok := req.RuntimeOptions["noiseModel"]; ok && nm != nil {
			name, _ := nm.(string)
			if !slices.Contains(d.NoiseModels, name) {
				if len(d.NoiseModels) == 0 {
					v.Add("runtimeOptions.noiseModel", "device %s has no noise models", d.QRN)
				} else {
					v.Add("runtimeOptions.noiseModel", "must be one of %s", strings.Join(d.NoiseModels, ", "))
				}
			}
		}
	}
	if checkText(&v, "name", req.Name) && utf8.RuneCountInString(req.Name) > maxNameLen {
		v.Add("name", "must be at most %d characters", maxNameLen)
	}
	for _, k := range sortedKeys(req.Tags) {
		if !validText(k) {
			v.Add("tags", "keys "+textRule)
			continue
		}
		tv, ok := qtype.TagValue(req.Tags[k])
		if !ok {
			v.Add("tags."+k, "must be a string, an integer or a boolean")
		} else if str, isStr := tv.(string); isStr {
			checkText(&v, "tags."+k, str)
		}
	}
	checkTextIn(&v, "runtimeOptions", req.RuntimeOptions)
	opts, err := jsonValues(req.RuntimeOptions)
	if err != nil {
		v.Add("runtimeOptions", "must hold only JSON values (objects, arrays, strings, numbers, booleans, null)")
	}
	seed, seedErr := qtype.SeedOption(opts)
	if seedErr != "" {
		v.Add("runtimeOptions.seed", "%s", seedErr)
	}
	if err := v.Err(); err != nil {
		return nil, nil, Task{}, err
	}
	return d, b, Task{Device: d, Shots: req.Shots, RuntimeOptions: opts, Seed: seed}, nil
}

// Longest name and tag key a job may carry.
const maxNameLen = 255

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// A batch job runs several programs as one job: one QRN, one status, one
// place in the queue, one result per program. The public service's SDK
// sends one for run(programs, as_batch=True).

// programs are the programs of a request, in order, with the name each
// one's fields go by in errors: program, or program[i] in a batch.
// programName names the program of a job of one (read-only).
var programName = []string{"program"}

func (req JobRequest) programs() ([]Program, []string) {
	if req.Batch == nil {
		if req.Program == nil {
			return nil, nil
		}
		return []Program{*req.Program}, programName
	}
	names := make([]string, len(req.Batch))
	for i := range req.Batch {
		names[i] = fmt.Sprintf("program[%d]", i)
	}
	return req.Batch, names
}

// checkPrograms validates the program (or batch) of a request as far as
// it needs no device and no compiling: the batch's size, each element's
// format and data.
func checkPrograms(v *qtype.Validation, req JobRequest) {
	switch {
	case req.Program != nil && req.Batch != nil:
		v.Add("program", "give one program or a batch, not both")
		return
	case req.Program == nil && req.Batch == nil:
		v.Add("program", "is required")
		return
	case req.Batch != nil && len(req.Batch) == 0:
		v.Add("program", "a batch must hold at least 1 program")
		return
	case len(req.Batch) > qtype.MaxBatchCircuits:
		v.Add("program", "a batch holds at most %d programs, got %d", qtype.MaxBatchCircuits, len(req.Batch))
		return
	}
	progs, names := req.programs()
	start := len(*v)
	for i, p := range progs {
		if p.Format == "" {
			v.Add(names[i]+".format", "is required")
		} else {
			checkText(v, names[i]+".format", p.Format)
		}
		if p.Data == "" {
			v.Add(names[i]+".data", "is required")
		} else {
			checkText(v, names[i]+".data", p.Data)
		}
		if len(*v)-start >= maxBatchErrors {
			return // a batch of 2,000 bad programs is said in a few lines
		}
	}
}

// checkProgramsOn checks what the device takes: batches, and each
// program's format.
func checkProgramsOn(v *qtype.Validation, req JobRequest, d *Device) {
	if req.Batch != nil && !d.BatchJobSupport {
		v.Add("program", "Batch jobs are not supported by this device.")
		return
	}
	if len(req.Batch) > qtype.MaxBatchCircuits {
		return
	}
	progs, names := req.programs()
	start := len(*v)
	for i, p := range progs {
		if p.Format != "" && validText(p.Format) && !qtype.DeviceTakes(d.RunInputTypes, p.Format) {
			v.Add(names[i]+".format", "must be one of %s on %s", strings.Join(d.RunInputTypes, ", "), d.QRN)
		}
		if len(*v)-start >= maxBatchErrors {
			return
		}
	}
}

// maxBatchErrors bounds the errors one create answers about a batch's
// elements.
const maxBatchErrors = 20

// activeRetry is the Retry-After of a create refused for too many
// unfinished jobs: about how long a small job takes to get through.
const activeRetry = 5 * time.Second

var pendingStatuses = qtype.StatusGroups()["pending"]

// checkActive refuses a create once the user has as many unfinished jobs
// as allowed.
func (s *Service) checkActive(ctx context.Context, u User) error {
	n, err := s.store.CountJobs(ctx, u.ID, pendingStatuses)
	if err != nil {
		return s.internal(ctx, err, "count active jobs")
	}
	if n >= s.maxActive {
		return s.tooManyActive(u, n)
	}
	return nil
}

func (s *Service) tooManyActive(u User, n int) error {
	s.atLimit[userStripe(u)].Store(s.now().UnixNano())
	return &Error{Code: ETOOMANYJOBS, RetryAfter: activeRetry, Message: fmt.Sprintf(
		"you have %d unfinished jobs, the most one user may have; wait for some to finish, or cancel some", n)}
}

// countFirst says whether a create counts the user's unfinished jobs
// before its compile, as well as when it stores the job. The count there
// only spares the compile of a create that the store would refuse: with
// a store that bounds the jobs as it stores one (storage.BoundedCreator),
// it is made only for the users of a stripe where one was refused within
// activeRetry, so that users under their bound pay one round trip a
// create, not two, and a user at the bound is refused before compiling.
func (s *Service) countFirst(u User) bool {
	if s.store.BoundedCreator() == nil {
		return true
	}
	last := s.atLimit[userStripe(u)].Load()
	return last != 0 && s.now().Sub(time.Unix(0, last)) < activeRetry
}

// userStripe is the index of the user's stripe in userLocks and atLimit.
func userStripe(u User) uint32 {
	h := fnv.New32a()
	h.Write([]byte(u.ID))
	return h.Sum32() % 64
}

// lockUser serialises one user's creates between counting their
// unfinished jobs and storing a new one, and returns the unlock.
func (s *Service) lockUser(u User) func() {
	mu := &s.userLocks[userStripe(u)]
	mu.Lock()
	return mu.Unlock
}

// checkTask runs the backend's Check on each of the request's programs in
// one of the bounded compile slots, and checks what the largest needs
// against the memory budget: a batch runs its circuits one at a time.
func (s *Service) checkTask(ctx context.Context, b Backend, t Task, req JobRequest) (Resources, error) {
	leave, err := s.checks.Enter(ctx)
	if err != nil {
		if qtype.IsContextErr(err) {
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
		more, ok := s.checks.TryEnter()
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
		case qtype.IsContextErr(err) && ctx.Err() != nil:
			return Resources{}, s.internal(ctx, ctx.Err(), "its program was checked")
		}
		return Resources{}, qtype.Invalid(names[i]+".data", "%s", err.Error())
	}
	for i, n := range need {
		if n > s.budget {
			return Resources{}, qtype.Invalid(names[i]+".data", "running the program needs %s of memory, more than the service's budget of %s",
				qtype.ByteSize(n), qtype.ByteSize(s.budget))
		}
	}
	return Resources{Memory: slices.Max(need)}, nil
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

// inElement names a batch's element in a backend's error about it: its
// program fields become program[i]'s, and the rest say which program
// they are about.
func inElement(e *Error, name string) *Error {
	if name == "program" || e.Code != EVALIDATION {
		return e
	}
	var v qtype.Validation
	for _, f := range e.Details {
		if rest, ok := strings.CutPrefix(f.Field, "program"); ok {
			v.Add(name+rest, "%s", f.Message)
		} else {
			v.Add(f.Field, "%s: %s", name, f.Message)
		}
	}
	if len(v) == 0 {
		return &Error{Code: e.Code, Message: name + ": " + e.Message, RetryAfter: e.RetryAfter}
	}
	return v.Err().(*Error)
}

// newRecord is the job a create stores, INITIALIZING.
func (s *Service) newRecord(u User, req JobRequest, d *Device, task Task, res Resources, estimate float64, reserve int64, hash string) *storage.JobRecord {
	now := s.now().UTC()
	tags := map[string]any{}
	for k, v := range req.Tags {
		tags[k], _ = qtype.TagValue(v)
	}
	return &storage.JobRecord{Job: Job{
		Name:           req.Name,
		Shots:          req.Shots,
		DeviceQRN:      d.QRN,
		Tags:           tags,
		RuntimeOptions: task.RuntimeOptions,
		JobQRN:         newJobQRN(d.QRN, u),
		Vendor:         d.Vendor,
		Provider:       d.Provider,
		Status:         StatusInitializing,
		ExperimentType: experimentType(req),
		TimeStamps:     qtype.TimeStamps{CreatedAt: now},
		EstimatedCost:  estimate,
		NumCircuits:    max(len(req.Batch), 1),
		Metadata:       map[string]any{},
	}, Owner: u.ID, UpdatedAt: now, MemoryNeed: res.Memory, Reserved: reserve, IdempotencyKey: req.IdempotencyKey, RequestHash: hash}
}

// storeJob stores a create's job, through bounded if not nil (with the
// user's bound on unfinished jobs). A refusal of the store is the
// create's answer: too many unfinished jobs, a program too large to keep,
// credits another create reserved meanwhile, or (j) the job another node
// stored with the same idempotency key.
func (s *Service) storeJob(ctx context.Context, u User, req JobRequest, job *storage.JobRecord, program Program, hash string,
	bounded storage.BoundedCreator) (j *Job, err error) {
	if bounded != nil {
		err = bounded.CreateJobBounded(ctx, job, program, pendingStatuses, s.maxActive)
	} else {
		err = s.store.CreateJob(ctx, job, program)
	}
	var active *storage.ActiveError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &active):
		return nil, s.tooManyActive(u, active.Count)
	case errors.Is(err, storage.ErrTooLarge):
		return nil, qtype.Invalid("program.data", "is too large to store: %s", storeDetail(err))
	case errors.Is(err, ErrInsufficientCredits):
		return nil, s.refused(ctx, u, job.EstimatedCost)
	case errors.Is(err, storage.ErrDuplicateKey):
		// Another node stored a create with the key meanwhile.
		if j, err := s.replayed(ctx, u, req.IdempotencyKey, hash); j != nil || err != nil {
			return j, err
		}
	case errors.Is(err, storage.ErrDeviceNotOnline):
		// Another node changed the device's controls, which this one has
		// not read yet: read them, to say what the device is now.
		if err := s.loadControls(ctx); err != nil {
			return nil, err
		}
		status := "not ONLINE"
		if d, ok := s.devices.Get(job.DeviceQRN); ok {
			status = d.Status + ", not ONLINE"
		}
		return nil, qtype.Invalid("deviceQrn", "device %s is %s", job.DeviceQRN, status)
	}
	return nil, s.internal(ctx, err, "store job")
}

// experimentType is the paradigm of the request's programs (a batch's
// first program's: a device runs one paradigm).
func experimentType(req JobRequest) string {
	if req.Program != nil {
		return qtype.ExperimentType(req.Program.Format)
	}
	return qtype.ExperimentType(req.Batch[0].Format)
}

// isProblem reports whether the request is an annealing problem, whose
// reads are runtimeOptions.num_reads: its shots may be absent (0), and
// are then 1.
func isProblem(req JobRequest) bool {
	return req.Program != nil && qtype.ExperimentType(req.Program.Format) == "annealing"
}

// newJobQRN is a new job's QRN: the device's, the owner's tag and 96
// random bits.
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

// storeDetail is the text of a store's error for a client: without the
// "store: " prefix that tells operators where it came from.
func storeDetail(err error) string {
	return strings.TrimPrefix(err.Error(), "store: ")
}
