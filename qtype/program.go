package qtype

import (
	"encoding/json"
	"fmt"
	"strings"
)

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

// EncodeProgram is the Program a Store keeps for a job: its program, or
// when batch is not nil a batch's programs as one, of BatchFormat.
func EncodeProgram(program *Program, batch []Program) (Program, error) {
	if batch == nil {
		return *program, nil
	}
	data, err := json.Marshal(batch)
	if err != nil {
		return Program{}, err
	}
	return Program{Format: BatchFormat, Data: string(data)}, nil
}

// DecodeProgram reads back what EncodeProgram made.
func DecodeProgram(p *Program) (*JobProgram, error) {
	if p.Format != BatchFormat {
		return &JobProgram{Program: *p}, nil
	}
	var batch []Program
	if err := json.Unmarshal([]byte(p.Data), &batch); err != nil {
		return nil, fmt.Errorf("a stored batch does not decode: %w", err)
	}
	return &JobProgram{Batch: batch}, nil
}
