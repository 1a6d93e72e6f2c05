// Package ionq compiles IonQ's JSON circuits (format ionq.circuit.v0) to
// sim's circuit IR (decisions.md, "Every program format the public client
// sends").
//
// A program is {"qubits": N, "circuit": [op, …], "gateset": "qis" |
// "native", "format": "ionq.circuit.v0"}, gateset and format optional
// (qis is the default). A QIS op is {"gate", "target" | "targets",
// "control" | "controls", "rotation"}: the gates x y z h s si t ti v vi
// (v is √X) rx ry rz (rotation in radians) swap not cnot, the public
// client's cx cy cz crx cry crz ch ccnot cs csi ct cti cv cvi id, and
// xx yy zz (rotations about XX, YY, ZZ); any of them may take up to seven
// controls. A native op is gpi(phase), gpi2(phase), ms(phases [φ0, φ1],
// angle 0 to 0.25, 0.25 unless given) or zz(angle), phases and angles in
// turns, with IonQ's matrices: φ0 of ms belongs to targets[0]. Native and
// QIS gates do not mix in one circuit.
//
// There is no measurement op: every qubit is measured at the end, and
// the counts' keys have N bits, qubit 0 rightmost. A program of several
// circuits ("circuits") is refused: each is a job of a batch.
//
// Every error is an *Error naming the JSON path it is about
// (circuit[3].target) and the rule.
package ionq
