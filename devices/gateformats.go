package devices

import (
	"context"
	"errors"

	"github.com/qjobs/quantum/ionq"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/quil"
)

// The gate-model formats beside QASM and QIR (decisions.md, "Every
// program format the public client sends"): each compiles to one circuit,
// checked against the device's couplings and run on the qubits it uses,
// as a QASM program is.

// compileQuil compiles a Quil program: its errors name the line and
// column.
func compileQuil(ctx context.Context, t qtype.Task, limit int) (*program, error) {
	p, err := quil.Compile(ctx, t.Program.Data, quil.Options{MaxQubits: limit})
	if err != nil {
		if qtype.IsContextErr(err) {
			return nil, err
		}
		return nil, qtype.Invalid("program.data", "%s", err.Error())
	}
	if err := checkCoupling(t.Device, p.Circuit); err != nil {
		return nil, err
	}
	c, qubits := p.Circuit.Compact()
	return &program{numQubits: c.NumQubits, declaredQubits: p.Circuit.NumQubits, circuit: c, qubits: qubits, resultBits: p.ResultBits}, nil
}

// compileIonQ compiles an IonQ JSON circuit: its errors name the JSON
// path under program.data.
func compileIonQ(ctx context.Context, t qtype.Task, limit int) (*program, error) {
	p, err := ionq.Compile(ctx, t.Program.Data, ionq.Options{MaxQubits: limit})
	if err != nil {
		var e *ionq.Error
		if !errors.As(err, &e) {
			return nil, err // the context's
		}
		field := "program.data"
		if e.Path != "" {
			field += "." + e.Path
		}
		return nil, qtype.Invalid(field, "%s", e.Msg)
	}
	if err := checkCoupling(t.Device, p.Circuit); err != nil {
		return nil, err
	}
	c, qubits := p.Circuit.Compact()
	return &program{numQubits: c.NumQubits, declaredQubits: p.Qubits, circuit: c, qubits: qubits, resultBits: p.Qubits}, nil
}
