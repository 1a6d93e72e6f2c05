package qir

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The corpus's bitcode, read and compared with the text it was made from
// (or, for bc-upstream, with llvm-dis's output beside it).

var bcCorpusDirs = []string{"bc-llvm14", "bc-llvm19", "bc-upstream"}

// bcCorpus lists the corpus's .bc files with the text each was made from.
func bcCorpus(t testing.TB) (bcs, lls []string) {
	t.Helper()
	for _, dir := range bcCorpusDirs {
		fs, _ := filepath.Glob(filepath.Join(corpusDir, dir, "*.bc"))
		for _, f := range fs {
			ll := filepath.Join(corpusDir, strings.TrimSuffix(filepath.Base(f), ".bc")+".ll")
			if dir == "bc-upstream" {
				ll = strings.TrimSuffix(f, ".bc") + ".dis.ll"
			}
			bcs, lls = append(bcs, f), append(lls, ll)
		}
	}
	if len(bcs) == 0 {
		t.Fatalf("no bitcode in %s", corpusDir)
	}
	return bcs, lls
}

func readBC(t testing.TB, path string) *module {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := readBitcode(raw)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// llFunc is what the line-based reading of LLVM text gives of a defined
// function.
type llFunc struct {
	name    string
	entry   bool   // "entry_point" (or "EntryPoint", before QIR 1.0)
	profile string // "qir_profiles"
	blocks  int
	ops     []string // opcodes, "call @callee" for calls
}

var (
	llDefine = regexp.MustCompile(`^define\b.*?@("[^"]+"|[\w.$-]+)\(`)
	llLabel  = regexp.MustCompile(`^("[^"]+"|[\w.$-]+):`)
	llGroup  = regexp.MustCompile(`#(\d+)`)
	llAttrs  = regexp.MustCompile(`^attributes #(\d+) = \{(.*)\}`)
	llStrAtt = regexp.MustCompile(`"([^"]+)"(?:="([^"]*)")?`)
	llCallee = regexp.MustCompile(`@("[^"]+"|[\w.$-]+)\s*\(`)
)

// llFuncs reads the defined functions of LLVM text line by line: enough
// for the corpus, which is regular (one instruction a line, switch cases
// on lines of their own).
func llFuncs(t *testing.T, path string) []llFunc {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var (
		fs     []llFunc
		groups [][]string // the groups of each function
		cur    *llFunc
		inCase bool
	)
	attrs := map[string]map[string]string{}
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(stripComment(line))
		if m := llAttrs.FindStringSubmatch(line); m != nil {
			a := map[string]string{}
			for _, s := range llStrAtt.FindAllStringSubmatch(m[2], -1) {
				a[s[1]] = s[2]
			}
			attrs[m[1]] = a
			continue
		}
		if cur == nil {
			if m := llDefine.FindStringSubmatch(line); m != nil {
				fs = append(fs, llFunc{name: strings.Trim(m[1], `"`)})
				cur = &fs[len(fs)-1]
				rest := line[strings.LastIndex(line, ")"):]
				var gs []string
				for _, g := range llGroup.FindAllStringSubmatch(rest, -1) {
					gs = append(gs, g[1])
				}
				groups = append(groups, gs)
			}
			continue
		}
		switch {
		case line == "":
		case line == "}":
			cur = nil
		case inCase:
			inCase = !strings.HasPrefix(line, "]")
		case llLabel.MatchString(line):
			cur.blocks++
		default:
			if cur.blocks == 0 { // an entry block without a label
				cur.blocks = 1
			}
			words := strings.Fields(line)
			if len(words) > 2 && words[1] == "=" {
				words = words[2:]
			}
			for len(words) > 1 && (words[0] == "tail" || words[0] == "musttail" || words[0] == "notail") {
				words = words[1:]
			}
			op := words[0]
			if op == "call" {
				op = "call @" + strings.Trim(llCallee.FindStringSubmatch(line)[1], `"`)
			}
			if op == "switch" && !strings.Contains(line, "]") {
				inCase = true
			}
			cur.ops = append(cur.ops, op)
		}
	}
	for i := range fs {
		for _, g := range groups[i] {
			for k, v := range attrs[g] {
				switch k {
				case "entry_point", "EntryPoint":
					fs[i].entry = true
				case "qir_profiles":
					fs[i].profile = v
				}
			}
		}
	}
	return fs
}

// stripComment drops a ; comment outside quotes.
func stripComment(line string) string {
	quoted := false
	for i, c := range line {
		switch {
		case c == '"':
			quoted = !quoted
		case c == ';' && !quoted:
			return line[:i]
		}
	}
	return line
}

// bcOpNames are LLVM's names of the opcodes.
var bcOpNames = map[opcode]string{
	opRet: "ret", opBr: "br", opSwitch: "switch", opUnreachable: "unreachable",
	opAdd: "add", opSub: "sub", opMul: "mul", opUDiv: "udiv", opSDiv: "sdiv", opURem: "urem",
	opSRem: "srem", opShl: "shl", opLShr: "lshr", opAShr: "ashr", opAnd: "and", opOr: "or",
	opXor: "xor", opFAdd: "fadd", opFSub: "fsub", opFMul: "fmul", opFDiv: "fdiv", opFRem: "frem",
	opFNeg: "fneg", opTrunc: "trunc", opZExt: "zext", opSExt: "sext", opFPToUI: "fptoui",
	opFPToSI: "fptosi", opUIToFP: "uitofp", opSIToFP: "sitofp", opFPTrunc: "fptrunc",
	opFPExt: "fpext", opPtrToInt: "ptrtoint", opIntToPtr: "inttoptr", opBitcast: "bitcast",
	opAddrSpaceCast: "addrspacecast", opICmp: "icmp", opFCmp: "fcmp", opPhi: "phi",
	opSelect: "select", opCall: "call", opAlloca: "alloca", opLoad: "load", opStore: "store",
	opGEP: "getelementptr", opFreeze: "freeze", opExtractValue: "extractvalue",
	opInsertValue: "insertvalue",
}

// bcOps is what llFuncs gives, from the module.
func bcFuncOps(t *testing.T, f *function) []string {
	t.Helper()
	var ops []string
	for _, b := range f.blocks {
		for _, in := range b.insts {
			op := bcOpNames[in.op]
			if in.op == opCall {
				if in.callee == nil || in.callee.kind != vFunc {
					t.Fatalf("@%s: a call of %+v", f.name, in.callee)
				}
				op += " @" + in.callee.fn.name
			}
			ops = append(ops, op)
		}
	}
	return ops
}

func TestBitcodeCorpusMatchesText(t *testing.T) {
	bcs, lls := bcCorpus(t)
	for i, path := range bcs {
		name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			m := readBC(t, path)
			want := llFuncs(t, lls[i])
			var got []*function
			for _, f := range m.funcs {
				if f.blocks != nil {
					got = append(got, f)
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%d defined functions, the text has %d", len(got), len(want))
			}
			for j, w := range want {
				f := got[j]
				_, entry := f.attrs["entry_point"]
				if _, old := f.attrs["EntryPoint"]; old {
					entry = true
				}
				switch {
				case f.name != w.name:
					t.Errorf("function %d is @%s, the text's @%s", j, f.name, w.name)
				case entry != w.entry || f.attrs["qir_profiles"] != w.profile:
					t.Errorf("@%s: attributes %v, the text: entry point %v, profile %q", f.name, f.attrs, w.entry, w.profile)
				case len(f.blocks) != w.blocks:
					t.Errorf("@%s: %d blocks, the text has %d", f.name, len(f.blocks), w.blocks)
				case strings.Join(bcFuncOps(t, f), "; ") != strings.Join(w.ops, "; "):
					t.Errorf("@%s:\n got %s\nwant %s", f.name, strings.Join(bcFuncOps(t, f), "; "), strings.Join(w.ops, "; "))
				}
				bcCheckFrame(t, f)
			}
		})
	}
}

// bcCheckFrame checks the frame contract: results take the slots after
// the parameters in order, void results none, and every local operand is
// a slot of the frame.
func bcCheckFrame(t *testing.T, f *function) {
	t.Helper()
	next := len(f.ty.params)
	for _, b := range f.blocks {
		for _, in := range b.insts {
			for _, a := range append(append([]*value{}, in.args...), in.callee) {
				if a != nil && a.kind == vLocal && (a.slot < 0 || a.slot >= f.nslots || a.ty == nil) {
					t.Errorf("@%s: %s with operand slot %d of %d", f.name, bcOpNames[in.op], a.slot, f.nslots)
				}
			}
			if in.ty == nil || in.ty.kind == tyVoid {
				if in.dst != -1 {
					t.Errorf("@%s: a void %s in slot %d", f.name, bcOpNames[in.op], in.dst)
				}
				continue
			}
			if in.dst != next {
				t.Errorf("@%s: %s in slot %d, want %d", f.name, bcOpNames[in.op], in.dst, next)
			}
			next++
		}
	}
	if next != f.nslots {
		t.Errorf("@%s: %d slots, want %d", f.name, f.nslots, next)
	}
}

// firstCall is the first call of callee in the module's entry point.
func firstCall(t *testing.T, m *module, callee string) *inst {
	t.Helper()
	for _, f := range m.funcs {
		for _, b := range f.blocks {
			for _, in := range b.insts {
				if in.op == opCall && in.callee.kind == vFunc && in.callee.fn.name == callee {
					return in
				}
			}
		}
	}
	t.Fatalf("no call of @%s", callee)
	return nil
}

// isIntToPtr says v is inttoptr (i64 n to ...); llvm-as folds n = 0 to null.
func isIntToPtr(v *value, n int64) bool {
	if n == 0 && v.kind == vNull {
		return true
	}
	return v.kind == vExpr && v.op == opIntToPtr && len(v.args) == 1 && v.args[0].kind == vInt && v.args[0].i == n && v.ty.kind == tyPtr
}

func TestBitcodeConstants(t *testing.T) {
	if _, err := os.Stat(corpusDir); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"bc-llvm14", "bc-llvm19"} {
		t.Run(dir, func(t *testing.T) {
			bc := func(name string) *module { return readBC(t, filepath.Join(corpusDir, dir, name+".bc")) }

			m := bc("qsharp_IntrinsicRotationsWithPeriod")
			rx := firstCall(t, m, "__quantum__qis__rx__body")
			if a := rx.args; len(a) != 2 || a[0].kind != vFloat || a[0].f != math.Pi/2 || a[0].ty.bits != 64 || !isIntToPtr(a[1], 0) {
				t.Errorf("rx's operands: %+v %+v", a[0], a[1])
			}
			ry := firstCall(t, m, "__quantum__qis__ry__body")
			if !isIntToPtr(ry.args[1], 2) {
				t.Errorf("ry's qubit: %+v", ry.args[1])
			}

			m = bc("pyqir_switch_instr")
			f := m.function("ENTRYPOINT__main")
			sw := f.blocks[0].insts[1]
			if sw.op != opSwitch || len(sw.targets) != 4 || len(sw.consts) != 3 || sw.consts[0] != 0 || sw.consts[2] != 2 ||
				sw.targets[0] != f.blocks[4] || sw.targets[2] != f.blocks[2] || sw.args[0].kind != vLocal || sw.args[0].slot != 0 {
				t.Errorf("switch: %+v", sw)
			}

			m = bc("pyqir_test_phi_add")
			f = m.function("main")
			phi := f.blocks[2].insts[0]
			if phi.op != opPhi || phi.dst != 0 || len(phi.args) != 2 || phi.args[0].i != 2 || phi.args[1].i != 3 ||
				phi.targets[0] != f.blocks[0] || phi.targets[1] != f.blocks[1] || phi.ty.bits != 32 {
				t.Errorf("phi: %+v", phi)
			}
			if add := f.blocks[2].insts[1]; add.op != opAdd || add.dst != 1 || add.args[0].kind != vLocal || add.args[0].slot != 0 || add.args[1].i != 1 {
				t.Errorf("add: %+v", add)
			}
			if br := f.blocks[0].insts[0]; br.op != opBr || len(br.args) != 1 || br.args[0].kind != vInt || br.args[0].i != -1 || br.targets[0] != f.blocks[1] {
				t.Errorf("br: %+v", br)
			}
			if f.attrs["required_num_qubits"] != "1" || f.attrs["qir_profiles"] != "custom" {
				t.Errorf("attributes %v", f.attrs)
			}

			m = bc("qdk_v2_RUS")
			g := m.globals[1]
			if g.name != "1" || !g.constant || g.init == nil || string(g.init.bytes) != "1_a0r\x00" || g.ty.kind != tyArray || g.ty.n != 6 {
				t.Errorf("global @1: %+v", g)
			}
		})
	}
	// Typed pointers: the pointee types stay.
	m := readBC(t, filepath.Join(corpusDir, "bc-llvm14", "qirspec_base_profile_typed.bc"))
	h := firstCall(t, m, "__quantum__qis__h__body")
	if q := h.args[0]; q.kind != vNull || q.ty.kind != tyPtr || q.ty.elem == nil || q.ty.elem.kind != tyOpaque || q.ty.elem.name != "Qubit" {
		t.Errorf("h's qubit: %+v of %+v", q, q.ty)
	}
	rec := firstCall(t, m, "__quantum__rt__result_record_output")
	if l := rec.args[1]; l.kind != vExpr || l.op != opGEP || l.elemTy.kind != tyArray || len(l.args) != 3 || l.args[0].kind != vGlobal {
		t.Errorf("a label: %+v", l)
	}
}

// A wrapper header around the bitcode reads the same.
func TestBitcodeWrapper(t *testing.T) {
	bcs, _ := bcCorpus(t)
	raw, err := os.ReadFile(bcs[0])
	if err != nil {
		t.Fatal(err)
	}
	w := []byte{0xDE, 0xC0, 0x17, 0x0B, 0, 0, 0, 0, 20, 0, 0, 0, byte(len(raw)), byte(len(raw) >> 8), byte(len(raw) >> 16), 0, 7, 0, 0, 1}
	m, err := readBitcode(append(append(w, raw...), 0, 0, 0, 0))
	if err != nil || len(m.funcs) != len(readBC(t, bcs[0]).funcs) {
		t.Fatalf("wrapped: %v", err)
	}
}

// Every prefix of a module is an *Error, not a panic nor a module.
func TestBitcodeTruncated(t *testing.T) {
	bcs, _ := bcCorpus(t)
	for i, path := range bcs {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		step := 1
		if i > 0 {
			step = 13 // every length of the first file, some of the others
		}
		for n := 0; n < len(raw); n += step {
			_, err := readBitcode(raw[:n])
			var e *Error
			if !errors.As(err, &e) || e.Msg == "" {
				t.Fatalf("%s[:%d] of %d: %v", path, n, len(raw), err)
			}
		}
	}
}

func TestBitcodeNotBitcode(t *testing.T) {
	for _, data := range []string{"", "BC", "BC\xc0", "\x00\x00\x00\x00", "BC\xc0\xde", "BC\xc0\xde\x35\x14\x00\x00",
		"\xde\xc0\x17\x0b\x00\x00\x00\x00\xff\xff\x00\x00\x10\x00\x00\x00\x00\x00\x00\x00"} {
		_, err := readBitcode([]byte(data))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: %v", data, err)
		}
	}
	if _, err := readBitcode([]byte("; ModuleID")); err == nil || err.Error() != "not LLVM bitcode (no 'BC' 0xC0DE magic)" {
		t.Errorf("text: %v", err)
	}
}

// checkReadModule fails t if a module read without an error has a
// function that is not one, a nil block or target, or an operand outside
// its frame: what the check and the interpreter rely on.
func checkReadModule(t *testing.T, m *module) {
	t.Helper()
	for _, fn := range m.funcs {
		if fn.ty == nil || fn.ty.kind != tyFunc {
			t.Fatalf("@%s of type %+v", fn.name, fn.ty)
		}
		for _, b := range fn.blocks {
			if b == nil {
				t.Fatalf("@%s: a nil block", fn.name)
			}
			for _, in := range b.insts {
				for _, tb := range in.targets {
					if tb == nil {
						t.Fatalf("@%s: a nil target", fn.name)
					}
				}
				for _, a := range in.args {
					if a == nil || (a.kind == vLocal && (a.slot < 0 || a.slot >= fn.nslots)) {
						t.Fatalf("@%s: operand %+v, %d slots", fn.name, a, fn.nslots)
					}
				}
			}
		}
	}
}

// Block ids, record codes and fixed abbreviation ids of LLVM's bitcode,
// as bcWriter writes them (the reader keeps its own).
const (
	wBcConstantsBlock  = 11
	wBcCstAggregate    = 7
	wBcCstInteger      = 4
	wBcCstSetType      = 1
	wBcFnBinop         = 2
	wBcFnBr            = 11
	wBcFnDeclareBlocks = 1
	wBcFnPhi           = 16
	wBcFnRet           = 10
	wBcFunctionBlock   = 12
	wBcModFunction     = 8
	wBcModVersion      = 1
	wBcModuleBlock     = 8
	wBcTypeArray       = 11
	wBcTypeBlock       = 17
	wBcTypeFunction    = 21
	wBcTypeInteger     = 7
	wBcTypePointer     = 8
	wBcTypeStructAnon  = 18
	wBcTypeStructName  = 19
	wBcTypeStructNamed = 20
	wBcTypeVector      = 12
	wBcTypeVoid        = 2
	wBsEndBlock        = 0
	wBsEnterBlock      = 1
	wBsUnabbrev        = 3
)

// bcWriter writes a bitstream by hand, for inputs no producer writes:
// unabbreviated records only, abbreviation ids 4 bits wide in blocks.
type bcWriter struct {
	bits  []byte // one bit a byte, packed by bytes()
	width []int  // the abbreviation width of each open block
	lenAt []int  // where each open block's length word is
}

func (w *bcWriter) fixed(v uint64, n int) {
	for i := range n {
		w.bits = append(w.bits, byte(v>>i&1))
	}
}

func (w *bcWriter) vbr(v uint64, n int) {
	hi := uint64(1) << (n - 1)
	for ; v >= hi; v >>= n - 1 {
		w.fixed(v&(hi-1)|hi, n)
	}
	w.fixed(v, n)
}

func (w *bcWriter) align() {
	for len(w.bits)%32 != 0 {
		w.bits = append(w.bits, 0)
	}
}

func (w *bcWriter) cur() int {
	if len(w.width) == 0 {
		return 2
	}
	return w.width[len(w.width)-1]
}

func (w *bcWriter) enter(id uint64) {
	w.fixed(wBsEnterBlock, w.cur())
	w.vbr(id, 8)
	w.vbr(4, 4)
	w.align()
	w.lenAt = append(w.lenAt, len(w.bits))
	w.fixed(0, 32)
	w.width = append(w.width, 4)
}

func (w *bcWriter) end() {
	w.fixed(wBsEndBlock, w.cur())
	w.align()
	at := w.lenAt[len(w.lenAt)-1]
	n := uint64(len(w.bits)-at-32) / 32
	for i := range 32 {
		w.bits[at+i] = byte(n >> i & 1)
	}
	w.lenAt, w.width = w.lenAt[:len(w.lenAt)-1], w.width[:len(w.width)-1]
}

func (w *bcWriter) rec(code uint64, ops ...uint64) {
	w.fixed(wBsUnabbrev, w.cur())
	w.vbr(code, 6)
	w.vbr(uint64(len(ops)), 6)
	for _, o := range ops {
		w.vbr(o, 6)
	}
}

func (w *bcWriter) bytes() []byte {
	w.align()
	out := []byte("BC\xC0\xDE")
	for i := 0; i < len(w.bits); i += 8 {
		var b byte
		for j := range 8 {
			b |= w.bits[i+j] << j
		}
		out = append(out, b)
	}
	return out
}

// bcCrafted is a module (version 1: no string table) with the type table
// types writes and then what rest writes.
func bcCrafted(types, rest func(w *bcWriter)) []byte {
	w := &bcWriter{}
	w.enter(wBcModuleBlock)
	w.rec(wBcModVersion, 2)
	w.enter(wBcTypeBlock)
	types(w)
	w.end()
	rest(w)
	w.end()
	return w.bytes()
}

// Types 0: void, 1: void (), 2: i32, and a function @0 of type 1 whose
// body body writes after DECLAREBLOCKS.
func bcCraftedFunc(nblocks uint64, body func(w *bcWriter)) []byte {
	return bcCrafted(func(w *bcWriter) {
		w.rec(wBcTypeVoid)
		w.rec(wBcTypeFunction, 0, 0)
		w.rec(wBcTypeInteger, 32)
	}, func(w *bcWriter) {
		w.rec(wBcModFunction, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0)
		w.enter(wBcFunctionBlock)
		w.rec(wBcFnDeclareBlocks, nblocks)
		body(w)
		w.end()
	})
}

func TestBitcodeCrafted(t *testing.T) {
	noBody := func(*bcWriter) {}
	deepArrays := func(w *bcWriter) {
		w.rec(wBcTypeInteger, 8)
		for i := range uint64(40) {
			w.rec(wBcTypeArray, 2, i)
		}
	}
	nested := func(w *bcWriter) { // 10000 blocks in blocks, passed over
		for range 10000 {
			w.enter(99)
		}
		for range 10000 {
			w.end()
		}
	}
	tests := []struct {
		name string
		data []byte
		err  string // "" when it reads
	}{
		{"minimal", bcCraftedFunc(1, func(w *bcWriter) { w.rec(wBcFnRet) }), ""},
		{"struct holding itself", bcCrafted(func(w *bcWriter) {
			w.rec(wBcTypeStructName, 'S')
			w.rec(wBcTypeStructNamed, 0, 0)
		}, noBody), ""}, // harmless unless laid out, where layout refuses it
		{"struct holding a pointer to itself", bcCrafted(func(w *bcWriter) {
			w.rec(wBcTypeStructName, 'S')
			w.rec(wBcTypeStructNamed, 0, 1)
			w.rec(wBcTypePointer, 0, 0)
		}, noBody), ""},
		{"pointer to itself", bcCrafted(func(w *bcWriter) { w.rec(wBcTypePointer, 0, 0) }, noBody), ""},
		{"type out of range", bcCrafted(func(w *bcWriter) { w.rec(wBcTypePointer, 7, 0) }, noBody), "bitcode: a type used but not defined"},
		{"vector", bcCrafted(func(w *bcWriter) {
			w.rec(wBcTypeInteger, 32)
			w.rec(wBcTypeVector, 4, 0)
		}, noBody), "unsupported type: vectors"},
		{"i128", bcCrafted(func(w *bcWriter) { w.rec(wBcTypeInteger, 128) }, noBody), "unsupported type: integers of 1 to 64 bits only"},
		{"x86_fp80", bcCrafted(func(w *bcWriter) { w.rec(13) }, noBody), "unsupported type (type code 13)"},
		{"arrays 40 deep", bcCrafted(deepArrays, noBody), ""},
		{"constant holding itself", bcCrafted(func(w *bcWriter) {
			w.rec(wBcTypeInteger, 32)
			w.rec(wBcTypeStructAnon, 0, 0)
		}, func(w *bcWriter) {
			w.enter(wBcConstantsBlock)
			w.rec(wBcCstSetType, 1)
			w.rec(wBcCstAggregate, 0)
			w.end()
		}), ""},
		{"blocks nested 10000 deep", bcCrafted(func(w *bcWriter) {}, nested), ""},
		{"a record of 2^40 operands", bcCrafted(func(w *bcWriter) {
			w.fixed(wBsUnabbrev, 4)
			w.vbr(wBcTypeInteger, 6)
			w.vbr(1<<40, 6)
		}, noBody), "bitcode: truncated"},
		{"2^40 blocks", bcCraftedFunc(1<<40, noBody), "in function @0: bitcode: a malformed DECLAREBLOCKS"},
		{"a phi of a value never defined", bcCraftedFunc(1, func(w *bcWriter) {
			w.rec(wBcFnPhi, 2, 11, 0) // i32 [ %(id + 5), %0 ]: 11 is -5 sign-rotated
			w.rec(wBcFnRet)
		}), "in function @0: bitcode: a reference to a value that is never defined"},
		{"an instruction past the last block", bcCraftedFunc(1, func(w *bcWriter) {
			w.rec(wBcFnRet)
			w.rec(wBcFnRet)
		}), "in function @0: bitcode: an instruction past the declared blocks"},
		{"a block without a terminator", bcCraftedFunc(2, func(w *bcWriter) { w.rec(wBcFnRet) }), "in function @0: bitcode: a declared block without instructions"},
		{"a branch out of range", bcCraftedFunc(1, func(w *bcWriter) { w.rec(wBcFnBr, 3) }), "in function @0: bitcode: block 3 of 1"},
		{"fence", bcCraftedFunc(1, func(w *bcWriter) { w.rec(36, 0, 0) }), `in function @0: unsupported instruction "fence"`},
		{"invoke", bcCraftedFunc(1, func(w *bcWriter) { w.rec(13, 0, 0) }), `in function @0: unsupported instruction "invoke"`},
		{"va_arg", bcCraftedFunc(1, func(w *bcWriter) { w.rec(23, 0, 0) }), `in function @0: unsupported instruction "va_arg"`},
		{"shufflevector", bcCraftedFunc(1, func(w *bcWriter) { w.rec(8, 0, 0) }), `in function @0: unsupported instruction "shufflevector"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := readBitcode(tt.data)
			var e *Error
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("error %v", err)
			case tt.err == "" && m == nil:
				t.Fatal("no module")
			case tt.err != "" && (!errors.As(err, &e) || err.Error() != tt.err):
				t.Fatalf("error %v, want %s", err, tt.err)
			}
		})
	}
}

// Inside a function, value ids count the parameters before the
// function's constants (as LLVM's ValueEnumerator numbers them):
// i64 @0(i64 %a) { %r = add i64 %a, 7; ret i64 %r }.
func TestBitcodeParamsThenConstants(t *testing.T) {
	data := bcCrafted(func(w *bcWriter) {
		w.rec(wBcTypeVoid)
		w.rec(wBcTypeInteger, 64)
		w.rec(wBcTypeFunction, 0, 1, 1)
	}, func(w *bcWriter) {
		w.rec(wBcModFunction, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0)
		w.enter(wBcFunctionBlock)
		w.rec(wBcFnDeclareBlocks, 1)
		w.enter(wBcConstantsBlock)
		w.rec(wBcCstSetType, 1)
		w.rec(wBcCstInteger, 14) // 7, sign-rotated: value id 2
		w.end()
		w.rec(wBcFnBinop, 2, 1, 0) // ids 3-2 = 1 (%a) and 3-1 = 2 (7)
		w.rec(wBcFnRet, 1)         // id 4-1 = 3 (%r)
		w.end()
	})
	m, err := readBitcode(data)
	if err != nil {
		t.Fatal(err)
	}
	f := m.funcs[0]
	add, ret := f.blocks[0].insts[0], f.blocks[0].insts[1]
	if f.nslots != 2 || add.op != opAdd || add.dst != 1 || add.args[0].kind != vLocal || add.args[0].slot != 0 ||
		add.args[1].kind != vInt || add.args[1].i != 7 || ret.args[0].kind != vLocal || ret.args[0].slot != 1 || ret.dst != -1 {
		t.Fatalf("%d slots, %+v, %+v", f.nslots, add, ret)
	}
}
