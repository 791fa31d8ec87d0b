package mask

import (
	"bytes"
	"strings"
	"testing"
)

// reference masks the whole input at once, the plain way: mark every
// visible byte of every occurrence in the visible text, then write the
// input with one Replacement per run of marked visible bytes, the
// invisible bytes kept where they are.
func reference(secrets []string, in string) string {
	var p projection
	p.project([]byte(in), true)
	vis := string(p.vis)
	marked := make([]bool, len(vis))
	for _, s := range secrets {
		s = visible(s)
		if s == "" {
			continue
		}
		for i := 0; i+len(s) <= len(vis); i++ {
			if vis[i:i+len(s)] == s {
				for k := i; k < i+len(s); k++ {
					marked[k] = true
				}
			}
		}
	}
	rawToVis := map[int]int{}
	for k := range len(vis) { // every byte: a secret may end inside a character
		rawToVis[p.raw(k)] = k
	}
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		k, shown := rawToVis[i]
		switch {
		case !shown || !marked[k]:
			b.WriteByte(in[i])
		case k == 0 || !marked[k-1]:
			b.WriteString(Replacement)
		}
	}
	return b.String()
}

// stream masks in through a Masker, cut at the given offsets.
func stream(secrets []string, in string, cuts []int) string {
	m := New(secrets)
	var out bytes.Buffer
	prev := 0
	for _, c := range cuts {
		c = min(max(c, prev), len(in))
		out.Write(m.Write([]byte(in[prev:c])))
		prev = c
	}
	out.Write(m.Write([]byte(in[prev:])))
	out.Write(m.Flush())
	return out.String()
}

func TestMask(t *testing.T) {
	for _, tc := range []struct {
		secrets []string
		in      string
		want    string
	}{
		{nil, "plain text", "plain text"},
		{[]string{"hunter22"}, "pw: hunter22\r\n", "pw: ********\r\n"},
		{[]string{"hunter22"}, "hunter22hunter22 hunter2", "******** hunter2"},
		{[]string{"abc", "cde"}, "xabcdex", "x********x"}, // overlapping: nothing of either is left
		{[]string{"abcdef", "abc"}, "abcde abc abcdef", "********de ******** ********"},
		{[]string{"aa"}, "aaa", "********"},
		{[]string{""}, "text", "text"},
	} {
		got := stream(tc.secrets, tc.in, nil)
		if got != tc.want {
			t.Errorf("mask %q in %q = %q, want %q", tc.secrets, tc.in, got, tc.want)
		}
		if ref := reference(tc.secrets, tc.in); ref != tc.want {
			t.Errorf("reference %q in %q = %q, want %q", tc.secrets, tc.in, ref, tc.want)
		}
	}
}

// Every split of the input, byte by byte included, gives the same output.
func TestMaskEverySplit(t *testing.T) {
	secrets := []string{"sk-proj-0123456789", "s3cr3t-pw", "3cr"}
	in := "key=sk-proj-0123456789 then s3cr3t-pw, sk-proj-01 half, s3cr3t-pws3cr3t-pw and 3cr"
	want := reference(secrets, in)
	for i := 0; i <= len(in); i++ {
		for j := i; j <= len(in); j++ {
			if got := stream(secrets, in, []int{i, j}); got != want {
				t.Fatalf("cut at %d,%d: %q, want %q", i, j, got, want)
			}
		}
	}
	var each []int
	for i := range len(in) {
		each = append(each, i)
	}
	if got := stream(secrets, in, each); got != want {
		t.Fatalf("byte by byte: %q, want %q", got, want)
	}
}

// Only a tail that may start a secret is held back.
func TestMaskHoldsOnlyAPossibleSecret(t *testing.T) {
	m := New([]string{"hunter22"})
	if got := string(m.Write([]byte("Password: "))); got != "Password: " {
		t.Fatalf("held back text that starts no secret: %q", got)
	}
	if got := string(m.Write([]byte("ok hunt"))); got != "ok " {
		t.Fatalf("want the possible start held: %q", got)
	}
	if got := string(m.Write([]byte("er2"))); got != "" {
		t.Fatalf("want still held: %q", got)
	}
	if got := string(m.Write([]byte("2!"))); got != Replacement+"!" {
		t.Fatalf("want masked: %q", got)
	}
	m.Write([]byte("hun"))
	if got := string(m.Flush()); got != "hun" {
		t.Fatalf("flush gives the tail back: %q", got)
	}
}

// A secret added later masks from then on.
func TestMaskAdd(t *testing.T) {
	m := New(nil)
	if m.Active() {
		t.Fatal("active without secrets")
	}
	in := []byte("no secret yet")
	if got := m.Write(in); &got[0] != &in[0] {
		t.Fatal("an idle masker copies")
	}
	m.Add("hunter22")
	m.Add("hunter22")
	if got := string(m.Write([]byte("echo hunter22\n"))); got != "echo "+Replacement+"\n" {
		t.Fatalf("got %q", got)
	}
}

func FuzzMaskSplit(f *testing.F) {
	f.Add("sk-proj-0123456789\x003cr", "key=sk-proj-0123456789 3cr s3cr3t", uint16(5), uint16(17))
	f.Add("abc\x00cde", "xabcdex abcde", uint16(2), uint16(3))
	f.Add("aa", "aaaaa", uint16(1), uint16(2))
	f.Add("abcdefgh\x00defghijklm\x00xyzxyzxyz", "abcdefghijklm xyzxyzxyzxyz abcdefg", uint16(4), uint16(20))
	f.Add("\x1b[0m\x00pass", "\x1b[0mpass\x1b[0", uint16(0), uint16(4))
	f.Add("sk-redteam-0123", "key sk-r\x1b[medteam-0\x1b]0;t\x07123\x00 sk-r\x1b[1;3", uint16(6), uint16(9))
	f.Fuzz(func(t *testing.T, secretList, in string, a, b uint16) {
		secrets := strings.Split(secretList, "\x00")
		want := reference(secrets, in)
		cuts := []int{int(a) % (len(in) + 1), int(b) % (len(in) + 1)}
		if got := stream(secrets, in, cuts); got != want {
			t.Fatalf("secrets %q in %q cut %v: %q, want %q", secrets, in, cuts, got, want)
		}
		var p projection
		p.project([]byte(want), true)
		for _, s := range secrets {
			if s = visible(s); s != "" && !strings.Contains(s, "*") && strings.Contains(string(p.vis), s) {
				t.Fatalf("secret %q left in %q", s, want)
			}
		}
	})
}

// A secret split by escape sequences or control characters shows whole
// on a terminal: it is masked, and the sequences stay.
func TestMaskSeesThroughEscapes(t *testing.T) {
	const key = "sk-redteam-0123456789"
	for _, tc := range []struct{ in, want string }{
		{"sk-r\x1b[medteam-0123456789\r\n", "********\x1b[m\r\n"},
		{"a sk-r\x1b]8;;http://x\x1b\\edteam\x00-0123456789 b", "a ********\x1b]8;;http://x\x1b\\\x00 b"},
		{"sk-r\x1b(Bedteam-\x07\x7f0123456789", "********\x1b(B\x07\x7f"},
		{"\x1b[31msk-redteam-0123456789\x1b[0m", "\x1b[31m********\x1b[0m"},
		{"sk-r\redteam-0123456789", "sk-r\redteam-0123456789"}, // a rewrite: for the renderer
	} {
		if got := stream([]string{key}, tc.in, nil); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.in, got, tc.want)
		}
		for i := 0; i <= len(tc.in); i++ {
			if got := stream([]string{key}, tc.in, []int{i}); got != tc.want {
				t.Fatalf("%q cut at %d: got %q, want %q", tc.in, i, got, tc.want)
			}
		}
	}
}

func TestVisible(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\r\n":                  "plain\ttext\r\n",
		"\x1b[1;31mred\x1b[0m":             "red",
		"\x1b]0;title\x07a\x1b]0;t\x1b\\b": "ab",
		"\x1bPq#0;2;0;0;0\x1b\\c":          "c",
		"\x1b(0x\x1b(B":                    "x",
		"\x1b7d\x1b8":                      "d",
		"a\x00b\x08c\x7fd":                 "abcd",
		"\x1b[12\x1b[me":                   "e",  // a sequence cut short by another
		"\x1b[1\x18f":                      "f",  // CAN ends it
		"\x1b]unterminated":                "",   // whole: the rest is the string
		"é\x1b[mè":                         "éè", // UTF-8 untouched
	} {
		if got := visible(in); got != want {
			t.Errorf("visible(%q) = %q, want %q", in, got, want)
		}
	}
}

// A beginning of a secret followed by endless invisible output is let go,
// masked, rather than held for ever.
func TestMaskHoldIsBounded(t *testing.T) {
	m := New([]string{"hunter22-secret"})
	out := string(m.Write([]byte("ok hunter")))
	for range 200 {
		out += string(m.Write([]byte("\x1b[0m\x1b[0m\x1b[0m\x1b[0m\x1b[0m\x1b[0m\x1b[0m\x1b[0m")))
	}
	if !strings.HasPrefix(out, "ok "+Replacement+"\x1b[0m") || strings.Contains(out, "hunter") {
		t.Fatalf("got %q", out[:min(len(out), 40)])
	}
	if len(m.held) > maxHeld {
		t.Fatalf("holding %d bytes", len(m.held))
	}
}
