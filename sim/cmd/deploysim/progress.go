package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progressAfter is how long the runs go before the progress line shows.
const progressAfter = 2 * time.Second

// progress draws "12/40 runs, 5 s" on a terminal at every tick once the
// runs have taken progressAfter, and ends the line when stopped. Only
// the command uses the wall clock; the runs never see it.
type progress struct {
	w     io.Writer
	start time.Time

	mu          sync.Mutex
	done, total int
	shown       bool

	quit, exited chan struct{}
}

// startProgress draws on w at every tick until stop.
func startProgress(w io.Writer, start time.Time, tick <-chan time.Time) *progress {
	p := &progress{w: w, start: start, quit: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(p.exited)
		for {
			select {
			case t := <-tick:
				p.draw(t)
			case <-p.quit:
				return
			}
		}
	}()
	return p
}

// set records the runs done; it is [sweep.Config]'s Progress.
func (p *progress) set(done, total int) {
	p.mu.Lock()
	p.done, p.total = done, total
	p.mu.Unlock()
}

// draw redraws the line as of now.
func (p *progress) draw(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := now.Sub(p.start)
	if el < progressAfter || p.total == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%d/%d runs, %d s", p.done, p.total, int(el/time.Second))
	p.shown = true
}

// stop stops drawing; a line that was shown is drawn a last time as of
// now and ended. A nil progress does nothing.
func (p *progress) stop(now time.Time) {
	if p == nil {
		return
	}
	close(p.quit)
	<-p.exited
	if p.shown {
		p.draw(now)
		fmt.Fprintln(p.w)
	}
}
