package sandbox

import "github.com/termhelper/termhelper/platform"

// Confiner is p as platform starts it: platform.Spec.Confine.
func (p Plan) Confiner() platform.Confiner { return newConfiner(p) }

// confiner prepares the launches of one plan.
type confiner struct{ plan Plan }

func (c confiner) Prepare(argv []string) (platform.Launch, error) {
	l, err := Prepare(c.plan, argv)
	if err != nil {
		return nil, err
	}
	return launch{l}, nil
}

func (c confiner) MaxProcs() int { return c.plan.MaxProcs }

// launch is a Launch as platform starts it.
type launch struct{ *Launch }

// Started returns the guard, or a nil Guard for an unconfined process.
func (l launch) Started() (platform.Guard, error) {
	g, err := l.Launch.Started()
	if g == nil {
		return nil, err
	}
	return g, err
}
