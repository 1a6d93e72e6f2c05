package quil

import (
	"github.com/qjobs/quantum/sim"
)

// memType is the type of a region of classical memory.
type memType uint8

const (
	memBit memType = iota + 1
	memOctet
	memInteger
	memReal
)

var memTypes = map[string]memType{"BIT": memBit, "OCTET": memOctet, "INTEGER": memInteger, "REAL": memReal}

// width is how many classical bits a cell of the type takes: none for
// REAL, which is known while the program compiles.
func (t memType) width() int {
	switch t {
	case memBit:
		return 1
	case memOctet:
		return 8
	case memInteger:
		return 64
	}
	return 0
}

func (t memType) String() string {
	for name, m := range memTypes {
		if m == t {
			return name
		}
	}
	return "?"
}

// region is a DECLAREd region: its cells are bits offset + w·i … of the
// circuit (w its width), or, for REAL, values known at compile time.
type region struct {
	name   string
	typ    memType
	length int64
	offset int
	line   int32
	// A REAL region's values, and whether each is known here.
	values []float64
	known  []bool
}

// maxMemoryBits bounds the classical bits of all regions: sim's bound.
const maxMemoryBits = sim.MaxClbits

// layout gives the regions their bits: ro first (the counts' bits), then
// the other BIT regions, then OCTET and INTEGER ones, each in declaration
// order. It returns the bits in all and the bits the counts read: ro's,
// or without it every BIT region's.
func layout(regions []*region) (total, result int) {
	place := func(r *region) {
		r.offset = total
		total += int(r.length) * r.typ.width()
	}
	for _, r := range regions {
		if r.name == "ro" {
			place(r)
			result = total
		}
	}
	for _, r := range regions {
		if r.name != "ro" && r.typ == memBit {
			place(r)
			if !hasRegion(regions, "ro") {
				result = total
			}
		}
	}
	for _, r := range regions {
		if r.typ == memOctet || r.typ == memInteger {
			if r.name != "ro" {
				place(r)
			}
		}
	}
	return total, result
}

func hasRegion(regions []*region, name string) bool {
	for _, r := range regions {
		if r.name == name {
			return true
		}
	}
	return false
}

// cellBits are the bits of cell i of r, lowest first.
func (r *region) cellBits(i int64) []int {
	w := r.typ.width()
	bits := make([]int, w)
	for k := range bits {
		bits[k] = r.offset + int(i)*w + k
	}
	return bits
}
