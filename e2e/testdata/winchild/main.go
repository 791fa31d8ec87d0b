// Command winchild is a Windows program that the Wine end-to-end tests
// run under termhelper.exe. Each mode says what it did on its output and
// stays until it is ended; every process it makes carries the marker the
// test gave in its command line, so the test finds them from Linux (each
// Windows process under Wine is a Linux process).
//
//	winchild sleep MARKER    sleep
//	winchild tree MARKER     start "winchild sleep MARKER", then sleep
//	winchild listen MARKER   listen on a loopback port of the system's choosing
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"time"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: winchild sleep|tree|listen MARKER")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "sleep":
		fmt.Println("sleeping", os.Getpid())
	case "tree":
		child := exec.Command(os.Args[0], "sleep", os.Args[2])
		child.Stdout = os.Stdout
		if err := child.Start(); err != nil {
			fmt.Println("tree:", err)
			os.Exit(1)
		}
		fmt.Println("tree", os.Getpid(), child.Process.Pid)
	case "listen":
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Println("listen:", err)
			os.Exit(1)
		}
		fmt.Printf("listening on %d\n", l.Addr().(*net.TCPAddr).Port)
	default:
		os.Exit(2)
	}
	time.Sleep(time.Hour)
}
