//go:build linux

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// env is what every section shares: the flags and a scratch folder.
type env struct {
	bin   string // the termhelper binary under test
	self  string // this program, started again as a child (see child.go)
	repo  string // the module root, for the cleaner's Go benchmarks
	quick bool
	tmp   string // scratch: the helper's root, TMPDIR and config folder
	prof  string // folder for CPU profiles of a profiling build, or ""

	section string // the section running, to name profiles
	nprof   int
}

// reps picks the full or the quick count.
func (e *env) reps(full, quick int) int {
	if e.quick {
		return quick
	}
	return full
}

// section is one measure of the issue; it returns table rows and notes.
type section struct {
	name string
	run  func(*env) (result, error)
}

var sections = []section{
	{"start", benchStart},
	{"mcpstart", benchMCPStart},
	{"modelread", benchModelRead},
	{"attach", benchAttach},
	{"shutdown", benchShutdown},
	{"roundtrip", benchRoundTrip},
	{"peers", benchPeers},
	{"exit", benchExit},
	{"prompt", benchPrompt},
	{"bigoutput", benchBigOutput},
	{"throughput", benchThroughput},
	{"concurrency", benchConcurrency},
	{"listing", benchListing},
	{"cleaner", benchCleaner},
	{"diagnostics", benchDiag},
	{"mask", benchMask},
	{"egress", benchEgress},
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "child" {
		os.Exit(runChild(os.Args[2:]))
	}
	os.Exit(run())
}

func run() int {
	e, only, out, err := parseFlags()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 2
	}
	defer os.RemoveAll(e.tmp)
	host := machine(e.repo) // before the run, for the load average
	start := time.Now()
	all, failed := runSections(e, only)
	report := render(all, host, e.quick, time.Since(start))
	fmt.Print(report)
	if out != "" {
		if err := writeReport(out, report); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
	}
	if failed {
		return 1
	}
	return 0
}

// runSections runs the chosen sections; one that fails is reported in the
// notes and the others still run, so that one broken measure does not hide
// the rest.
func runSections(e *env, only string) ([]result, bool) {
	var all []result
	failed := false
	for _, s := range sections {
		if only != "" && !inList(only, s.name) {
			continue
		}
		fmt.Fprintf(os.Stderr, "bench: %s...\n", s.name)
		e.section = s.name
		r, err := s.run(e)
		if err != nil {
			fmt.Fprintf(os.Stderr, "bench: %s: %v\n", s.name, err)
			r.notes = append(r.notes, fmt.Sprintf("%s failed: %v", s.name, err))
			failed = true
		}
		all = append(all, r)
	}
	return all, failed
}

func parseFlags() (*env, string, string, error) {
	e := &env{}
	var only, out string
	flag.StringVar(&e.bin, "bin", "bin/termhelper", "the termhelper binary to measure")
	flag.BoolVar(&e.quick, "quick", false, "small sizes and few repetitions: proves the suite runs")
	flag.StringVar(&only, "only", "", "comma-separated sections to run: "+sectionNames())
	flag.StringVar(&e.repo, "repo", ".", "the module root (for the cleaner's Go benchmarks)")
	flag.StringVar(&out, "out", "", "also write the report to this file")
	flag.StringVar(&e.prof, "profile", "", "write a CPU profile of every helper spawned to this folder (via --cpuprofile, else a profiling build)")
	flag.Parse()
	if only != "" {
		for _, n := range strings.Split(only, ",") {
			if !inList(sectionNames(), n) {
				return nil, "", "", fmt.Errorf("unknown section %q (want %s)", n, sectionNames())
			}
		}
	}
	return e, only, out, e.prepare()
}

// prepare resolves the binaries and makes the scratch folder.
func (e *env) prepare() error {
	var err error
	if e.self, err = os.Executable(); err != nil {
		return err
	}
	if e.tmp, err = os.MkdirTemp("", "termhelper-bench-"); err != nil {
		return err
	}
	for _, d := range []string{"root", "tmp", "cfg"} {
		if err := os.Mkdir(filepath.Join(e.tmp, d), 0o700); err != nil {
			return err
		}
	}
	if e.bin, err = filepath.Abs(e.bin); err != nil {
		return err
	}
	if _, err := os.Stat(e.bin); err != nil {
		return fmt.Errorf("-bin: %w (build it first: go build -o bin/termhelper .)", err)
	}
	if e.prof != "" {
		return e.setupProfiling()
	}
	return nil
}

func sectionNames() string {
	var names []string
	for _, s := range sections {
		names = append(names, s.name)
	}
	return strings.Join(names, ",")
}

func inList(list, name string) bool {
	for _, n := range strings.Split(list, ",") {
		if strings.TrimSpace(n) == name {
			return true
		}
	}
	return false
}

func writeReport(path, report string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(report), 0o644)
}
