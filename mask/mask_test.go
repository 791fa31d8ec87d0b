package mask

import (
	"bytes"
	"strings"
	"testing"
)

// reference masks the whole input at once, the plain way: mark every byte
// of every occurrence, then write one Replacement per run of marked bytes.
func reference(secrets []string, in string) string {
	marked := make([]bool, len(in))
	for _, s := range secrets {
		if s == "" {
			continue
		}
		for i := 0; i+len(s) <= len(in); i++ {
			if in[i:i+len(s)] == s {
				for k := i; k < i+len(s); k++ {
					marked[k] = true
				}
			}
		}
	}
	var b strings.Builder
	for i := 0; i < len(in); i++ {
		switch {
		case !marked[i]:
			b.WriteByte(in[i])
		case i == 0 || !marked[i-1]:
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
	f.Fuzz(func(t *testing.T, secretList, in string, a, b uint16) {
		secrets := strings.Split(secretList, "\x00")
		want := reference(secrets, in)
		cuts := []int{int(a) % (len(in) + 1), int(b) % (len(in) + 1)}
		if got := stream(secrets, in, cuts); got != want {
			t.Fatalf("secrets %q in %q cut %v: %q, want %q", secrets, in, cuts, got, want)
		}
		for _, s := range secrets {
			if s != "" && !strings.Contains(s, "*") && strings.Contains(want, s) {
				t.Fatalf("secret %q left in %q", s, want)
			}
		}
	})
}
