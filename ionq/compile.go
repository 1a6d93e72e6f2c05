package ionq

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/qjobs/quantum/sim"
)

// Options bound a compile.
type Options struct {
	// MaxQubits refuses a program of more qubits; 0 means
	// DefaultMaxQubits.
	MaxQubits int
	// MaxOps caps the circuit's operations; 0 means DefaultMaxOps.
	MaxOps int
}

// Defaults for the zero values of Options.
const (
	DefaultMaxQubits = 64
	DefaultMaxOps    = 1_000_000
)

// Program is a compiled program.
type Program struct {
	// Circuit measures qubit q into classical bit q at its end.
	Circuit *sim.Circuit
	// Qubits is the program's "qubits": the counts' keys have this many
	// bits.
	Qubits int
	// Native says the program's gateset is native.
	Native bool
}

// Compile compiles data, a program as JSON: the object, or a JSON string
// that holds it (as the public client's json.dumps sends it). It checks
// ctx as it goes and returns ctx's error when the caller gives up; every
// other error is an *Error.
func Compile(ctx context.Context, data string, opts Options) (*Program, error) {
	if opts.MaxQubits <= 0 {
		opts.MaxQubits = DefaultMaxQubits
	}
	if opts.MaxOps <= 0 {
		opts.MaxOps = DefaultMaxOps
	}
	raw := []byte(strings.TrimSpace(data))
	if len(raw) > 0 && raw[0] == '"' {
		var inner string
		if err := json.Unmarshal(raw, &inner); err != nil {
			return nil, syntaxError(raw, err)
		}
		raw = []byte(strings.TrimSpace(inner))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil {
		if len(raw) > 0 && raw[0] != '{' {
			return nil, errorf("", "must be a JSON object such as {\"qubits\": 2, \"circuit\": [{\"gate\": \"h\", \"target\": 0}]}")
		}
		return nil, syntaxError(raw, err)
	}
	c := &compiler{ctx: ctx, opts: opts}
	if err := c.header(top); err != nil {
		return nil, err
	}
	if err := c.circuit(top["circuit"]); err != nil {
		return nil, err
	}
	for q := range c.qubits {
		c.ops = append(c.ops, sim.MeasureOp(q, q))
	}
	return &Program{
		Circuit: &sim.Circuit{NumQubits: c.qubits, NumClbits: c.qubits, Ops: c.ops},
		Qubits:  c.qubits,
		Native:  c.native,
	}, nil
}

// syntaxError says where JSON that does not parse goes wrong.
func syntaxError(raw []byte, err error) *Error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Offset counts the bytes read, the offending one among them
		off := min(max(int(se.Offset)-1, 0), len(raw))
		line := 1 + bytes.Count(raw[:off], []byte("\n"))
		col := off - bytes.LastIndexByte(raw[:off], '\n')
		return errorf("", "not valid JSON at line %d, column %d: %v", line, col, se)
	}
	return errorf("", "not valid JSON: %v", err)
}

type compiler struct {
	ctx    context.Context
	opts   Options
	qubits int
	native bool
	ops    []sim.Op
}

// topKeys are the keys a program may have; its other keys are refused, so
// that a misspelt one does not go unnoticed.
var topKeys = []string{"qubits", "circuit", "gateset", "format", "name"}

// header reads qubits, gateset and format, and refuses a batch.
func (c *compiler) header(top map[string]json.RawMessage) error {
	if _, ok := top["circuits"]; ok {
		return errorf("circuits", "a program of several circuits: submit each as a program of a batch (POST /jobs with a list of programs), each with its own \"circuit\"")
	}
	for _, k := range sortedKeys(top) {
		if !slices.Contains(topKeys, k) {
			return errorf(k, "is not a key of an IonQ circuit (it has %s)", strings.Join(topKeys, ", "))
		}
	}
	raw, ok := top["qubits"]
	if !ok {
		return errorf("qubits", "is required: the number of qubits, every one measured at the end")
	}
	n, err := integer(raw)
	if err != nil || n < 1 {
		return errorf("qubits", "must be a positive integer (got %s)", short(raw))
	}
	if n > int64(c.opts.MaxQubits) {
		return errorf("qubits", "is %d, more than the device's %d qubits", n, c.opts.MaxQubits)
	}
	c.qubits = int(n)
	if raw, ok := top["gateset"]; ok {
		var g string
		if json.Unmarshal(raw, &g) != nil || g != "qis" && g != "native" {
			return errorf("gateset", `must be "qis" or "native" (got %s)`, short(raw))
		}
		c.native = g == "native"
	}
	if raw, ok := top["format"]; ok {
		var f string
		if json.Unmarshal(raw, &f) != nil || f != "ionq.circuit.v0" {
			return errorf("format", `must be "ionq.circuit.v0" when given (got %s)`, short(raw))
		}
	}
	if raw, ok := top["name"]; ok {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return errorf("name", "must be a string (got %s)", short(raw))
		}
	}
	if _, ok := top["circuit"]; !ok {
		return errorf("circuit", "is required: a list of gates such as [{\"gate\": \"h\", \"target\": 0}]")
	}
	return nil
}

// circuit reads the list of ops one at a time.
func (c *compiler) circuit(raw json.RawMessage) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return errorf("circuit", "must be a list of gates (got %s)", short(raw))
	}
	for i := 0; dec.More(); i++ {
		if i%1024 == 0 {
			if err := c.ctx.Err(); err != nil {
				return err
			}
		}
		if i == c.opts.MaxOps {
			return errorf("circuit", "has more than %d gates", c.opts.MaxOps)
		}
		var op map[string]json.RawMessage
		path := fmt.Sprintf("circuit[%d]", i)
		if err := dec.Decode(&op); err != nil {
			return errorf(path, "must be a gate, an object such as {\"gate\": \"h\", \"target\": 0}")
		}
		if err := c.op(path, op); err != nil {
			return err
		}
	}
	return nil
}

// op lowers one gate.
func (c *compiler) op(path string, op map[string]json.RawMessage) error {
	var name string
	if raw, ok := op["gate"]; !ok {
		return errorf(path+".gate", "is required")
	} else if json.Unmarshal(raw, &name) != nil {
		return errorf(path+".gate", "must be a gate's name, a string (got %s)", short(raw))
	}
	_, isNative := nativeGates[name]
	g, isQIS := qisGates[name]
	if _, rotated := op["rotation"]; rotated && (name == "z" || name == "cz") {
		// z with a rotation λ is the phase gate diag(1, e^{iλ}), z at
		// λ = π: qiskit-ionq sends p and cp so
		g.sim, g.rotation = "p", true
	}
	if name == "zz" {
		isNative, isQIS = c.native, !c.native // zz is in both gatesets
	}
	switch {
	case !isNative && !isQIS:
		return errorf(path+".gate", "unknown gate %q: the QIS gates are %s; the native ones gpi, gpi2, ms, zz", name, strings.Join(sortedKeys(qisGates), " "))
	case c.native && !isNative:
		return errorf(path+".gate", "%s is a QIS gate and this circuit's gateset is native: native and QIS gates do not mix", name)
	case !c.native && !isQIS:
		return errorf(path+".gate", "%s is a native gate and this circuit's gateset is qis (the default): set \"gateset\": \"native\"; native and QIS gates do not mix", name)
	}
	if c.native {
		return c.nativeOp(path, name, op)
	}
	return c.qisOp(path, name, g, op)
}

func (c *compiler) qisOp(path, name string, g qisGate, op map[string]json.RawMessage) error {
	if err := onlyKeys(path, name, op, "gate", "target", "targets", "control", "controls", "rotation"); err != nil {
		return err
	}
	targets, err := c.qubitList(path, op, "target", "targets", g.targets, true)
	if err != nil {
		return err
	}
	controls, err := c.qubitList(path, op, "control", "controls", -1, false)
	if err != nil {
		return err
	}
	if len(controls) < g.controls {
		return errorf(path, "%s takes %d control(s) (\"control\" or \"controls\"), got %d", name, g.controls, len(controls))
	}
	if len(controls) > maxControls {
		return errorf(path+".controls", "%d controls; a gate takes at most %d", len(controls), maxControls)
	}
	all := append(slices.Clone(controls), targets...)
	for i, q := range all {
		if slices.Contains(all[:i], q) {
			return errorf(path, "%s uses qubit %d twice", name, q)
		}
	}
	var params []float64
	if raw, ok := op["rotation"]; ok {
		if !g.rotation {
			return errorf(path+".rotation", "%s takes no rotation", name)
		}
		v, err := finite(raw)
		if err != nil {
			return errorf(path+".rotation", "must be a number, an angle in radians (got %s)", short(raw))
		}
		params = []float64{v}
	} else if g.rotation {
		return errorf(path+".rotation", "is required: %s rotates by an angle in radians", name)
	}
	sg, _ := sim.LookupGate(g.sim)
	o, err := sg.Op(params, targets...)
	if err != nil {
		return errorf(path, "%v", err) // the table matches sim's arities
	}
	if len(controls) > 0 {
		cs := make([]sim.Control, len(controls))
		for i, q := range controls {
			cs[i] = sim.Control{Qubit: q}
		}
		o = o.WithControls(cs...)
	}
	c.ops = append(c.ops, o)
	return nil
}

func (c *compiler) nativeOp(path, name string, op map[string]json.RawMessage) error {
	var keys []string
	switch name {
	case "gpi", "gpi2":
		keys = []string{"gate", "target", "targets", "phase"}
	case "ms":
		keys = []string{"gate", "targets", "phases", "angle"}
	case "zz":
		keys = []string{"gate", "targets", "angle"}
	}
	if err := onlyKeys(path, name, op, keys...); err != nil {
		return err
	}
	targets, err := c.qubitList(path, op, "target", "targets", nativeGates[name], true)
	if err != nil {
		return err
	}
	if len(targets) == 2 && targets[0] == targets[1] {
		return errorf(path+".targets", "%s uses qubit %d twice", name, targets[0])
	}
	var m []complex128
	switch name {
	case "gpi", "gpi2":
		phi, err := c.number(path, op, "phase", "a phase in turns", math.NaN())
		if err != nil {
			return err
		}
		m = gpi(phi)
		if name == "gpi2" {
			m = gpi2(phi)
		}
	case "ms":
		raw, ok := op["phases"]
		if !ok {
			return errorf(path+".phases", "is required: [φ0, φ1], the phases in turns of targets[0] and targets[1]")
		}
		var phases []json.RawMessage
		if json.Unmarshal(raw, &phases) != nil || len(phases) != 2 {
			return errorf(path+".phases", "must be two numbers, the phases in turns of targets[0] and targets[1] (got %s)", short(raw))
		}
		var ph [2]float64
		for k, p := range phases {
			v, err := finite(p)
			if err != nil {
				return errorf(fmt.Sprintf("%s.phases[%d]", path, k), "must be a number, a phase in turns (got %s)", short(p))
			}
			ph[k] = v
		}
		theta, err := c.number(path, op, "angle", "an angle in turns", 0.25)
		if err != nil {
			return err
		}
		if theta < 0 || theta > 0.25 {
			return errorf(path+".angle", "must be from 0 to 0.25 turns (0.25 entangles fully; got %v)", theta)
		}
		m = ms(ph[0], ph[1], theta)
	case "zz":
		theta, err := c.number(path, op, "angle", "an angle in turns", math.NaN())
		if err != nil {
			return err
		}
		m = nativeZZ(theta)
	}
	c.ops = append(c.ops, sim.GateOp(sim.Gate{Name: name, Matrix: m, Targets: targets}))
	return nil
}

// qubitList reads the qubits of key one (a single qubit) or many (a
// list): one of them, not both; want of them (−1: any number), required
// or not.
func (c *compiler) qubitList(path string, op map[string]json.RawMessage, one, many string, want int, required bool) ([]int, error) {
	rawOne, hasOne := op[one]
	rawMany, hasMany := op[many]
	switch {
	case hasOne && hasMany:
		return nil, errorf(path, "has both %q and %q: give one", one, many)
	case !hasOne && !hasMany:
		if !required {
			return nil, nil
		}
		if want == 1 {
			return nil, errorf(path+"."+one, "is required: the qubit the gate acts on")
		}
		return nil, errorf(path+"."+many, "is required: the %d qubits the gate acts on", want)
	}
	var qs []int
	if hasOne {
		q, err := c.qubit(path+"."+one, rawOne)
		if err != nil {
			return nil, err
		}
		qs = []int{q}
	} else {
		var items []json.RawMessage
		if json.Unmarshal(rawMany, &items) != nil {
			return nil, errorf(path+"."+many, "must be a list of qubits (got %s)", short(rawMany))
		}
		if len(items) > c.qubits {
			return nil, errorf(path+"."+many, "lists %d qubits; the circuit has %d", len(items), c.qubits)
		}
		for k, it := range items {
			q, err := c.qubit(fmt.Sprintf("%s.%s[%d]", path, many, k), it)
			if err != nil {
				return nil, err
			}
			qs = append(qs, q)
		}
	}
	if want >= 0 && len(qs) != want {
		if want == 1 {
			return nil, errorf(path+"."+many, "lists %d qubits; the gate acts on one (or give %q)", len(qs), one)
		}
		return nil, errorf(path+"."+many, "lists %d qubits; the gate acts on %d", len(qs), want)
	}
	return qs, nil
}

// qubit reads one qubit index.
func (c *compiler) qubit(path string, raw json.RawMessage) (int, error) {
	q, err := integer(raw)
	if err != nil || q < 0 {
		return 0, errorf(path, "must be a qubit, a non-negative integer (got %s)", short(raw))
	}
	if q >= int64(c.qubits) {
		return 0, errorf(path, "qubit %d is past the circuit's %d qubits (\"qubits\": 0 to %d)", q, c.qubits, c.qubits-1)
	}
	return int(q), nil
}

// number reads a finite number at key, or def when it is absent (NaN: it
// is required).
func (c *compiler) number(path string, op map[string]json.RawMessage, key, what string, def float64) (float64, error) {
	raw, ok := op[key]
	if !ok {
		if math.IsNaN(def) {
			return 0, errorf(path+"."+key, "is required: %s", what)
		}
		return def, nil
	}
	v, err := finite(raw)
	if err != nil {
		return 0, errorf(path+"."+key, "must be a number, %s (got %s)", what, short(raw))
	}
	return v, nil
}

// onlyKeys refuses a key the gate does not take.
func onlyKeys(path, name string, op map[string]json.RawMessage, keys ...string) error {
	for _, k := range sortedKeys(op) {
		if !slices.Contains(keys, k) {
			return errorf(path+"."+k, "%s takes no %q (it takes %s)", name, k, strings.Join(keys[1:], ", "))
		}
	}
	return nil
}

// jsonNumber reads a JSON number, never a string that holds one.
func jsonNumber(raw json.RawMessage) (json.Number, error) {
	if len(raw) > 0 && raw[0] == '"' {
		return "", errors.New("a string")
	}
	var n json.Number
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	err := dec.Decode(&n)
	return n, err
}

func integer(raw json.RawMessage) (int64, error) {
	n, err := jsonNumber(raw)
	if err != nil {
		return 0, err
	}
	return n.Int64()
}

func finite(raw json.RawMessage) (float64, error) {
	n, err := jsonNumber(raw)
	if err != nil {
		return 0, err
	}
	v, err := n.Float64()
	if err == nil && (math.IsInf(v, 0) || math.IsNaN(v)) {
		err = errors.New("not finite")
	}
	return v, err
}

// short is raw for a message, cut to a few dozen bytes.
func short(raw json.RawMessage) string {
	const most = 40
	if len(raw) > most {
		return string(raw[:most]) + "…"
	}
	return string(raw)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
