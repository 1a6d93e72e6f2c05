package analog

import (
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/rydberg"
)

// ProgramOf is the simulator's program for a task's program on a device,
// decoded and checked as a job's would be.
func ProgramOf(format, data string, d *qtype.Device) (*rydberg.Program, error) {
	j, err := NewBackend(1<<30, 0).decode(qtype.Task{Device: d, Program: qtype.Program{Format: format, Data: data}, RuntimeOptions: map[string]any{}})
	if err != nil {
		return nil, err
	}
	return j.program, nil
}
