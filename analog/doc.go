// Package analog runs the jobs of analog neutral-atom devices: programs
// of the format analog (a Braket analog Hamiltonian simulation program,
// as the public client sends it or as Braket's IR) on an emulated QuEra
// Aquila, and of the format pulser.sequence (Pulser's abstract
// representation) on Pasqal's emulator. It decodes and checks each
// program against its format's rules and its device's limits, naming the
// JSON path of what it refuses; simulates it on package rydberg within
// the memory budget and the work bound; and reads the shots out as each
// device reports them (decisions.md, "Every program format the public
// client sends").
//
// Its devices (Devices) and Backend join the built-in catalogue as a
// devices.Family.
package analog
