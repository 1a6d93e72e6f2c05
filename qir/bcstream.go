package qir

import (
	"errors"
	"fmt"
)

// The bitstream container of LLVM bitcode: fixed and variable-width
// fields, blocks with their own abbreviations, and BLOCKINFO's shared
// ones. Every length read from the input is checked against what is left
// before anything is allocated for it.

var errTruncated = errors.New("bitcode: truncated")

type bitReader struct {
	data []byte
	pos  int // in bits
}

func (r *bitReader) left() int { return len(r.data)*8 - r.pos }

func (r *bitReader) fixed(n int) (uint64, error) {
	if n == 0 {
		return 0, nil
	}
	if n > 64 || r.left() < n {
		return 0, errTruncated
	}
	var v uint64
	for i := 0; i < n; {
		byteIdx, bit := r.pos>>3, r.pos&7
		take := min(8-bit, n-i)
		b := uint64(r.data[byteIdx]>>bit) & (1<<take - 1)
		v |= b << i
		i += take
		r.pos += take
	}
	return v, nil
}

func (r *bitReader) vbr(n int) (uint64, error) {
	if n < 2 || n > 32 {
		return 0, fmt.Errorf("bitcode: a VBR width of %d", n)
	}
	var v uint64
	shift := 0
	hi := uint64(1) << (n - 1)
	for {
		c, err := r.fixed(n)
		if err != nil {
			return 0, err
		}
		if shift >= 64 {
			return 0, errors.New("bitcode: a VBR number past 64 bits")
		}
		v |= (c & (hi - 1)) << shift
		if c&hi == 0 {
			return v, nil
		}
		shift += n - 1
	}
}

func (r *bitReader) align32() error {
	p := (r.pos + 31) &^ 31
	if p > len(r.data)*8 {
		return errTruncated
	}
	r.pos = p
	return nil
}

// abbrevOp is one operand of an abbreviation.
type abbrevOp struct {
	kind  uint8 // 0 literal, 1 fixed, 2 vbr, 3 array, 4 char6, 5 blob
	value uint64
}

type abbrev []abbrevOp

// record is one record: its code and operands. blob is set for a record
// with a blob operand.
type record struct {
	code uint64
	ops  []uint64
	blob []byte
}

// Abbreviation ids that are not abbreviations.
const (
	abbrevEndBlock   = 0
	abbrevEnterBlock = 1
	abbrevDefine     = 2
	abbrevUnabbrev   = 3
)

const maxBlockDepth = 64

// maxBlockinfoAbbrevs bounds the abbreviations BLOCKINFO gives a block id:
// every block of that id starts with a copy of them.
const maxBlockinfoAbbrevs = 256

// cursor walks the blocks of a bitstream.
type cursor struct {
	r         *bitReader
	width     int      // abbreviation id width of the current block
	abbrevs   []abbrev // of the current block
	stack     []frameState
	blockinfo map[uint64][]abbrev
}

type frameState struct {
	width   int
	abbrevs []abbrev
	id      uint64
	end     int // bit position where the block ends
}

func newCursor(data []byte) *cursor {
	return &cursor{r: &bitReader{data: data}, width: 2, blockinfo: map[uint64][]abbrev{}}
}

// entry kinds next returns.
const (
	entryRecord = iota
	entryEnter
	entryEnd
	entryEOF
)

// next reads the next entry of the current block: a record (into rec), a
// subblock's start (its id), or the block's end.
func (c *cursor) next(rec *record) (kind int, blockID uint64, err error) {
	for {
		if len(c.stack) == 0 && c.r.left() < c.width {
			return entryEOF, 0, nil
		}
		id, err := c.r.fixed(c.width)
		if err != nil {
			return 0, 0, err
		}
		switch id {
		case abbrevEndBlock:
			if len(c.stack) == 0 {
				return 0, 0, errors.New("bitcode: END_BLOCK outside a block")
			}
			if err := c.r.align32(); err != nil {
				return 0, 0, err
			}
			top := c.stack[len(c.stack)-1]
			c.stack = c.stack[:len(c.stack)-1]
			c.width, c.abbrevs = top.width, top.abbrevs
			return entryEnd, top.id, nil
		case abbrevEnterBlock:
			bid, err := c.r.vbr(8)
			if err != nil {
				return 0, 0, err
			}
			w, err := c.r.vbr(4)
			if err != nil {
				return 0, 0, err
			}
			if err := c.r.align32(); err != nil {
				return 0, 0, err
			}
			words, err := c.r.fixed(32)
			if err != nil {
				return 0, 0, err
			}
			if w < 2 || w > 32 {
				return 0, 0, fmt.Errorf("bitcode: abbreviation width %d", w)
			}
			if words*32 > uint64(c.r.left()) {
				return 0, 0, errTruncated
			}
			if len(c.stack) >= maxBlockDepth {
				return 0, 0, errors.New("bitcode: blocks nested too deep")
			}
			c.stack = append(c.stack, frameState{width: c.width, abbrevs: c.abbrevs, id: bid, end: c.r.pos + int(words)*32})
			c.width = int(w)
			c.abbrevs = append([]abbrev(nil), c.blockinfo[bid]...)
			return entryEnter, bid, nil
		case abbrevDefine:
			a, err := c.readAbbrev()
			if err != nil {
				return 0, 0, err
			}
			c.abbrevs = append(c.abbrevs, a)
		case abbrevUnabbrev:
			code, err := c.r.vbr(6)
			if err != nil {
				return 0, 0, err
			}
			n, err := c.r.vbr(6)
			if err != nil {
				return 0, 0, err
			}
			if n > uint64(c.r.left()) {
				return 0, 0, errTruncated
			}
			rec.code, rec.ops, rec.blob = code, rec.ops[:0], nil
			for range n {
				v, err := c.r.vbr(6)
				if err != nil {
					return 0, 0, err
				}
				rec.ops = append(rec.ops, v)
			}
			return entryRecord, 0, nil
		default:
			i := int(id) - 4
			if i >= len(c.abbrevs) {
				return 0, 0, fmt.Errorf("bitcode: abbreviation %d is not defined", id)
			}
			if err := c.readAbbreviated(c.abbrevs[i], rec); err != nil {
				return 0, 0, err
			}
			return entryRecord, 0, nil
		}
	}
}

func (c *cursor) readAbbrev() (abbrev, error) {
	n, err := c.r.vbr(5)
	if err != nil {
		return nil, err
	}
	if n > uint64(c.r.left()) || n == 0 {
		return nil, errors.New("bitcode: a malformed abbreviation")
	}
	a := make(abbrev, 0, n)
	for i := uint64(0); i < n; i++ {
		lit, err := c.r.fixed(1)
		if err != nil {
			return nil, err
		}
		if lit == 1 {
			v, err := c.r.vbr(8)
			if err != nil {
				return nil, err
			}
			a = append(a, abbrevOp{kind: 0, value: v})
			continue
		}
		enc, err := c.r.fixed(3)
		if err != nil {
			return nil, err
		}
		op := abbrevOp{kind: uint8(enc)}
		switch enc {
		case 1, 2:
			if op.value, err = c.r.vbr(5); err != nil {
				return nil, err
			}
			if op.value > 64 || enc == 2 && op.value < 2 && op.value != 0 {
				return nil, errors.New("bitcode: a malformed abbreviation width")
			}
		case 3:
			// An array's element is the next operand, which must be last.
			if i != n-2 {
				return nil, errors.New("bitcode: an array not second to last in an abbreviation")
			}
		case 4, 5:
			if enc == 5 && i != n-1 {
				return nil, errors.New("bitcode: a blob not last in an abbreviation")
			}
		default:
			return nil, fmt.Errorf("bitcode: abbreviation encoding %d", enc)
		}
		a = append(a, op)
	}
	return a, nil
}

func (c *cursor) scalar(op abbrevOp) (uint64, error) {
	switch op.kind {
	case 0:
		return op.value, nil
	case 1:
		return c.r.fixed(int(op.value))
	case 2:
		if op.value == 0 {
			return 0, nil
		}
		return c.r.vbr(int(op.value))
	case 4:
		v, err := c.r.fixed(6)
		if err != nil {
			return 0, err
		}
		const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._"
		return uint64(chars[v]), nil
	}
	return 0, errors.New("bitcode: an array or blob where a scalar belongs")
}

func (c *cursor) readAbbreviated(a abbrev, rec *record) error {
	rec.ops, rec.blob = rec.ops[:0], nil
	vals := 0
	for i := 0; i < len(a); i++ {
		op := a[i]
		switch op.kind {
		case 3:
			n, err := c.r.vbr(6)
			if err != nil {
				return err
			}
			if n > uint64(c.r.left()) {
				return errTruncated
			}
			elem := a[i+1]
			for range n {
				v, err := c.scalar(elem)
				if err != nil {
					return err
				}
				rec.ops = append(rec.ops, v)
			}
			i++
		case 5:
			n, err := c.r.vbr(6)
			if err != nil {
				return err
			}
			if err := c.r.align32(); err != nil {
				return err
			}
			if n*8 > uint64(c.r.left()) {
				return errTruncated
			}
			start := c.r.pos / 8
			rec.blob = c.r.data[start : start+int(n)]
			c.r.pos += int(n) * 8
			if err := c.r.align32(); err != nil {
				return err
			}
		default:
			v, err := c.scalar(op)
			if err != nil {
				return err
			}
			if vals == 0 {
				rec.code = v
			} else {
				rec.ops = append(rec.ops, v)
			}
			vals++
			continue
		}
		if vals == 0 {
			return errors.New("bitcode: a record without a code")
		}
	}
	if vals == 0 {
		return errors.New("bitcode: a record without a code")
	}
	return nil
}

// skip jumps over the block just entered.
func (c *cursor) skip() error {
	top := c.stack[len(c.stack)-1]
	c.stack = c.stack[:len(c.stack)-1]
	c.width, c.abbrevs = top.width, top.abbrevs
	if top.end > len(c.r.data)*8 {
		return errTruncated
	}
	c.r.pos = top.end
	return nil
}

// readBlockinfo reads the BLOCKINFO block just entered.
func (c *cursor) readBlockinfo() error {
	var rec record
	cur := uint64(0)
	set := false
	depth := len(c.stack)
	for {
		// Abbreviations defined here go to the block SETBID named.
		if len(c.stack) == depth {
			id, err := c.peekDefine()
			if err != nil {
				return err
			}
			if id {
				if !set {
					return errors.New("bitcode: BLOCKINFO abbreviation before SETBID")
				}
				a, err := c.readAbbrev()
				if err != nil {
					return err
				}
				if len(c.blockinfo[cur]) >= maxBlockinfoAbbrevs {
					return errors.New("bitcode: too many abbreviations")
				}
				c.blockinfo[cur] = append(c.blockinfo[cur], a)
				continue
			}
		}
		kind, _, err := c.next(&rec)
		if err != nil {
			return err
		}
		switch kind {
		case entryEnd:
			return nil
		case entryEnter:
			if err := c.skip(); err != nil {
				return err
			}
		case entryRecord:
			if rec.code == 1 && len(rec.ops) > 0 { // SETBID
				cur, set = rec.ops[0], true
			}
		case entryEOF:
			return errTruncated
		}
	}
}

// peekDefine reads the next abbreviation id and reports whether it is
// DEFINE_ABBREV, consuming it if so.
func (c *cursor) peekDefine() (bool, error) {
	save := c.r.pos
	id, err := c.r.fixed(c.width)
	if err != nil {
		return false, err
	}
	if id == abbrevDefine {
		return true, nil
	}
	c.r.pos = save
	return false, nil
}

// eachRecord calls fn for each record of the block just entered, skipping
// its subblocks, until the block ends.
func (c *cursor) eachRecord(fn func(rec *record) error) error {
	var rec record
	for {
		kind, _, err := c.next(&rec)
		if err != nil {
			return err
		}
		switch kind {
		case entryEOF:
			return errTruncated
		case entryEnd:
			return nil
		case entryEnter:
			if err := c.skip(); err != nil {
				return err
			}
		case entryRecord:
			if err := fn(&rec); err != nil {
				return err
			}
		}
	}
}
