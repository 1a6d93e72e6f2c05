package quantum

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
)

// A batch job runs several programs as one job: one QRN, one status, one
// place in the queue, one result per program. The public service's SDK
// sends one for run(programs, as_batch=True).

// MaxBatchCircuits is the most programs one batch job may hold.
const MaxBatchCircuits = 2000

// BatchFormat is the Format of the Program a Store keeps for a batch job:
// its Data is the JSON array of the batch's programs. No device takes it
// as a format of its own.
const BatchFormat = "batch"

// JobProgram is a job's program as submitted: one Program, or a batch's
// programs in order (Batch, with Program empty). Its JSON is the program's
// object, or the array of a batch's.
type JobProgram struct {
	Program
	Batch []Program
}

// Programs returns the programs the job runs, in order: one for a job of
// one program.
func (p *JobProgram) Programs() []Program {
	if p.Batch != nil {
		return p.Batch
	}
	return []Program{p.Program}
}

// MarshalJSON writes the wire form: an object, or a batch's array.
func (p JobProgram) MarshalJSON() ([]byte, error) {
	if p.Batch != nil {
		return json.Marshal(p.Batch)
	}
	return json.Marshal(p.Program)
}

// UnmarshalJSON reads the wire form.
func (p *JobProgram) UnmarshalJSON(b []byte) error {
	*p = JobProgram{}
	if t := strings.TrimSpace(string(b)); strings.HasPrefix(t, "[") {
		if err := json.Unmarshal(b, &p.Batch); err != nil {
			return err
		}
		if p.Batch == nil {
			p.Batch = []Program{}
		}
		return nil
	}
	return json.Unmarshal(b, &p.Program)
}

// storedProgram is the Program a Store keeps for a request: the program,
// or a batch's programs as one.
func storedProgram(req JobRequest) (Program, error) {
	if req.Batch == nil {
		return *req.Program, nil
	}
	data, err := json.Marshal(req.Batch)
	if err != nil {
		return Program{}, err
	}
	return Program{Format: BatchFormat, Data: string(data)}, nil
}

// jobProgram reads back what storedProgram stored.
func jobProgram(p *Program) (*JobProgram, error) {
	if p.Format != BatchFormat {
		return &JobProgram{Program: *p}, nil
	}
	var batch []Program
	if err := json.Unmarshal([]byte(p.Data), &batch); err != nil {
		return nil, fmt.Errorf("a stored batch does not decode: %w", err)
	}
	return &JobProgram{Batch: batch}, nil
}

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
func checkPrograms(v *validation, req JobRequest) {
	switch {
	case req.Program != nil && req.Batch != nil:
		v.add("program", "give one program or a batch, not both")
		return
	case req.Program == nil && req.Batch == nil:
		v.add("program", "is required")
		return
	case req.Batch != nil && len(req.Batch) == 0:
		v.add("program", "a batch must hold at least 1 program")
		return
	case len(req.Batch) > MaxBatchCircuits:
		v.add("program", "a batch holds at most %d programs, got %d", MaxBatchCircuits, len(req.Batch))
		return
	}
	progs, names := req.programs()
	start := len(*v)
	for i, p := range progs {
		if p.Format == "" {
			v.add(names[i]+".format", "is required")
		} else {
			checkText(v, names[i]+".format", p.Format)
		}
		if p.Data == "" {
			v.add(names[i]+".data", "is required")
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
func checkProgramsOn(v *validation, req JobRequest, d *Device) {
	if req.Batch != nil && !d.BatchJobSupport {
		v.add("program", "Batch jobs are not supported by this device.")
		return
	}
	if len(req.Batch) > MaxBatchCircuits {
		return
	}
	progs, names := req.programs()
	start := len(*v)
	for i, p := range progs {
		if p.Format != "" && validText(p.Format) && !slices.Contains(d.RunInputTypes, p.Format) {
			v.add(names[i]+".format", "must be one of %s on %s", strings.Join(d.RunInputTypes, ", "), d.QRN)
		}
		if len(*v)-start >= maxBatchErrors {
			return
		}
	}
}

// maxBatchErrors bounds the errors one create answers about a batch's
// elements.
const maxBatchErrors = 20

// batchCost is what a completed batch pays: perTask once, and each
// circuit's part (its shots, its minutes), as each is shown.
func (d *Device) batchCost(outcomes []CircuitOutcome) float64 {
	total := d.Pricing.PerTask
	for _, o := range outcomes {
		total += o.Cost
	}
	return roundCost(total)
}

// circuitCost is one circuit's part of a batch's cost: without perTask.
func (d *Device) circuitCost(shots int, execution time.Duration) float64 {
	return roundCost(float64(shots)*d.Pricing.PerShot + d.Pricing.PerMinute*execution.Minutes())
}

// sharedMetadata is a batch's metadata: what every circuit's run reported
// alike (the precision, the execution path when they all took it), so
// that nothing shown for the batch is true of one circuit only.
func sharedMetadata(each []map[string]any) map[string]any {
	if len(each) == 0 {
		return map[string]any{}
	}
	out := cloneMap(each[0])
	for _, m := range each[1:] {
		for k, v := range out {
			if w, ok := m[k]; !ok || !reflect.DeepEqual(v, w) {
				delete(out, k)
			}
		}
	}
	return out
}
