package cleaner

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/cleaner/*.txtar")

const goldenDir = "../testdata/cleaner"

// archive is a txtar file: named sections of bytes.
type archive struct {
	names []string
	data  map[string][]byte
}

// isMarker reports whether line is a txtar section marker, "-- name --".
func isMarker(line []byte) (string, bool) {
	if !bytes.HasPrefix(line, []byte("-- ")) || !bytes.HasSuffix(line, []byte(" --")) || len(line) < 7 {
		return "", false
	}
	return string(bytes.TrimSpace(line[3 : len(line)-3])), true
}

// parseArchive reads a txtar file. A section's data runs up to the newline
// before the next marker (or the end of the file); that newline belongs to
// the format, so data that does not end in a newline survives a round trip.
func parseArchive(b []byte) (*archive, error) {
	a := &archive{data: map[string][]byte{}}
	var cur string
	var buf []byte
	flush := func() {
		if cur != "" {
			a.data[cur] = bytes.TrimSuffix(buf, []byte("\n"))
		}
	}
	for len(b) > 0 {
		line, rest, _ := bytes.Cut(b, []byte("\n"))
		if name, ok := isMarker(line); ok {
			flush()
			cur, buf = name, nil
			a.names = append(a.names, name)
		} else if cur != "" {
			buf = append(buf, line...)
			if len(rest) > 0 || bytes.HasSuffix(b, []byte("\n")) {
				buf = append(buf, '\n')
			}
		}
		b = rest
	}
	flush()
	if _, ok := a.data["raw"]; !ok {
		return nil, fmt.Errorf("no raw section")
	}
	return a, nil
}

func (a *archive) format() ([]byte, error) {
	var out bytes.Buffer
	for _, name := range a.names {
		for _, line := range bytes.Split(a.data[name], []byte("\n")) {
			if _, ok := isMarker(line); ok {
				return nil, fmt.Errorf("section %s has a line that reads as a marker: %q", name, line)
			}
		}
		fmt.Fprintf(&out, "-- %s --\n", name)
		out.Write(a.data[name])
		out.WriteByte('\n')
	}
	return out.Bytes(), nil
}

func goldenFiles(t testing.TB) []string {
	files, err := filepath.Glob(filepath.Join(goldenDir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	return files
}

func readGolden(t testing.TB, file string) *archive {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	a, err := parseArchive(b)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return a
}

// TestGolden cleans real captures and compares with hand-checked text.
// An optional "options" section sets MaxLineChars, MaxStreamChars, Cols
// and Rows; the captures were made on a terminal, so Cols is 160 unless
// set (Cols=0 for a capture read through pipes).
func TestGolden(t *testing.T) {
	for _, file := range goldenFiles(t) {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			a := readGolden(t, file)
			opts := goldenOptions(t, a.data["options"])
			resize := goldenResize(t, a.data["options"])
			c := New(opts)
			writeResizing(c, a.data["raw"], len(a.data["raw"]), resize)
			checkScreen(t, c.Screen(), a)
			got := c.Take(true).Text
			if *update {
				if _, ok := a.data["want"]; !ok {
					a.names = append(a.names, "want")
				}
				a.data["want"] = []byte(got)
				b, err := a.format()
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := string(a.data["want"]); got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			for _, size := range []int{1, 7, 64} {
				c := New(opts)
				writeResizing(c, a.data["raw"], size, resize)
				if chunked := c.Take(true).Text; chunked != got {
					t.Errorf("in chunks of %d: got\n%s", size, chunked)
				}
			}
		})
	}
}

// checkScreen compares the screen at the end of a capture with the screen
// and cursor sections, which hold what a terminal showed (see
// tmuxcheck.py): rows with trailing spaces and trailing empty rows trimmed,
// and "row col alt=0|1".
func checkScreen(t *testing.T, sc Screen, a *archive) {
	t.Helper()
	want, ok := a.data["screen"]
	if !ok {
		return
	}
	lines := slices.Clone(sc.Lines)
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if got := strings.Join(lines, "\n"); got != strings.TrimRight(string(want), "\n") {
		t.Errorf("screen:\n%s\nwant:\n%s", got, want)
	}
	alt := 0
	if sc.AltScreen {
		alt = 1
	}
	cursor := fmt.Sprintf("%d %d alt=%d", sc.CursorRow, sc.CursorCol, alt)
	if want := strings.TrimSpace(string(a.data["cursor"])); cursor != want {
		t.Errorf("cursor %q, want %q", cursor, want)
	}
}

// resizeAt is a golden's Resize=OFFSET:COLS:ROWS option: the terminal
// was resized after the first OFFSET bytes of the capture.
type resizeAt struct{ offset, cols, rows int }

func goldenResize(t *testing.T, b []byte) *resizeAt {
	for _, line := range strings.Fields(string(b)) {
		if v, ok := strings.CutPrefix(line, "Resize="); ok {
			var r resizeAt
			if _, err := fmt.Sscanf(v, "%d:%d:%d", &r.offset, &r.cols, &r.rows); err != nil {
				t.Fatalf("option %q: %v", line, err)
			}
			return &r
		}
	}
	return nil
}

// writeResizing writes raw in chunks of size, resizing where the golden
// says.
func writeResizing(c *Cleaner, raw []byte, size int, r *resizeAt) {
	for i := 0; i < len(raw); {
		n := min(size, len(raw)-i)
		if r != nil && i < r.offset && i+n > r.offset {
			n = r.offset - i
		}
		c.Write(raw[i : i+n])
		i += n
		if r != nil && i == r.offset {
			c.Resize(r.cols, r.rows)
		}
	}
}

func goldenOptions(t *testing.T, b []byte) Options {
	o := Options{Cols: 160}
	for _, line := range strings.Fields(string(b)) {
		var err error
		switch k, v, _ := strings.Cut(line, "="); k {
		case "Resize":
		case "MaxLineChars":
			_, err = fmt.Sscan(v, &o.MaxLineChars)
		case "MaxStreamChars":
			_, err = fmt.Sscan(v, &o.MaxStreamChars)
		case "Rows":
			_, err = fmt.Sscan(v, &o.Rows)
		case "Cols":
			_, err = fmt.Sscan(v, &o.Cols)
		default:
			t.Fatalf("unknown option %q", line)
		}
		if err != nil {
			t.Fatalf("option %q: %v", line, err)
		}
	}
	return o
}

func cleanChunked(raw []byte, opts Options, size int) string {
	c := New(opts)
	for p := raw; len(p) > 0; {
		n := min(size, len(p))
		c.Write(p[:n])
		p = p[n:]
	}
	return c.Take(true).Text
}

func TestArchiveRoundTrip(t *testing.T) {
	for _, data := range []string{"", "a", "a\n", "a\n\n", "\n", "x\r\ny"} {
		a := &archive{names: []string{"raw", "want"}, data: map[string][]byte{"raw": []byte(data), "want": []byte(data + "z")}}
		b, err := a.format()
		if err != nil {
			t.Fatal(err)
		}
		back, err := parseArchive(b)
		if err != nil {
			t.Fatal(err)
		}
		if string(back.data["raw"]) != data || string(back.data["want"]) != data+"z" {
			t.Errorf("%q came back as %q, %q", data, back.data["raw"], back.data["want"])
		}
	}
}
