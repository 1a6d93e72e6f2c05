package qtype

import (
	"bytes"
	"encoding/json"
	"slices"
)

// The program formats the public client sends (decisions.md, "Every
// program format the public client sends"), each with the paradigm of
// its jobs, the name a device's RunInputTypes gives it, and whether its
// data is JSON.
var formats = map[string]struct {
	paradigm, inputType string
	json                bool
}{
	"qasm2":           {"gate_model", "qasm2", false},
	"qasm3":           {"gate_model", "qasm3", false},
	"qir.bc":          {"gate_model", "qir.bc", false},
	"qir.ll":          {"gate_model", "qir.ll", false},
	"pyqir":           {"gate_model", "pyqir", false},
	"quil":            {"gate_model", "pyquil", false},
	"ionq.circuit.v0": {"gate_model", "ionq", true},
	"analog":          {"analog", "braket_ahs", true},
	"pulser.sequence": {"analog", "pulser", true},
	"problem":         {"annealing", "qubo", true},
}

// ExperimentType is the experimentType of a job whose program is of the
// format: gate_model, analog or annealing (gate_model for a format of a
// device of one's own).
func ExperimentType(format string) string {
	if f, ok := formats[format]; ok {
		return f.paradigm
	}
	return "gate_model"
}

// IsJSONFormat reports whether a program of the format is JSON: its data
// may arrive as a JSON string or as the object itself, and is answered
// as the object.
func IsJSONFormat(format string) bool { return formats[format].json }

// DeviceTakes reports whether a device whose RunInputTypes are types
// takes a program of the format: it lists the format itself, or the
// public service's name for it (pyquil for quil, ionq for
// ionq.circuit.v0, braket_ahs for analog, pulser for pulser.sequence,
// qubo for problem).
func DeviceTakes(types []string, format string) bool {
	if slices.Contains(types, format) {
		return true
	}
	f, ok := formats[format]
	return ok && slices.Contains(types, f.inputType)
}

// CompactJSON is the text of a JSON value with its insignificant spaces
// taken out, as a program of a JSON format is kept; ok is false for text
// that is not one JSON value.
func CompactJSON(data []byte) (string, bool) {
	var b bytes.Buffer
	if err := json.Compact(&b, data); err != nil {
		return "", false
	}
	return b.String(), true
}
