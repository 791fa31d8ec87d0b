package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"testing"
)

// BenchmarkNetLoopbackConnect measures a loopback connect and close from a
// command, unfiltered and through the supervisor, in the same run: the
// difference is what the helper adds to each connect.
func BenchmarkNetLoopbackConnect(b *testing.B) {
	for _, mode := range []Network{NetworkOpen, NetworkProxy} {
		name := map[Network]string{NetworkOpen: "unfiltered", NetworkProxy: "supervised"}[mode]
		b.Run(name, func(b *testing.B) {
			ln := listenTCP(b, "tcp4", "127.0.0.1")
			go acceptAll(ln)
			in, out := benchChild(b, mode, ln.Addr().String())
			b.ResetTimer()
			fmt.Fprintf(in, "%d\n", b.N)
			if line, err := out.ReadString('\n'); err != nil || line != "done\n" {
				b.Fatalf("the child said %q, %v", line, err)
			}
		})
	}
}

// benchChild starts the bench attempt, under the filter for mode, and
// returns its input and output.
func benchChild(b *testing.B, mode Network, addr string) (io.Writer, *bufio.Reader) {
	f := attempt(b, "bench", childOpts{mode: mode, stdin: true, pipe: true, env: []string{"ADDR=" + addr}})
	return f.stdin, f.stdout
}
