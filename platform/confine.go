package platform

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Confiner confines the commands of a Spec. platform starts what it
// prepares without knowing how it confines: the sandbox package
// implements it (sandbox.Plan.Confiner).
type Confiner interface {
	// Prepare returns how to start argv confined, or why it cannot be.
	Prepare(argv []string) (Launch, error)
	// MaxProcs caps the processes of the command's tree (0: no cap).
	MaxProcs() int
}

// Launch is how to start one command confined. Apply sets it on the
// exec.Cmd before Start; after Start the platform calls Started (or
// Abort, if Start failed), which releases what the launch holds.
type Launch interface {
	// Apply sets the program, arguments, extra files and process
	// attributes cmd needs to start confined.
	Apply(cmd *exec.Cmd)
	// Started returns the guard of the process cmd started.
	Started() (Guard, error)
	// Abort releases the launch after cmd.Start failed.
	Abort()
}

// Guard lives as long as a confined process: it serves what its
// confinement asks of the helper and keeps what was refused. Close it
// once the process is gone.
type Guard interface {
	Denied() []Denial
	Close()
}

// Denial is something a command was refused that can be named: by its
// confinement, or by the platform (its process cap).
type Denial struct {
	Kind   string // "network", "write", "read", "limit"
	Host   string // network
	Port   int    // network
	Path   string // write, read
	Reason string // limit: which, and what failed
}

// ProcessLimitDenial is what an answer says of a tree that reached its
// process cap.
func ProcessLimitDenial(max int) Denial {
	return Denial{Kind: "limit", Reason: fmt.Sprintf("process limit %d reached: fork failed", max)}
}

// SpareConfiner is a Confiner that can start ahead, with no command yet,
// a process that a later command with the same confinement runs on (a
// spare): Linux's sandbox trampoline, whose start is costly.
type SpareConfiner interface {
	Confiner
	// PrepareSpare returns how to start a spare; an error where there
	// can be none.
	PrepareSpare() (SpareLaunch, error)
	// Same reports whether o confines exactly alike.
	Same(o Confiner) bool
	// SpareIsCheap reports whether a spare costs little enough to be
	// made beside the command it follows.
	SpareIsCheap() bool
}

// SpareLaunch is the launch of a spare: once started, Hand gives it its
// command and Go has it start the command, whose pid it returns.
type SpareLaunch interface {
	Launch
	// Hand gives the spare its command; an error leaves the spare
	// without it, to be ended.
	Hand(h Handoff) error
	// Holds reports whether the spare still confines as a fresh start
	// would (what it depends on is as it was when it was prepared).
	Holds() bool
	// Go has the spare start the command handed and returns its pid. An
	// error wrapping ErrSpareGone means the command did not start: the
	// spare had ended.
	Go() (int, error)
	// Retire ends a spare that started a command, once the command has
	// ended and the spare was killed.
	Retire()
}

// ErrSpareGone is a SpareLaunch's Go error where the spare had ended
// before it took the command, which is then started another way.
var ErrSpareGone = errors.New("platform: the spare had ended")

// Handoff is the command a spare runs: what a fresh start would have had
// from its exec.Cmd.
type Handoff struct {
	Argv  []string
	Env   []string
	Dir   string
	Stdio [3]*os.File // standard input, output and error
	Ctty  bool        // Stdio[0] is a terminal, to be the session's own
}
