package quantum

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/qjobs/quantum/internal/notify"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// Watch follows the changes of one of a user's jobs (Service.WatchJob) or
// of all of them (Service.WatchJobs), as they happen, without polling the
// store: Ready is signalled when Next has something to return. Close it
// when done. A Watch is used by one goroutine at a time.
type Watch struct {
	s      *Service
	owner  string
	qrn    string    // the job watched; "" for all of owner's jobs
	status JobStatus // only jobs in this status (all-jobs watches); "" for any
	w      *notify.Watcher
	// unfollow ends what the watch asked of a shared store's feed.
	unfollow func()

	last   map[string]sent // what was last sent of each job
	done   bool            // a one-job watch has seen its job's end
	closed sync.Once
}

// ownerWatchJobs bounds the jobs an all-jobs watch remembers what it
// sent of.
const ownerWatchJobs = 4096

// JobEvent is one event of a Watch.
type JobEvent struct {
	// ID names the event for a resume (SSE's Last-Event-ID).
	ID string
	// Job is the job as GetJob shows it after the change; nil for a
	// reset.
	Job *Job
	// Reset, on a watch of all jobs, says that changes may have been
	// missed (a resume from too far back, or a watcher that fell
	// behind): the caller lists the jobs again.
	Reset bool
}

type sent struct {
	version   string
	updatedAt time.Time
	attempts  int
}

// Ready is signalled when Next may have events.
func (w *Watch) Ready() <-chan struct{} { return w.w.Ready() }

// Done reports whether a one-job watch has seen the job's end: Next
// returns nothing more.
func (w *Watch) Done() bool { return w.done }

// Close stops the watch. It is safe to call more than once.
func (w *Watch) Close() {
	w.closed.Do(func() {
		w.s.notes.Remove(w.w)
		w.unfollow()
	})
}

// startWatch files w with the watchers, once the store's feed, if it is
// shared and spares changes nobody follows (storage.FollowedFeed), sends
// every change: what a read made after it misses reaches w.
func (s *Service) startWatch(ctx context.Context, w *Watch) error {
	w.unfollow = func() {}
	if ff, ok := s.feed.(storage.FollowedFeed); ok && !s.exclusive {
		unfollow, err := ff.FollowAll(ctx)
		if err != nil {
			return s.internal(ctx, err, "the watch began")
		}
		w.unfollow = unfollow
	}
	s.notes.Add(w.w)
	return nil
}

// WatchJob follows one of the user's jobs. The first Next returns its
// current state, unless lastID names that very state (a resume that
// missed nothing); then one event per change, up to and including the
// job's end, after which Done reports true. Changes made while the
// caller was away are not replayed one by one: a resume returns the job
// as it is now. It answers the errors GetJob answers.
func (s *Service) WatchJob(ctx context.Context, u User, qrn, lastID string) (*Watch, error) {
	if s.notes.IsClosed() {
		return nil, errClosing()
	}
	w := s.newWatch(u, qrn)
	if err := s.startWatch(ctx, w); err != nil {
		return nil, err
	}
	// Read only once registered, so that no change falls between the read
	// and the registration.
	if _, err := s.ownJob(ctx, u, qrn); err != nil {
		w.Close()
		return nil, err
	}
	if lastID != "" {
		w.last[qrn] = sent{version: lastID}
	}
	w.w.Lose()
	return w, nil
}

// WatchJobs follows all of the user's jobs, or those that reach status
// when it is not "": one event per change from now on. With the lastID of
// an event of an earlier WatchJobs on this Service it first returns the
// jobs that changed since that event, as they are now; when it cannot
// know them (the ID is another process's, or older than the last 4096
// changes) its first event is a Reset.
func (s *Service) WatchJobs(ctx context.Context, u User, status JobStatus, lastID string) (*Watch, error) {
	if status != "" && !validStatus(status) {
		return nil, qtype.Invalid("status", "must be one of %s", joinStatuses(qtype.JobStatuses()))
	}
	if s.notes.IsClosed() {
		return nil, errClosing()
	}
	w := s.newWatch(u, "")
	w.status = status
	if err := s.startWatch(ctx, w); err != nil {
		return nil, err
	}
	if lastID != "" {
		w.w.Resumed(s.notes.Resume(u.ID, lastID))
	}
	return w, nil
}

func (s *Service) newWatch(u User, qrn string) *Watch {
	return &Watch{s: s, owner: u.ID, qrn: qrn, w: notify.NewWatcher(u.ID, qrn), last: map[string]sent{}}
}

// Next returns the events since the last call, oldest first (none if
// nothing changed that the watch shows). It reads the store when it must
// (a change made by another node, a resume). Once the Service is closing
// it answers SERVICE_BUSY: the watch is over.
func (w *Watch) Next(ctx context.Context) ([]JobEvent, error) {
	if w.s.notes.IsClosed() {
		return nil, errClosing()
	}
	seq := w.s.notes.Current() // before taking the queue: a reset names no later change
	queue, lost := w.w.Take()
	if w.qrn != "" {
		return w.nextOfJob(ctx, queue, lost)
	}
	var events []JobEvent
	if lost {
		events = append(events, JobEvent{ID: w.s.notes.EventID(seq), Reset: true})
		clear(w.last)
	}
	for _, p := range queue {
		rec := p.Rec
		if rec == nil {
			r, err := w.s.store.GetJob(ctx, p.QRN)
			if errors.Is(err, storage.ErrJobNotFound) {
				continue // deleted since
			}
			if err != nil {
				return events, w.s.internal(ctx, err, "read a changed job")
			}
			rec = r
		}
		if rec.Owner != w.owner || w.status != "" && rec.Status != w.status {
			continue
		}
		ev, ok, err := w.event(ctx, rec, w.s.notes.EventID(p.Seq))
		if err != nil {
			return events, err
		}
		if ok {
			events = append(events, ev)
		}
	}
	if len(w.last) > ownerWatchJobs {
		for qrn := range w.last {
			delete(w.last, qrn) // forget some: at worst a job is sent again
			if len(w.last) <= ownerWatchJobs/2 {
				break
			}
		}
	}
	return events, nil
}

func (w *Watch) nextOfJob(ctx context.Context, queue []notify.Pending, lost bool) ([]JobEvent, error) {
	if w.done {
		return nil, nil
	}
	reread := lost
	for _, p := range queue {
		reread = reread || p.Rec == nil
	}
	if reread {
		rec, err := w.s.ownJob(ctx, User{ID: w.owner}, w.qrn)
		if err != nil {
			return nil, err
		}
		queue = []notify.Pending{{QRN: w.qrn, Rec: rec}}
	}
	var events []JobEvent
	for _, p := range queue {
		ev, ok, err := w.event(ctx, p.Rec, "")
		if err != nil {
			return events, err
		}
		if ok {
			events = append(events, ev)
		}
		if p.Rec.Status.IsTerminal() && w.last[w.qrn].version == jobVersion(p.Rec) {
			w.done = true
			break
		}
	}
	return events, nil
}

// event is the event of rec, unless it was sent already or is older than
// what was; id "" means the job's version.
func (w *Watch) event(ctx context.Context, rec *storage.JobRecord, id string) (JobEvent, bool, error) {
	v := jobVersion(rec)
	last := w.last[rec.JobQRN]
	if v == last.version || older(rec, last) {
		return JobEvent{}, false, nil
	}
	w.last[rec.JobQRN] = sent{version: v, updatedAt: rec.UpdatedAt, attempts: rec.Attempts}
	job, err := w.s.withQueuePosition(ctx, shown(rec))
	if err != nil {
		return JobEvent{}, false, err
	}
	if id == "" {
		id = v
	}
	return JobEvent{ID: id, Job: job}, true, nil
}

// older reports whether rec is a state of its job before the one last
// sent. A claim that finds a job queued after it read the clock takes
// the job's own time (a change never goes back in time), so QUEUED and
// RUNNING may share one: the claim's one more attempt tells them apart.
func older(rec *storage.JobRecord, last sent) bool {
	return rec.UpdatedAt.Before(last.updatedAt) || rec.UpdatedAt.Equal(last.updatedAt) && rec.Attempts < last.attempts
}

// jobVersion names the state of a job: it differs between any two
// states a job passes through.
func jobVersion(r *storage.JobRecord) string {
	return strconv.FormatInt(r.UpdatedAt.UnixNano(), 36) + "." + string(r.Status) + "." + strconv.Itoa(r.Attempts)
}

// waitResync is how often Wait reads its job again although no change
// was announced: a safety net for a store shared without a change feed.
const waitResync = 30 * time.Second

// Wait returns the user's job once it is COMPLETED, FAILED or CANCELLED,
// woken by the job's changes rather than polling. It answers the errors
// GetJob answers, REQUEST_CANCELLED when ctx ends first, and SERVICE_BUSY
// when the Service closes first.
//
// It follows the job as a WatchJob does, but looks only at the status of
// each change: the job is copied for the caller once, at its end.
func (s *Service) Wait(ctx context.Context, u User, qrn string) (*Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, s.internal(ctx, err, "the job ended")
	}
	if s.notes.IsClosed() {
		return nil, errClosing()
	}
	// A watch without the record of what was sent, which only events
	// need.
	w := &Watch{s: s, owner: u.ID, qrn: qrn, w: notify.NewWatcher(u.ID, qrn)}
	if err := s.startWatch(ctx, w); err != nil {
		return nil, err
	}
	defer w.Close()
	// Read only once registered, so that no change falls between the read
	// and the registration.
	rec, err := s.ownJob(ctx, u, qrn)
	if err != nil {
		return nil, err
	}
	// A store no other Service uses has every change announced here: the
	// safety net is for shared ones.
	var resync *time.Timer
	var tick <-chan time.Time
	if !s.exclusive {
		resync = time.NewTimer(waitResync)
		defer resync.Stop()
		tick = resync.C
	}
	for !rec.Status.IsTerminal() {
		select {
		case <-w.Ready():
		case <-tick:
			w.w.Lose()
			resync.Reset(waitResync)
		case <-ctx.Done():
			return nil, s.internal(ctx, ctx.Err(), "the job ended")
		}
		if s.notes.IsClosed() {
			return nil, errClosing()
		}
		queue, lost := w.w.Take()
		for _, p := range queue { // in the order the store made them
			if p.Rec == nil {
				lost = true // another node's change: read the job
			} else {
				rec = p.Rec
			}
		}
		w.w.GiveBack(queue)
		if lost {
			if rec, err = s.ownJob(ctx, u, qrn); err != nil {
				return nil, err
			}
		}
	}
	return s.withQueuePosition(ctx, shown(rec))
}
