package rydberg

import (
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// pass computes one term of a step's series: z_{k+1} = −i/(k+1)·(A z_k +
// B z_{k−1}) with A and B scaled by the step (d0, d1 their diagonals, alpha
// and beta their drives per atom), adds it to the sum and returns its norm.
// A configuration's value gathers from its neighbours, so the pass writes
// only its own entries and can be cut into chunks that run side by side.
type pass struct {
	sp           *space
	d0, d1       []float64
	alpha, beta  []complex128
	uniform      bool
	a, b         complex128 // the uniform drive's
	complexDrive bool       // a or b has an imaginary part
	hasBeta      bool       // the drive changes over the step
	hasD1        bool       // the diagonal changes over the step
	partial      []float64  // each share's sum of squares
}

func (o *pass) prepare() {
	for _, c := range o.beta {
		if c != 0 {
			o.hasBeta = true
		}
	}
	if len(o.alpha) > 0 {
		o.a, o.b = o.alpha[0], o.beta[0]
	}
	o.complexDrive = imag(o.a) != 0 || imag(o.b) != 0
}

// cost is the work of one pass: every configuration and its neighbours,
// once more when the drive's slope gathers from the previous term too.
func (o *pass) cost(withPrev bool) int64 {
	c := int64(o.sp.dim) + o.sp.neighbors()
	if withPrev && o.hasBeta {
		c += o.sp.neighbors()
	}
	return c
}

// chunk is how many configurations one share of a pass takes. Shares are
// fixed, so the norm, summed share by share in order, is the same however
// many cores run them (a seeded run repeats exactly).
const chunk = 1024

// term computes z_{k+1} into next from cur (z_k) and prev (z_{k−1}, nil
// for k = 0), adds it to acc and returns its norm.
func (o *pass) term(k int, cur, prev, next, acc []complex128) float64 {
	f := 1 / float64(k+1)
	dim := o.sp.dim
	shares := (dim + chunk - 1) / chunk
	if cap(o.partial) < shares {
		o.partial = make([]float64, shares)
	}
	partial := o.partial[:shares]
	work := func(i int) {
		lo, hi := i*chunk, min((i+1)*chunk, dim)
		partial[i] = o.kernel(lo, hi, f, cur, prev, next, acc)
	}
	var nextShare atomic.Int64
	share := func() {
		for {
			i := int(nextShare.Add(1) - 1)
			if i >= shares {
				return
			}
			work(i)
		}
	}
	// The caller takes shares too: a pass on a small space starts one
	// goroutine, or none.
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), shares) - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			share()
		}()
	}
	share()
	wg.Wait()
	sum := 0.0
	for _, p := range partial {
		sum += p
	}
	return math.Sqrt(sum)
}

// kernel is the pass over configurations lo to hi; it returns the sum of
// the new term's squared magnitudes there.
func (o *pass) kernel(lo, hi int, f float64, cur, prev, next, acc []complex128) float64 {
	switch {
	case !o.sp.restricted && o.uniform:
		return o.fullUniform(lo, hi, f, cur, prev, next, acc)
	case !o.sp.restricted:
		return o.fullPerAtom(lo, hi, f, cur, prev, next, acc)
	case o.uniform:
		return o.restrictedUniform(lo, hi, f, cur, prev, next, acc)
	}
	return o.restrictedPerAtom(lo, hi, f, cur, prev, next, acc)
}

// finish turns a configuration's value into the term (−i·f·value), adds
// it to the sum and returns its squared magnitude.
func finish(s int, f float64, val complex128, next, acc []complex128) float64 {
	z := complex(f*imag(val), -f*real(val))
	next[s] = z
	acc[s] += z
	return real(z)*real(z) + imag(z)*imag(z)
}

// A uniform drive adds to configuration s a·u + a*·w, u the sum over its
// neighbours with one atom fewer in r and w over those with one more;
// with t = u + w that is a*·t + 2i·Im(a)·u, and u is needed only when a is
// complex.

// fullUniform takes the configurations four at a time: for every atom
// past the first two, their four neighbours are four adjacent
// amplitudes, loaded together and added in four independent sums (twice
// the speed of one configuration at a time).
func (o *pass) fullUniform(lo, hi int, f float64, cur, prev, next, acc []complex128) float64 {
	dim, n := o.sp.dim, o.sp.n
	if n < 2 {
		return o.fullPerAtom(lo, hi, f, cur, prev, next, acc)
	}
	if !o.complexDrive {
		return o.fullReal(lo, hi, f, cur, prev, next, acc)
	}
	cur, next, acc = cur[:dim], next[:dim], acc[:dim]
	d0, d1 := o.d0[:dim], o.d1[:dim]
	ac, bc := conj(o.a), conj(o.b)
	ai, bi := 2*imag(o.a), 2*imag(o.b)
	sum := 0.0
	for s := lo; s < hi; s += 4 {
		var val [4]complex128
		t, u := signedQuad(cur, s, n)
		for i := range val {
			val[i] = ac*t[i] + complex(-ai*imag(u[i]), ai*real(u[i])) + scale(d0[s+i], cur[s+i])
		}
		if prev != nil {
			t, u = signedQuad(prev, s, n)
			for i := range val {
				val[i] += scale(d1[s+i], prev[s+i]) + bc*t[i] + complex(-bi*imag(u[i]), bi*real(u[i]))
			}
		}
		for i := range val {
			sum += finish(s+i, f, val[i], next, acc)
		}
	}
	return sum
}

// fullReal is fullUniform for a real drive (φ = 0 or π, the common
// case): a·u + a·w is a·t, so only the sums t are needed, and they are
// written out four in registers; the previous term's only when the
// drive or the diagonal changes over the step.
func (o *pass) fullReal(lo, hi int, f float64, cur, prev, next, acc []complex128) float64 {
	switch {
	case haveGather:
		return o.fullRealGathered(lo, hi, f, cur, prev, next, acc)
	case prev != nil && o.hasBeta:
		return o.fullRealRamp(lo, hi, f, cur, prev, next, acc)
	}
	dim, n := o.sp.dim, o.sp.n
	cur, next, acc = cur[:dim], next[:dim], acc[:dim]
	d0, d1 := o.d0[:dim], o.d1[:dim]
	a := real(o.a)
	withD1 := prev != nil && o.hasD1
	if !withD1 {
		prev = cur // never read
	}
	prev = prev[:dim]
	sum := 0.0
	for s := lo; s < hi; s += 4 {
		q := cur[s : s+4 : s+4]
		t0, t1, t2, t3 := q[1]+q[2], q[0]+q[3], q[3]+q[0], q[2]+q[1]
		for k := 2; k < n; k++ {
			j := s ^ (1 << k)
			p := cur[j : j+4 : j+4]
			t0 += p[0]
			t1 += p[1]
			t2 += p[2]
			t3 += p[3]
		}
		for i, t := range [4]complex128{t0, t1, t2, t3} {
			c := q[i]
			v := complex(d0[s+i]*real(c)+a*real(t), d0[s+i]*imag(c)+a*imag(t))
			if withD1 {
				v += scale(d1[s+i], prev[s+i])
			}
			z := complex(f*imag(v), -f*real(v))
			next[s+i] = z
			acc[s+i] += z
			sum += real(z)*real(z) + imag(z)*imag(z)
		}
	}
	return sum
}

// fullRealRamp is fullReal while the drive ramps: the previous term's
// neighbours are gathered too, times the drive's slope.
func (o *pass) fullRealRamp(lo, hi int, f float64, cur, prev, next, acc []complex128) float64 {
	dim, n := o.sp.dim, o.sp.n
	cur, prev, next, acc = cur[:dim], prev[:dim], next[:dim], acc[:dim]
	d0, d1 := o.d0[:dim], o.d1[:dim]
	a, b := real(o.a), real(o.b)
	sum := 0.0
	for s := lo; s < hi; s += 4 {
		q := cur[s : s+4 : s+4]
		r := prev[s : s+4 : s+4]
		t0, t1, t2, t3 := q[1]+q[2], q[0]+q[3], q[3]+q[0], q[2]+q[1]
		u0, u1, u2, u3 := r[1]+r[2], r[0]+r[3], r[3]+r[0], r[2]+r[1]
		for k := 2; k < n; k++ {
			j := s ^ (1 << k)
			p := cur[j : j+4 : j+4]
			t0 += p[0]
			t1 += p[1]
			t2 += p[2]
			t3 += p[3]
			p = prev[j : j+4 : j+4]
			u0 += p[0]
			u1 += p[1]
			u2 += p[2]
			u3 += p[3]
		}
		ts := [4]complex128{t0, t1, t2, t3}
		us := [4]complex128{u0, u1, u2, u3}
		for i := range 4 {
			c := q[i]
			v := complex(d0[s+i]*real(c)+a*real(ts[i]), d0[s+i]*imag(c)+a*imag(ts[i]))
			v += scale(d1[s+i], r[i]) + scale(b, us[i])
			z := complex(f*imag(v), -f*real(v))
			next[s+i] = z
			acc[s+i] += z
			sum += real(z)*real(z) + imag(z)*imag(z)
		}
	}
	return sum
}

// signedQuad is, for each of the four configurations from s (a
// multiple of 4), the sum t of x over the n configurations one flip away
// and its part u over those with one atom fewer in r (where the
// configuration has the bit set).
func signedQuad(x []complex128, s, n int) (t, u [4]complex128) {
	q := x[s : s+4 : s+4]
	t = [4]complex128{q[1] + q[2], q[0] + q[3], q[3] + q[0], q[2] + q[1]}
	u = [4]complex128{0, q[0], q[0], q[2] + q[1]} // bit 0 set in 1 and 3, bit 1 in 2 and 3
	for k := 2; k < n; k++ {
		j := s ^ (1 << k)
		p := x[j : j+4 : j+4]
		down := s&(1<<k) != 0 // the bit is the four's alike
		for i := range 4 {
			t[i] += p[i]
			if down {
				u[i] += p[i]
			}
		}
	}
	return t, u
}

func (o *pass) fullPerAtom(lo, hi int, f float64, cur, prev, next, acc []complex128) float64 {
	sum := 0.0
	for s := lo; s < hi; s++ {
		val := scale(o.d0[s], cur[s])
		for k, a := range o.alpha {
			bit := 1 << k
			if s&bit != 0 {
				val += a * cur[s^bit]
			} else {
				val += conj(a) * cur[s^bit]
			}
		}
		if prev != nil {
			val += scale(o.d1[s], prev[s])
			if o.hasBeta {
				for k, b := range o.beta {
					bit := 1 << k
					if s&bit != 0 {
						val += b * prev[s^bit]
					} else {
						val += conj(b) * prev[s^bit]
					}
				}
			}
		}
		sum += finish(s, f, val, next, acc)
	}
	return sum
}

func (o *pass) restrictedUniform(lo, hi int, f float64, cur, prev, next, acc []complex128) float64 {
	sp := o.sp
	ac, bc := conj(o.a), conj(o.b)
	ai, bi := 2*imag(o.a), 2*imag(o.b)
	sum := 0.0
	for s := lo; s < hi; s++ {
		start, mid, end := sp.offs[s], sp.mid[s], sp.offs[s+1]
		var u, t complex128
		for _, j := range sp.nbr[start:mid] {
			u += cur[j]
		}
		t = u
		for _, j := range sp.nbr[mid:end] {
			t += cur[j]
		}
		val := scale(o.d0[s], cur[s]) + ac*t + complex(-ai*imag(u), ai*real(u))
		if prev != nil {
			val += scale(o.d1[s], prev[s])
			if o.hasBeta {
				u, t = 0, 0
				for _, j := range sp.nbr[start:mid] {
					u += prev[j]
				}
				t = u
				for _, j := range sp.nbr[mid:end] {
					t += prev[j]
				}
				val += bc*t + complex(-bi*imag(u), bi*real(u))
			}
		}
		sum += finish(s, f, val, next, acc)
	}
	return sum
}

func (o *pass) restrictedPerAtom(lo, hi int, f float64, cur, prev, next, acc []complex128) float64 {
	sp := o.sp
	sum := 0.0
	for s := lo; s < hi; s++ {
		start, mid, end := sp.offs[s], sp.mid[s], sp.offs[s+1]
		val := scale(o.d0[s], cur[s])
		for e := start; e < end; e++ {
			a := o.alpha[sp.atom[e]]
			if e >= mid {
				a = conj(a)
			}
			val += a * cur[sp.nbr[e]]
		}
		if prev != nil {
			val += scale(o.d1[s], prev[s])
			if o.hasBeta {
				for e := start; e < end; e++ {
					b := o.beta[sp.atom[e]]
					if e >= mid {
						b = conj(b)
					}
					val += b * prev[sp.nbr[e]]
				}
			}
		}
		sum += finish(s, f, val, next, acc)
	}
	return sum
}

func scale(x float64, z complex128) complex128 { return complex(x*real(z), x*imag(z)) }

func conj(z complex128) complex128 { return complex(real(z), -imag(z)) }
