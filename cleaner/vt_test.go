package cleaner

import (
	"strings"
	"testing"
)

// vtCases pairs raw terminal output with what a terminal shows at the end.
// Each runs with no terminal and on a terminal of 160 columns, unless
// term says it needs the terminal.
var vtCases = []struct {
	name, raw, want string
	term            bool
}{
	{"plain", "hello\nworld\n", "hello\nworld\n", false},
	{"no final newline", "hello", "hello", false},
	{"crlf", "a\r\nb\r\n", "a\nb\n", false},
	{"empty", "", "", false},
	{"blank lines", "a\n\n\nb\n\n", "a\n\n\nb\n\n", false},
	{"sgr", "\x1b[1;31merror\x1b[0m: bad\n", "error: bad\n", false},
	{"sgr 256 and truecolor", "\x1b[38;5;196mx\x1b[38;2;1;2;3my\x1b[m\n", "xy\n", false},
	{"trailing spaces", "abc   \n", "abc\n", false},
	{"cr overwrite", "10%\r20%\r30%\n", "30%\n", false},
	{"cr shorter keeps tail", "abcdef\rxy\n", "xycdef\n", false},
	{"backspace", "abc\b\bX\n", "aXc\n", false},
	{"backspace at start", "\b\bab\n", "ab\n", false},
	{"tab", "a\tb\n", "a       b\n", false},
	{"tab at 8", "12345678\tx\n", "12345678        x\n", false},
	{"tab over text", "abcdefghij\r\tX\n", "abcdefghXj\n", false},
	{"erase line right", "abcdef\r\x1b[Kxy\n", "xy\n", false},
	{"erase line right mid", "abcdef\x1b[3D\x1b[0K\n", "abc\n", false},
	{"erase line left", "abcdef\x1b[3D\x1b[1K\n", "    ef\n", false},
	{"erase line all", "abcdef\x1b[2Kxy\n", "      xy\n", false},
	{"cursor left right", "abc\x1b[2DX\x1b[CY\n", "aXcY\n", false},
	{"cursor column", "abcdef\x1b[3GX\n", "abXdef\n", false},
	{"cursor column default", "abcdef\x1b[GX\n", "Xbcdef\n", false},
	{"cursor up redraw", "a 1%\nb 1%\n\x1b[2Aa 50%\nb 60%\n", "a 50%\nb 60%\n", false},
	{"cursor up erase redraw", "one\ntwo\nthree\n\x1b[3A\x1b[2KONE\n\x1b[2KTWO\n\x1b[2KTHREE\n", "ONE\nTWO\nTHREE\n", false},
	{"cursor up clamps", "a\nb\n\x1b[99AX\n", "X\nb\n", false},
	{"cursor down", "a\nb\nc\x1b[2A\x1b[1BX\n", "a\nbX\nc", false},
	{"cursor down into blank rows", "a\nb\x1b[2BX", "a\nb\n\n X", false},
	{"cursor down clamps", "a\x1b[99BX", "a" + strings.Repeat("\n", 63) + " X", false},
	{"dcs empty", "\x1bP\x1b\\after\n", "after\n", false},
	{"dcs sixel", "\x1bPq#0;2;0;0;0#0~~@@vv@@~~\x1b\\after\n", "after\n", false},
	{"can aborts", "\x1b[1\x18x\n", "x\n", false},
	{"cup", "\x1b[2J\x1b[Htop\x1b[3;5Hthird\x1b[4;1H", "top\n\n    third\n", false},
	{"cup lines below kept", "x\ny\nz\n\x1b[1;1HX", "X\ny\nz\n", false},
	{"clear screen then draw", "old1\nold2\n\x1b[H\x1b[2Jnew\n", "new\n", false},
	{"erase below", "a\nb\nc\n\x1b[2A\x1b[J", "a\n", false},
	{"erase above", "aa\nbb\ncc\x1b[1;1H\x1b[1B\x1b[1J", "\n b\ncc", false},
	{"save restore", "ab\x1b7cd\x1b8X\n", "abXd\n", false},
	{"csi save restore", "ab\x1b[scd\x1b[uX\n", "abXd\n", false},
	{"osc title bel", "\x1b]0;my title\x07text\n", "text\n", false},
	{"osc title st", "\x1b]2;title\x1b\\text\n", "text\n", false},
	{"osc utf8 title", "\x1b]0;Мир ĜĜ\x07ok\n", "ok\n", false},
	{"osc hyperlink", "\x1b]8;;http://x.y/\x1b\\link\x1b]8;;\x1b\\\n", "link\n", false},
	{"osc 133 marks", "\x1b]133;A\x07$ \x1b]133;B\x07ls\n\x1b]133;C\x07out\n\x1b]133;D;0\x07", "$ ls\nout\n", false},
	{"dcs", "\x1bP1$r0m\x1b\\after\n", "after\n", false},
	{"apc", "\x1b_Gi=1;AAAA\x1b\\img\n", "img\n", false},
	{"pm sos", "\x1b^private\x1b\\\x1bXsos\x1b\\ok\n", "ok\n", false},
	{"charset", "\x1b(Bplain\x1b)0\x0e\x0fx\n", "plainx\n", false},
	{"private modes", "\x1b[?25l\x1b[?2004hhi\x1b[?25h\n", "hi\n", false},
	{"alt screen gone", "before\n\x1b[?1049h\x1b[Hdrawn\x1b[?1049lafter\n", "before\nafter\n", false},
	{"alt screen 47 keeps cursor", "ab\x1b[?47hxyz\x1b[?47lc\n", "ab   c\n", false},
	{"c1 csi as code point", "a\u009b31mb\n", "ab\n", false},
	{"c1 osc as code point", "\u009d0;t\u009cok\n", "ok\n", false},
	{"bel and nul", "a\x07b\x00c\n", "abc\n", false},
	{"del", "ab\x7fc\n", "abc\n", false},
	{"utf8", "héllo wörld ✓\n", "héllo wörld ✓\n", false},
	{"wide overwrite", "日本\rX\n", "X 本\n", false},
	{"wide cursor", "日本語\x1b[3GX\n", "日X 語\n", false},
	{"combining", "e\u0301te\n", "e\u0301te\n", false},
	{"combining overwritten", "e\u0301x\rab\n", "ab\n", false},
	{"invalid utf8", "a\xffb\xc3(\n", "a\ufffdb\ufffd(\n", false},
	{"truncated utf8 at end", "ab\xe2\x82", "ab\ufffd\ufffd", false},
	{"unterminated csi at end", "ab\x1b[3", "ab", false},
	{"delete chars", "abcdef\x1b[4D\x1b[2P\n", "abef\n", false},
	{"insert chars", "abcdef\x1b[4D\x1b[2@\n", "ab  cdef\n", false},
	{"erase chars", "abcdef\x1b[4D\x1b[2X\n", "ab  ef\n", false},
	{"next line", "ab\x1bEcd\n", "ab\ncd\n", false},
	{"reverse index", "ab\ncd\x1bMX\n", "abX\ncd", false},
	{"vt ff", "a\vb\fc\n", "a\nb\nc\n", false},
	{"lf keeps no column", "abc\ndef", "abc\ndef", false},
	{"insert line", "a\nb\nc\x1b[2A\x1b[LX", "X\na\nb\nc", false},
	{"delete line", "a\nb\nc\x1b[2A\x1b[M", "b\nc\n", false},
	{"utf16 bom", "\xff\xfeh\x00i\x00\n\x00", "hi\n", false},
	{"utf8 bom", "\xef\xbb\xbfhi\n", "hi\n", false},
	{"lone ff", "\xffa", "\ufffda", false},
	{"forward clamps to cols", "\x1b[999Cx\n", strings.Repeat(" ", 159) + "x\n", true},
	{"reset", "abc\x1bcX\n", "X\n", false},
}

// vtOptions returns the options a case runs with.
func vtOptions(term bool) []Options {
	if term {
		return []Options{{Cols: 160}}
	}
	return []Options{{}, {Cols: 160}}
}

func TestVT(t *testing.T) {
	for _, tc := range vtCases {
		t.Run(tc.name, func(t *testing.T) {
			for _, o := range vtOptions(tc.term) {
				got := Clean([]byte(tc.raw), o)
				if got.Text != tc.want {
					t.Errorf("Cols %d: Clean(%q)\n got %q\nwant %q", o.Cols, tc.raw, got.Text, tc.want)
				}
				if got.Truncated {
					t.Errorf("Truncated = true")
				}
			}
		})
	}
}

// TestVTChunked feeds each case one byte at a time: the result must not
// depend on how writes split the input.
func TestVTChunked(t *testing.T) {
	for _, tc := range vtCases {
		for _, o := range vtOptions(tc.term) {
			c := New(o)
			for i := range len(tc.raw) {
				c.Write([]byte{tc.raw[i]})
			}
			if got := c.Take(true).Text; got != tc.want {
				t.Errorf("%s, Cols %d: byte by byte got %q, want %q", tc.name, o.Cols, got, tc.want)
			}
		}
	}
}
