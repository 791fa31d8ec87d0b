package sandbox

import "github.com/termhelper/termhelper/platform"

// On Linux a plan's confiner makes spares: a trampoline started ahead.
func newConfiner(p Plan) platform.Confiner { return spareConfiner{confiner{p}} }

type spareConfiner struct{ confiner }

// PrepareSpare reads the plan's footprint, then prepares a spare: before
// the spare reads the places, and before the held namespaces a stub
// spare starts in are found still to hold, so that a place changed in
// between fails one check or the other.
func (c spareConfiner) PrepareSpare() (platform.SpareLaunch, error) {
	footprint := FootprintOf(c.plan)
	l, err := PrepareSpare(c.plan)
	if err != nil {
		return nil, err
	}
	return spareLaunch{launch{l}, footprint}, nil
}

// SpareIsCheap: a spare in held namespaces is the stub, an execve and its
// steps; a trampoline starts a Go runtime.
func (c spareConfiner) SpareIsCheap() bool { return heldOn() }

func (c spareConfiner) Same(o platform.Confiner) bool {
	oc, ok := o.(spareConfiner)
	return ok && c.plan.Same(oc.plan)
}

// spareLaunch is a spare's launch and the footprint it was made with.
type spareLaunch struct {
	launch
	footprint Footprint
}

func (l spareLaunch) Holds() bool { return l.footprint.Holds() }
