package runner

import "github.com/qjobs/quantum/storage"

// What the jobs this process has claimed hold of its memory budget and
// workers, by job and by user: the runner's accounts, which claims, growth
// and fair shares (shares.go) read. The runner's mu guards them.

// hold is what one claimed job holds.
type hold struct {
	owner  string
	memory int64
	// seq orders claims: preemption takes a user's newest jobs first.
	seq uint64
	// preemptible: the job was claimed while no other user's job waited,
	// and may go back to the queue when one does (shares.go). A job
	// claimed within its user's share, or because nothing else could run,
	// is not.
	preemptible bool
	// grown is what its runs were granted beyond its need (Task.Grow): a
	// job returned to the queue needs that much more when it runs again.
	grown int64
}

// usage is what one user's claimed jobs hold together.
type usage struct {
	memory int64
	jobs   int
}

// holdJob records a claimed job holding memory bytes.
func (r *Runner) holdJob(j *storage.JobRecord, memory int64, preemptible bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.holds == nil {
		r.holds, r.usage = map[string]*hold{}, map[string]*usage{}
	}
	r.seq++
	r.holds[j.JobQRN] = &hold{owner: j.Owner, memory: memory, seq: r.seq, preemptible: preemptible}
	u := r.usage[j.Owner]
	if u == nil {
		u = &usage{}
		r.usage[j.Owner] = u
	}
	u.memory += memory
	u.jobs++
	r.memUsed += memory
}

// unholdJob gives back all a job holds, if it holds anything, and wakes
// the workers, one of which may be waiting for that memory.
func (r *Runner) unholdJob(qrn string) {
	held := func() bool {
		r.mu.Lock()
		defer r.mu.Unlock()
		h := r.holds[qrn]
		if h == nil {
			return false
		}
		delete(r.holds, qrn)
		u := r.usage[h.owner]
		u.memory -= h.memory
		u.jobs--
		if u.jobs == 0 {
			delete(r.usage, h.owner)
		}
		r.memUsed -= h.memory
		return true
	}()
	if held {
		r.Wake()
	}
}

// addHold changes what a job holds by delta bytes (r.mu held).
func (r *Runner) addHold(qrn string, delta int64) {
	h := r.holds[qrn]
	if h == nil {
		return
	}
	h.memory += delta
	r.usage[h.owner].memory += delta
	r.memUsed += delta
}

// holdUpTo adds to a job's hold up to n bytes of what is free of the
// budget (and of its user's share, when other users' jobs wait), without
// waiting, and returns how much it took: a batch runs more circuits at
// once with it.
func (r *Runner) holdUpTo(qrn string, n int64) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	free := r.s.budget - r.memUsed
	if h := r.holds[qrn]; h != nil && r.contended.Load() {
		free = min(free, r.shareMemory()-r.usage[h.owner].memory)
	}
	take := min(max(n, 0), max(free, 0))
	r.addHold(qrn, take)
	return take
}

// grownBy is what a job's runs were granted beyond its need.
func (r *Runner) grownBy(qrn string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if h := r.holds[qrn]; h != nil {
		return h.grown
	}
	return 0
}

// unholdSome gives back n bytes of what a job holds.
func (r *Runner) unholdSome(qrn string, n int64) {
	func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.addHold(qrn, -n)
	}()
	r.Wake()
}

func (r *Runner) MemoryUsed() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.memUsed
}

// usageOf is what the user's claimed jobs hold.
func (r *Runner) usageOf(owner string) usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	if u := r.usage[owner]; u != nil {
		return *u
	}
	return usage{}
}

// reservation is the memory a claimed job holds of the budget from its
// claim: its need, or nothing for a job too large to ever run.
func (r *Runner) reservation(j *storage.JobRecord) int64 {
	if j.MemoryNeed > r.s.budget {
		return 0
	}
	return max(j.MemoryNeed, 0)
}
