package quantum

import (
	"container/list"
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"sync"
)

// compiledCache hands a small program compiled at create (Check) to its
// run, so that it is compiled once: a batch of thousands of small
// circuits would otherwise spend a quarter of its time compiling each
// twice. An entry is taken by the run that uses it (never shared between
// two runs), and the oldest go when the cache is full: a run that finds
// nothing compiles again, as it always could.
type compiledCache struct {
	mu    sync.Mutex
	byKey map[[32]byte][]*list.Element
	order *list.List // of *cachedProgram, oldest first
	ops   int        // of the programs kept
}

type cachedProgram struct {
	key [32]byte
	p   *program
}

// Bounds: programs of at most cacheMaxOps operations, at most
// cacheEntries of them (a whole batch of small circuits), at most
// cacheOps operations in all (56 bytes each: about 56 MiB).
const (
	cacheMaxOps  = 4096
	cacheEntries = 4096
	cacheOps     = 1 << 20
)

func newCompiledCache() *compiledCache {
	return &compiledCache{byKey: map[[32]byte][]*list.Element{}, order: list.New()}
}

// cacheMaxText is the longest program text looked up: hashing a large
// program that could not be kept (past cacheMaxOps) would only cost.
const cacheMaxText = 256 << 10

// cacheKey identifies what a compile depends on: the program, the qubit
// limit, the precision and the inputs (runtimeOptions). ok is false for a
// program the cache never keeps (QIR, or a long text).
func cacheKey(t Task, limit int) ([32]byte, bool) {
	if t.Program.Format != "qasm2" && t.Program.Format != "qasm3" || len(t.Program.Data) > cacheMaxText {
		return [32]byte{}, false
	}
	opts, err := json.Marshal(t.RuntimeOptions) // sorted keys: one text for equal options
	if err != nil {
		return [32]byte{}, false
	}
	h := sha256.New()
	for _, s := range []string{t.Program.Format, t.Program.Data, strconv.Itoa(limit), string(opts)} {
		h.Write([]byte(strconv.Itoa(len(s))))
		h.Write([]byte{0})
		h.Write([]byte(s))
	}
	var k [32]byte
	h.Sum(k[:0])
	return k, true
}

// put keeps a compiled program for a run to take.
func (c *compiledCache) put(k [32]byte, p *program) {
	if p.qir != nil || p.circuit == nil || len(p.circuit.Ops) > cacheMaxOps {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byKey[k] = append(c.byKey[k], c.order.PushBack(&cachedProgram{key: k, p: p}))
	c.ops += len(p.circuit.Ops)
	for c.order.Len() > cacheEntries || c.ops > cacheOps {
		c.remove(c.order.Front())
	}
}

// take returns a compiled program of key k and forgets it, or nil.
func (c *compiledCache) take(k [32]byte) *program {
	c.mu.Lock()
	defer c.mu.Unlock()
	es := c.byKey[k]
	if len(es) == 0 {
		return nil
	}
	e := es[len(es)-1]
	c.remove(e)
	return e.Value.(*cachedProgram).p
}

func (c *compiledCache) remove(e *list.Element) {
	cp := c.order.Remove(e).(*cachedProgram)
	c.ops -= len(cp.p.circuit.Ops)
	es := c.byKey[cp.key]
	for i, x := range es {
		if x == e {
			es = append(es[:i], es[i+1:]...)
			break
		}
	}
	if len(es) == 0 {
		delete(c.byKey, cp.key)
	} else {
		c.byKey[cp.key] = es
	}
}
