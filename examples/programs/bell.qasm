// A Bell pair: qubits 0 and 1 always measure alike, 00 or 11 about half
// the time each. OpenQASM 2.0, as Qiskit and QASMBench write it.
OPENQASM 2.0;
include "qelib1.inc";
qreg q[2];
creg c[2];
h q[0];
cx q[0], q[1];
measure q -> c;
