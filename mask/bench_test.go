package mask

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	"github.com/termhelper/termhelper/cleaner"
)

// benchLog returns about n bytes of colored log lines in which one secret
// shows up now and then.
func benchLog(n int, secret string) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\x1b[2m2024-05-01T12:%02d:%02d\x1b[0m \x1b[32mINFO\x1b[0m worker-%d processed request id=%d path=/api/v1/items/%d status=200\r\n",
			i/60%60, i%60, i%8, i, i*7)
		if i%500 == 0 {
			fmt.Fprintf(&b, "config: api_key=%s\r\n", secret)
		}
	}
	return b.Bytes()
}

// benchSecrets is what a developer's environment typically holds: a few
// API keys and tokens, and one password typed into a prompt.
var benchSecrets = []string{
	"sk-proj-4f8a9c2e1b7d6f3a0e5c9b8a7d6f5e4c", "ghp_9Zx8Yw7Vu6Ts5Rq4Po3Nm2Lk1Jh0Gf",
	"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
	"xoxb-1234567890-0987654321-abcdefghij", "hunter22",
}

// BenchmarkPipeline compares what each output chunk costs with masking
// and without, the cleaner included, as a session runs them.
func BenchmarkPipeline(b *testing.B) {
	data := benchLog(4<<20, benchSecrets[0])
	b.Run("unmasked", func(b *testing.B) { benchPipeline(b, data, nil) })
	b.Run("masked", func(b *testing.B) { benchPipeline(b, data, benchSecrets) })
}

func benchPipeline(b *testing.B, data []byte, secrets []string) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	opts := cleaner.Options{Spill: func() (io.Writer, string, error) { return io.Discard, "/dev/null", nil }}
	for b.Loop() {
		c := cleaner.New(opts)
		m := New(secrets)
		for p := data; len(p) > 0; {
			n := min(32*1024, len(p))
			c.Write(m.Write(p[:n]))
			p = p[n:]
		}
		c.Write(m.Flush())
		c.Take(true)
	}
}

// BenchmarkMasker is the masker alone.
func BenchmarkMasker(b *testing.B) { benchMasker(b, benchSecrets) }

// BenchmarkMaskerManySecrets: 40 secrets cost about what 6 do.
func BenchmarkMaskerManySecrets(b *testing.B) {
	secrets := append([]string(nil), benchSecrets...)
	for i := len(secrets); i < 40; i++ {
		secrets = append(secrets, fmt.Sprintf("tok-%08x-%016x", i*7919, i*104729))
	}
	benchMasker(b, secrets)
}

func benchMasker(b *testing.B, secrets []string) {
	data := benchLog(4<<20, benchSecrets[0])
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		m := New(secrets)
		for p := data; len(p) > 0; {
			n := min(32*1024, len(p))
			m.Write(p[:n])
			p = p[n:]
		}
		m.Flush()
	}
}
