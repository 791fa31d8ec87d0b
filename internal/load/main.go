// Command load keeps a machine as busy as a shared CI runner can be, so
// that `make test-stress` meets a slow scheduler and a cold disk: four
// spinners per core (a test's process gets a fifth of a core at most, as
// on a runner at a load of 10), a loop per core that starts short-lived
// programs as a build does (process creation contended, pids recycled), a
// writer of large files that fsyncs each one, and a dropper that evicts from the page cache the files tests read
// (the repository, the Go build cache and toolchain, the system's
// programs).
//
// It runs until SIGINT or SIGTERM, until its parent ends (a make killed
// with SIGKILL leaves no load behind), or until -max has passed, and it
// removes what it wrote.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"
)

func main() {
	spin := flag.Int("spin", 4*runtime.NumCPU(), "busy loops")
	execs := flag.Int("exec", runtime.NumCPU(), "loops that start a short-lived program again and again")
	dir := flag.String("dir", os.TempDir(), "folder for the written files")
	writeMB := flag.Int("write-mb", 256, "size of each written file, MiB (0: no writer)")
	drop := flag.String("drop", "", "paths whose pages to drop, "+string(os.PathListSeparator)+"-separated (default: the working folder, the temporary folder, /bin, /usr/bin, /usr/lib, the Go toolchain and build cache)")
	every := flag.Duration("every", 3*time.Second, "how often the page cache is dropped")
	maxRun := flag.Duration("max", 2*time.Hour, "the longest the load runs")
	exit := flag.Bool("exit", false, "exit at once (what the starters run)")
	flag.Parse()
	if *exit {
		return
	}
	log.SetPrefix("load: ")
	log.SetFlags(0)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *maxRun)
	defer cancel()
	ctx = untilOrphaned(ctx)

	for range *spin {
		go spinner(ctx)
	}
	for range *execs {
		go starter(ctx)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if *writeMB > 0 {
			writer(ctx, *dir, *writeMB<<20)
		}
	}()
	paths := dropPaths(*drop)
	log.Printf("%d spinners, %d starters, writing %d MiB files in %s, dropping the page cache of %s every %v",
		*spin, *execs, *writeMB, *dir, strings.Join(paths, ", "), *every)
	dropper(ctx, paths, *every)
	<-done
}

// untilOrphaned ends ctx when the process that started this one ends: a
// load nobody will stop must stop itself.
func untilOrphaned(ctx context.Context) context.Context {
	ctx, cancel := context.WithCancel(ctx)
	parent := os.Getppid()
	go func() {
		defer cancel()
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for os.Getppid() == parent {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
		log.Print("parent gone: stopping")
	}()
	return ctx
}

// spinner keeps one core busy until ctx ends.
func spinner(ctx context.Context) {
	x := uint64(1)
	for ctx.Err() == nil {
		for range 1 << 20 {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	runtime.KeepAlive(x)
}

// starter runs a program that exits at once, again and again, until ctx
// ends: what a build does to the process table.
func starter(ctx context.Context) {
	self, err := os.Executable()
	if err != nil {
		log.Printf("starter stopped: %v", err)
		return
	}
	for ctx.Err() == nil {
		if err := exec.Command(self, "-exit").Run(); err != nil {
			log.Printf("starter stopped: %v", err)
			return
		}
	}
}

// writer writes files of size bytes one after another, fsyncs each and
// removes it, until ctx ends: the disk stays busy and dirty pages compete
// with what tests read.
func writer(ctx context.Context, dir string, size int) {
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i * 7)
	}
	for ctx.Err() == nil {
		if err := writeOne(ctx, dir, size, chunk); err != nil {
			log.Printf("writer stopped: %v", err)
			return
		}
	}
}

func writeOne(ctx context.Context, dir string, size int, chunk []byte) error {
	f, err := os.CreateTemp(dir, "load-*.bin")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	for n := 0; n < size && ctx.Err() == nil; n += len(chunk) {
		if _, err := f.Write(chunk); err != nil {
			return err
		}
	}
	return f.Sync()
}

// dropPaths is the list given, or the default one: what tests read.
func dropPaths(given string) []string {
	if given != "" {
		return filepath.SplitList(given)
	}
	paths := []string{".", os.TempDir(), "/bin", "/usr/bin", "/usr/lib"}
	out, err := exec.Command("go", "env", "GOROOT", "GOCACHE").Output()
	if err != nil {
		log.Printf("the Go toolchain and build cache stay cached: go env: %v", err)
	}
	return append(paths, strings.Fields(string(out))...)
}

// dropper evicts the pages of every file under paths, every interval,
// until ctx ends.
func dropper(ctx context.Context, paths []string, every time.Duration) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		n, err := dropAll(ctx, paths)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			log.Printf("page cache not dropped: %v", err)
			every = time.Hour
		} else if n == 0 {
			log.Print("no file to drop from the page cache")
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// dropAll drops the pages of every regular file under paths and returns
// how many files it went through.
func dropAll(ctx context.Context, paths []string) (int, error) {
	n := 0
	for _, root := range paths {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if ctx.Err() != nil {
				return filepath.SkipAll
			}
			if err != nil || !d.Type().IsRegular() {
				return nil // unreadable or not a file: nothing cached to drop
			}
			if dropErr := dropFile(path); dropErr != nil {
				return fmt.Errorf("%s: %w", path, dropErr)
			}
			n++
			return nil
		})
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
