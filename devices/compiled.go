package devices

import (
	"container/list"
	"encoding/json"
	"hash/maphash"
	"slices"
	"sync"

	"github.com/qjobs/quantum/qtype"
)

// compiledCache keeps small OpenQASM programs as compiled, by what their
// compile depends on, so that a program is compiled once: at create, and
// not again for its run, nor for the next job that sends the same text
// (a test suite's Bell pair, a sweep's repeated circuit). A compiled
// program is shared by every job that finds it, read-only: each job
// copies the program's small header and sets its own options on the
// copy (Simulator.compile). The least recently used go when the cache is
// full; a job that finds nothing compiles, as it always could.
type compiledCache struct {
	seed  maphash.Seed
	mu    sync.Mutex
	byKey map[uint64][]*list.Element // by the hash of a compileKey
	order *list.List                 // of *cachedProgram, least recently used first
	ops   int                        // of the programs kept
	text  int                        // bytes of their texts
}

// compileKey is what a compile depends on: the text and its format, the
// device's qubit limit, and the OpenQASM 3 inputs (the runtime options
// that are not the service's own, as JSON with sorted keys).
type compileKey struct {
	format, data, inputs string
	limit                int
}

type cachedProgram struct {
	key  compileKey
	hash uint64
	p    *program
}

// Bounds: programs of at most cacheMaxOps operations and cacheMaxText
// bytes of text, at most cacheEntries of them (a whole batch of small
// circuits), at most cacheOps operations (56 bytes each: about 56 MiB)
// and cacheTextBytes of text in all.
const (
	cacheMaxOps    = 4096
	cacheEntries   = 4096
	cacheOps       = 1 << 20
	cacheMaxText   = 256 << 10
	cacheTextBytes = 32 << 20
)

func newCompiledCache() *compiledCache {
	return &compiledCache{seed: maphash.MakeSeed(), byKey: map[uint64][]*list.Element{}, order: list.New()}
}

// cacheKey is the key of the task's compile; ok is false for a program
// the cache never keeps (QIR, or a long text).
// cachedFormats are the formats whose programs compile to one circuit,
// whatever the run.
var cachedFormats = []string{"qasm2", "qasm3", "quil", "ionq.circuit.v0"}

func cacheKey(t qtype.Task, limit int) (compileKey, bool) {
	if !slices.Contains(cachedFormats, t.Program.Format) || len(t.Program.Data) > cacheMaxText {
		return compileKey{}, false
	}
	k := compileKey{format: t.Program.Format, data: t.Program.Data, limit: limit}
	if in := inputs(t.RuntimeOptions); len(in) > 0 {
		b, err := json.Marshal(in) // sorted keys: one text for equal inputs
		if err != nil {
			return compileKey{}, false
		}
		k.inputs = string(b)
	}
	return k, true
}

func (c *compiledCache) hash(k compileKey) uint64 {
	var h maphash.Hash
	h.SetSeed(c.seed)
	for _, s := range [...]string{k.format, k.data, k.inputs} {
		h.WriteString(s)
		h.WriteByte(0)
	}
	var n [8]byte
	for i := range n {
		n[i] = byte(k.limit >> (8 * i))
	}
	h.Write(n[:])
	return h.Sum64()
}

// get returns the program compiled for k, shared and read-only, or nil.
func (c *compiledCache) get(k compileKey) *program {
	h := c.hash(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.byKey[h] {
		if cp := e.Value.(*cachedProgram); cp.key == k {
			c.order.MoveToBack(e)
			return cp.p
		}
	}
	return nil
}

// put keeps p, which nobody changes from now on, as the program of k.
func (c *compiledCache) put(k compileKey, p *program) {
	if p.qir != nil || p.circuit == nil || len(p.circuit.Ops) > cacheMaxOps {
		return
	}
	h := c.hash(k)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.byKey[h] {
		if e.Value.(*cachedProgram).key == k {
			return // another create of the same program kept it first
		}
	}
	c.byKey[h] = append(c.byKey[h], c.order.PushBack(&cachedProgram{key: k, hash: h, p: p}))
	c.ops += len(p.circuit.Ops)
	c.text += len(k.data) + len(k.inputs)
	for c.order.Len() > cacheEntries || c.ops > cacheOps || c.text > cacheTextBytes {
		c.remove(c.order.Front())
	}
}

func (c *compiledCache) remove(e *list.Element) {
	cp := c.order.Remove(e).(*cachedProgram)
	c.ops -= len(cp.p.circuit.Ops)
	c.text -= len(cp.key.data) + len(cp.key.inputs)
	es := c.byKey[cp.hash]
	for i, x := range es {
		if x == e {
			es = append(es[:i], es[i+1:]...)
			break
		}
	}
	if len(es) == 0 {
		delete(c.byKey, cp.hash)
	} else {
		c.byKey[cp.hash] = es
	}
}
