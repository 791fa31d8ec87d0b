package platform

// A job object caps nothing here: no process limit to report.
func (*Process) limitDenials() []Denial { return nil }

// Containment: a command's job object holds every process of its tree,
// and ends with the helper.
func Containment() string { return "" }

// EndStrays has nothing to find: a job holds every process of a command.
func EndStrays() int { return 0 }

// DropSpare has nothing to end: no sandbox trampoline here.
func DropSpare() {}
