package main

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/deploymath/deploymath/sim"
)

// progressAfter is how long the runs go before the progress line shows.
const progressAfter = 2 * time.Second

// progress draws a line on a terminal at every tick once the work has
// taken progressAfter, and ends the line when stopped: for a sweep "runs:
// 14 started, 12 done of 40, 5 s", for a single run "t=3m12s of 30m0s,
// 48210 pods, 152000 events/s, 5 s". Only the command uses the wall
// clock; the runs never see it.
type progress struct {
	w     io.Writer
	start time.Time

	mu sync.Mutex
	// a sweep's runs (total > 0)
	started, done, total int
	// a single run's state (single)
	single bool
	run    sim.Progress
	shown  bool
	// width is the length of the last line drawn, so that a shorter one
	// overwrites it with spaces
	width int

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

// setRuns records the runs started and done; it is [sweep.Config]'s
// Progress.
func (p *progress) setRuns(started, done, total int) {
	p.mu.Lock()
	p.started, p.done, p.total = started, done, total
	p.mu.Unlock()
}

// setRun records where a single run stands; it is [sim.Options]'
// Progress.
func (p *progress) setRun(s sim.Progress) {
	p.mu.Lock()
	p.single, p.run = true, s
	p.mu.Unlock()
}

// draw redraws the line as of now.
func (p *progress) draw(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := now.Sub(p.start)
	if el < progressAfter {
		return
	}
	var line string
	switch {
	case p.single:
		r := p.run
		line = fmt.Sprintf("t=%s of %s, %d pods, %d events/s, %d s", r.Now.Truncate(time.Second), r.Until, r.Pods, int64(float64(r.Events)/el.Seconds()), int(el/time.Second))
	case p.total > 0:
		line = fmt.Sprintf("runs: %d started, %d done of %d, %d s", p.started, p.done, p.total, int(el/time.Second))
	default:
		return
	}
	pad := max(0, p.width-len(line))
	fmt.Fprintf(p.w, "\r%s%*s", line, pad, "")
	p.width = len(line)
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

// runOne runs sc once, with a progress line on stderr when it is a
// terminal and quiet is not set.
func runOne(sc *sim.Scenario, opts sim.Options, quiet bool, stderr io.Writer) (*sim.Result, error) {
	res, err := runWithProgress(sc, opts, quiet, stderr)
	if errors.Is(err, sim.ErrUnregisteredKind) {
		err = fmt.Errorf("%w\n(deploysim runs the built-in controllers only; an object of a kind of your own needs its controller: run the scenario from a Go test with sim.Options.Scheme and sim.Options.Controllers, see README.md, Test your own controller)", err)
	}
	return res, err
}

// runWithProgress is runOne without the hint.
func runWithProgress(sc *sim.Scenario, opts sim.Options, quiet bool, stderr io.Writer) (*sim.Result, error) {
	if quiet || !isTerminal(stderr) {
		return sim.Run(sc, opts)
	}
	start := time.Now() // before the ticker, so that tick n shows n s
	t := time.NewTicker(time.Second)
	defer t.Stop()
	p := startProgress(stderr, start, t.C)
	opts.Progress = p.setRun
	res, err := sim.Run(sc, opts)
	if err == nil {
		p.mu.Lock()
		p.run.Now, p.run.Events = res.Summary.End, res.Stats.Events
		p.mu.Unlock()
	}
	p.stop(time.Now())
	return res, err
}
