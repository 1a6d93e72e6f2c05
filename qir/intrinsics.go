package qir

import (
	"strings"

	"github.com/qjobs/quantum/sim"
)

// The functions of the QIR runtime and quantum instruction set that a
// program may call: the gates of the QIS, measurement, output recording,
// and the runtime's qubit, result, array and string functions. A call to
// any other declared function is refused at compile time, naming it.

type intrinsicKind uint8

const (
	inGate               intrinsicKind = iota + 1 // gate: params doubles, then qubits
	inMz                                          // (qubit, result): measure into a result
	inM                                           // (qubit) → result, or (qubit, result) as mz
	inMResetZ                                     // (qubit, result): measure, then reset
	inReset                                       // (qubit)
	inReadResult                                  // (result) → i1
	inNoop                                        // barrier, initialize, reference counts, messages
	inRecordResult                                // (result, label)
	inRecordHeader                                // (i64, label): array and tuple headers
	inRecordValue                                 // (bool|int|double, label)
	inRecordResultArray                           // (i64 n, ptr to n results, label)
	inQubitAllocate                               // () → qubit
	inQubitRelease                                // (qubit)
	inQubitAllocateArray                          // (i64 n) → array of n qubits
	inQubitReleaseArray                           // (array)
	inArrayElementPtr                             // (array, i64 i) → pointer to element i
	inArraySize                                   // (array) → i64
	inResultEqual                                 // (result, result) → i1
	inResultOne                                   // () → the result that reads 1
	inResultZero                                  // () → the result that reads 0
	inNullString                                  // (…) → a string handle nobody reads
	inFail                                        // (string): the program ends in failure
	inResultAllocate                              // ([ptr]) → a new result
	// QIR 2.1's arrays live in the caller's memory: a count, then a
	// pointer to that many qubit or result pointers.
	inQubitArrayAllocate  // (i64 n, ptr array, [ptr out_err]): n new qubits into array
	inQubitArrayRelease   // (i64 n, ptr array)
	inResultArrayAllocate // (i64 n, ptr array, [ptr out_err]): n new results into array
	inResultArrayRelease  // (i64 n, ptr array)
	inMzArray             // (i64 n, ptr qubits, ptr results): mz of each pair
)

type intrinsic struct {
	kind   intrinsicKind
	gate   string // inGate: sim's name for it
	params int    // inGate: its angles
	qubits int    // inGate
	// std is sim's gate, looked up once when the module is checked rather
	// than by name at every call.
	std *sim.StdGate
}

// qisGates are the QIS gates by their name between __quantum__qis__ and
// __body (or __adj): sim's name, angles, qubits (controls first).
var qisGates = map[string]intrinsic{
	"h": {gate: "h", qubits: 1}, "x": {gate: "x", qubits: 1}, "y": {gate: "y", qubits: 1}, "z": {gate: "z", qubits: 1},
	"s": {gate: "s", qubits: 1}, "s__adj": {gate: "sdg", qubits: 1}, "t": {gate: "t", qubits: 1}, "t__adj": {gate: "tdg", qubits: 1},
	"sx": {gate: "sx", qubits: 1}, "sx__adj": {gate: "sxdg", qubits: 1},
	"rx": {gate: "rx", params: 1, qubits: 1}, "ry": {gate: "ry", params: 1, qubits: 1}, "rz": {gate: "rz", params: 1, qubits: 1},
	"u3": {gate: "u3", params: 3, qubits: 1},
	"cx": {gate: "cx", qubits: 2}, "cnot": {gate: "cx", qubits: 2}, "cy": {gate: "cy", qubits: 2}, "cz": {gate: "cz", qubits: 2},
	"ccx": {gate: "ccx", qubits: 3}, "swap": {gate: "swap", qubits: 2},
	"rxx": {gate: "rxx", params: 1, qubits: 2}, "ryy": {gate: "ryy", params: 1, qubits: 2}, "rzz": {gate: "rzz", params: 1, qubits: 2},
}

// The self-adjoint gates' __adj forms are the gates themselves; rotations'
// are the negated angle, which lookupIntrinsic marks.
var selfAdjoint = map[string]bool{"h": true, "x": true, "y": true, "z": true, "cx": true, "cnot": true, "cy": true, "cz": true, "ccx": true, "swap": true}

var runtimeFuncs = map[string]intrinsicKind{
	"initialize": inNoop, "result_record_output": inRecordResult, "array_record_output": inRecordHeader,
	"tuple_record_output": inRecordHeader, "bool_record_output": inRecordValue, "int_record_output": inRecordValue,
	"double_record_output": inRecordValue, "float_record_output": inRecordValue, "result_array_record_output": inRecordResultArray,
	"qubit_allocate": inQubitAllocate, "result_allocate": inResultAllocate, "qubit_release": inQubitRelease, "qubit_allocate_array": inQubitAllocateArray,
	"qubit_release_array": inQubitReleaseArray, "array_get_element_ptr_1d": inArrayElementPtr, "array_get_size_1d": inArraySize,
	"array_update_alias_count": inNoop, "array_update_reference_count": inNoop, "result_update_reference_count": inNoop,
	"result_release": inNoop, "string_update_reference_count": inNoop, "message": inNoop, "result_equal": inResultEqual,
	"result_get_one": inResultOne, "result_get_zero": inResultZero, "string_create": inNullString,
	"bool_to_string": inNullString, "int_to_string": inNullString, "double_to_string": inNullString,
	"result_to_string": inNullString, "read_result": inReadResult, "fail": inFail,
	"qubit_array_allocate": inQubitArrayAllocate, "qubit_array_release": inQubitArrayRelease,
	"result_array_allocate": inResultArrayAllocate, "result_array_release": inResultArrayRelease,
}

// lookupIntrinsic says what a call to the declared function name does, or
// false when the service does not implement it.
func lookupIntrinsic(name string) (intrinsic, bool) {
	switch {
	case strings.HasPrefix(name, "__quantum__qis__"):
		op := strings.TrimPrefix(name, "__quantum__qis__")
		switch op {
		case "mz__body":
			return intrinsic{kind: inMz}, true
		case "m__body", "measure__body":
			return intrinsic{kind: inM}, true
		case "mresetz__body":
			return intrinsic{kind: inMResetZ}, true
		case "mz_array__body":
			return intrinsic{kind: inMzArray}, true
		case "reset__body":
			return intrinsic{kind: inReset}, true
		case "read_result__body":
			return intrinsic{kind: inReadResult}, true
		case "barrier__body":
			return intrinsic{kind: inNoop}, true
		case "int_record_output__body", "bool_record_output__body", "double_record_output__body":
			return intrinsic{kind: inRecordValue}, true
		case "result_record_output__body":
			return intrinsic{kind: inRecordResult}, true
		}
		var base string
		var adj bool
		switch {
		case strings.HasSuffix(op, "__body"):
			base = strings.TrimSuffix(op, "__body")
		case strings.HasSuffix(op, "__adj"):
			base, adj = strings.TrimSuffix(op, "__adj"), true
		default:
			return intrinsic{}, false
		}
		if adj {
			if g, ok := qisGates[base+"__adj"]; ok {
				g.kind = inGate
				return g, true
			}
			if selfAdjoint[base] {
				g := qisGates[base]
				g.kind = inGate
				return g, true
			}
			return intrinsic{}, false // rotations' adjoints: not written by producers today
		}
		g, ok := qisGates[base]
		g.kind = inGate
		return g, ok
	case strings.HasPrefix(name, "__quantum__rt__"):
		k, ok := runtimeFuncs[strings.TrimPrefix(name, "__quantum__rt__")]
		return intrinsic{kind: k}, ok
	case name == "__quantum__qir__read_result":
		return intrinsic{kind: inReadResult}, true
	}
	return intrinsic{}, false
}
