package queue

import "context"

// lanes is the grouping both the Committer and the Acker run: a worker
// takes one waiting request, then every other one waiting on its lane up
// to maxGroup, and runs them together. An idle relay therefore runs each
// request alone and at once; groups form only when requests arrive faster
// than one group takes, and grow with the load. Nothing waits for a timer.
type lanes[R any] struct {
	reqs     []chan R // one per worker; workers may share a channel
	maxGroup int
	run      func(ctx context.Context, group []R)
	started  chan struct{} // closed when Run starts
	stopped  chan struct{} // closed when Run returns
}

// newLanes returns lanes for the given number of workers, all reading one
// channel when shared, each its own otherwise. It starts nothing.
func newLanes[R any](workers, maxGroup int, shared bool, run func(context.Context, []R)) *lanes[R] {
	l := &lanes[R]{reqs: make([]chan R, workers), maxGroup: maxGroup, run: run,
		started: make(chan struct{}), stopped: make(chan struct{})}
	for i := range l.reqs {
		if shared && i > 0 {
			l.reqs[i] = l.reqs[0]
		} else {
			l.reqs[i] = make(chan R)
		}
	}
	return l
}

// Run runs the workers until ctx ends, and returns when they have. A
// group in flight then is finished. Call it once.
func (l *lanes[R]) Run(ctx context.Context) {
	close(l.started)
	defer close(l.stopped)
	done := make(chan struct{})
	for _, reqs := range l.reqs {
		go func() {
			defer func() { done <- struct{}{} }()
			l.work(ctx, reqs)
		}()
	}
	for range l.reqs {
		<-done
	}
}

// submit hands r to the worker of lane (any number; it is taken modulo the
// workers). It reports false when no worker runs, before Run starts or
// after it returned: the caller then runs r alone. It fails only when ctx
// ends first. Once a worker has r it may run it, so the caller waits for
// r's answer even if its client has gone.
func (l *lanes[R]) submit(ctx context.Context, lane uint64, r R) (bool, error) {
	select {
	case <-l.started:
	default:
		return false, nil
	}
	select {
	case l.reqs[lane%uint64(len(l.reqs))] <- r:
		return true, nil
	case <-ctx.Done():
		return false, ctx.Err()
	case <-l.stopped:
		return false, nil
	}
}

func (l *lanes[R]) work(ctx context.Context, reqs <-chan R) {
	group := make([]R, 0, l.maxGroup)
	for {
		group = group[:0]
		select {
		case <-ctx.Done():
			return
		case r := <-reqs:
			group = append(group, r)
		}
	gather:
		for len(group) < l.maxGroup {
			select {
			case r := <-reqs:
				group = append(group, r)
			default:
				break gather
			}
		}
		l.run(context.WithoutCancel(ctx), group)
	}
}
