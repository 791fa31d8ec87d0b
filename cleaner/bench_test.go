package cleaner

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// coloredLog returns about n bytes of log lines colored with SGR, the way
// loggers and test runners write to a terminal.
func coloredLog(n int) []byte {
	var b bytes.Buffer
	levels := []string{"\x1b[32mINFO\x1b[0m", "\x1b[33mWARN\x1b[0m", "\x1b[1;31mERROR\x1b[0m", "\x1b[36mDEBUG\x1b[0m"}
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\x1b[2m2024-05-01T12:%02d:%02d.%03dZ\x1b[0m %s \x1b[1mworker-%d\x1b[0m processed request id=%d path=/api/v1/items/%d status=200 in %dms\r\n",
			i/60%60, i%60, i%1000, levels[i%len(levels)], i%8, i, i*7, i%250)
	}
	return b.Bytes()
}

// plainLog returns about n bytes of uncolored log lines.
func plainLog(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "2024-05-01T12:00:00Z INFO worker-%d processed request id=%d path=/api/v1/items/%d status=200\r\n", i%8, i, i*7)
	}
	return b.Bytes()
}

// progressCapture returns about n bytes of carriage-return progress bars
// and multi-line cursor-up redraws, as package managers draw them.
func progressCapture(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		pct := i % 101
		bar := bytes.Repeat([]byte("#"), pct/4)
		fmt.Fprintf(&b, "\r\x1b[K\x1b[36mDownloading\x1b[0m [%-25s] %3d%% %d/%d MB", bar, pct, pct, 100)
		if i%10 == 0 {
			fmt.Fprintf(&b, "\n\x1b[2K layer %d: %d%%\n\x1b[2K layer %d: %d%%\n\x1b[3A", i, pct, i+1, pct)
		}
		if pct == 100 {
			b.WriteString("\r\n")
		}
	}
	return b.Bytes()
}

// wideLog returns about n bytes of lines of 300 to 2000 characters, which
// wrap on a terminal and leave its screen while still being written.
func wideLog(n int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "record %d: %s\r\n", i, bytes.Repeat([]byte("field=value "), 25+i%150))
	}
	return b.Bytes()
}

func benchClean(b *testing.B, data []byte, chunk int) { benchCleanOn(b, data, chunk, 0) }

// benchCleanOn cleans data as a stream on a terminal of cols columns (0:
// through pipes).
func benchCleanOn(b *testing.B, data []byte, chunk, cols int) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	opts := Options{Cols: cols, Rows: 48, Spill: func() (io.Writer, string, error) { return io.Discard, "/dev/null", nil }}
	for b.Loop() {
		c := New(opts)
		for p := data; len(p) > 0; {
			n := min(chunk, len(p))
			c.Write(p[:n])
			p = p[n:]
		}
		c.Take(true)
	}
}

func BenchmarkColoredLog(b *testing.B) { benchClean(b, coloredLog(8<<20), 32<<10) }

func BenchmarkPlainLog(b *testing.B) { benchClean(b, plainLog(8<<20), 32<<10) }

func BenchmarkProgress(b *testing.B) { benchClean(b, progressCapture(4<<20), 4<<10) }

func BenchmarkColoredLogTerminal(b *testing.B) { benchCleanOn(b, coloredLog(8<<20), 32<<10, 160) }

func BenchmarkPlainLogTerminal(b *testing.B) { benchCleanOn(b, plainLog(8<<20), 32<<10, 160) }

func BenchmarkProgressTerminal(b *testing.B) { benchCleanOn(b, progressCapture(4<<20), 4<<10, 160) }

func BenchmarkWrappedLinesTerminal(b *testing.B) { benchCleanOn(b, wideLog(8<<20), 32<<10, 160) }

func BenchmarkLegacyEncoding(b *testing.B) {
	data := coloredLog(4 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c := New(Options{Encoding: "windows-1252", Spill: func() (io.Writer, string, error) { return io.Discard, "", nil }})
		c.Write(data)
		c.Take(true)
	}
}

func BenchmarkUTF8Stream(b *testing.B) {
	data := coloredLog(1 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var u UTF8Stream
		for p := data; len(p) > 0; {
			n := min(4096, len(p))
			u.Decode(p[:n])
			p = p[n:]
		}
	}
}

// BenchmarkGenerationPerWrite is ColoredLogTerminal with Generation called
// after every write of 4 KiB, as a caller watching the screen does.
func BenchmarkGenerationPerWrite(b *testing.B) {
	data := coloredLog(8 << 20)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		c := New(Options{Cols: 160, Rows: 48})
		for p := data; len(p) > 0; {
			n := min(4<<10, len(p))
			c.Write(p[:n])
			c.Generation()
			p = p[n:]
		}
		c.Take(true)
	}
}
