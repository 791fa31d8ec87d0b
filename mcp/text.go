package mcp

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/termhelper/termhelper/engine"
	"github.com/termhelper/termhelper/sandbox"
	"github.com/termhelper/termhelper/session"
)

func joinLines(a, b string) string {
	if a == "" {
		return b
	}
	if !strings.HasSuffix(a, "\n") {
		a += "\n"
	}
	return a + b
}

// status is the one line that says where the command stands.
func status(r session.Result) string {
	if r.Exit != nil {
		line := session.Summary(r)
		if r.FullOutputPath != "" {
			line += " · output cut, full text in " + r.FullOutputPath
		}
		return line
	}
	switch r.State {
	case session.Waiting:
		return waitingLine(r) + capNews(r)
	case session.Background:
		return fmt.Sprintf("session %s running in the background", r.ID) + serverNews(r) + capNews(r)
	}
	return fmt.Sprintf("session %s still running (poll with input \"\", wait with until \"exit\", or kill)", r.ID) + capNews(r)
}

// capNews is when the lifetime cap ends a live command: "; ended if left
// without a call for 60 s", or "; ended in 12 s (timeout_ms)".
func capNews(r session.Result) string {
	switch {
	case r.EndsIn <= 0:
		return ""
	case r.Renews:
		return "; ended if left without a call for " + seconds(r.EndsIn)
	}
	return "; ended in " + seconds(r.EndsIn) + " (its timeout)"
}

// seconds is a duration as a model reads it: "60 s", "2.5 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Round(100*time.Millisecond).Seconds(), 'f', -1, 64) + " s"
}

// skippedLine says that a read from a cursor starts later than asked:
// older output is no longer kept in memory.
func skippedLine(r session.Result) string {
	if r.Skipped == 0 {
		return ""
	}
	line := fmt.Sprintf("[... %d bytes of older output are no longer kept here", r.Skipped)
	if r.FullOutputPath != "" {
		line += "; all of it is in " + r.FullOutputPath
	}
	return line + " ...]\n"
}

// moreNote tells a reader from a cursor that the answer stopped at the
// cap: more output follows.
func moreNote(r session.Result) string {
	if !r.More {
		return ""
	}
	return fmt.Sprintf(" · more output: read on with cursor %d", r.Cursor)
}

// serverNews is ", ready, ports 5173" for a server: whether its ready
// line or port was seen, and where it listens.
func serverNews(r session.Result) string {
	var b strings.Builder
	switch {
	case r.Ready == nil:
	case *r.Ready:
		b.WriteString(", ready")
	default:
		b.WriteString(", not ready yet")
	}
	for i, p := range r.Ports {
		if i == 0 {
			b.WriteString(", ports ")
		} else {
			b.WriteString(" ")
		}
		fmt.Fprint(&b, p)
	}
	return b.String()
}

// deniedLine is the one line that says what the sandbox stopped, and
// how a person can allow it; "" when it stopped nothing.
func deniedLine(denied []sandbox.Denial) string {
	if len(denied) == 0 {
		return ""
	}
	var parts []string
	network := false
	for _, d := range denied {
		switch {
		case d.Kind == "network" && d.Host != "":
			parts = append(parts, fmt.Sprintf("network %s:%d", d.Host, d.Port))
			network = true
		case d.Kind == "limit":
			parts = append(parts, d.Reason)
		default:
			parts = append(parts, d.Kind+" "+d.Path)
		}
	}
	line := "sandbox stopped: " + strings.Join(parts, ", ")
	if network {
		line += " (a host is allowed by the user's network_allow in termhelper's config, or by the user when asked)"
	}
	return line
}

// screenText shows a screen row by row, with where the cursor is.
func screenText(id string, sc engine.Screen) string {
	var b strings.Builder
	for _, l := range sc.Lines {
		b.WriteString(l + "\n")
	}
	kind := "screen"
	if sc.AltScreen {
		kind = "full-screen program"
	}
	fmt.Fprintf(&b, "session %s %s, %dx%d, cursor at row %d, column %d", id, kind, sc.Cols, sc.Rows, sc.Cursor.Row, sc.Cursor.Col)
	return b.String()
}

func waitingLine(r session.Result) string {
	line := fmt.Sprintf("session %s waiting for input", r.ID)
	if r.Prompt == nil {
		return line
	}
	line += fmt.Sprintf(": %q", strings.TrimSpace(r.Prompt.Text))
	if r.Prompt.Secret {
		line += " (secret: ask the user)"
	}
	return line
}

func listText(rows []Row) string {
	if len(rows) == 0 {
		return "no sessions"
	}
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "session %s · %s · pid %d · %q", r.SessionID, r.State, r.Pid, r.Command)
		if r.ExitCode != nil {
			fmt.Fprintf(&b, " · exit %d", *r.ExitCode)
		}
		b.WriteString("\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// refusal is the text of a call that did not do what it asked: why, and
// the policy's reasons where there are some.
func refusal(err error) string {
	var re *engine.RefusedError
	var pe *engine.ParamError
	switch {
	case errors.As(err, &pe):
		return "error: " + argumentText(pe)
	case !errors.As(err, &re):
		return "error: " + err.Error()
	}
	text := "refused: " + re.Msg
	for _, r := range re.Reasons {
		text += "\n- " + r
	}
	return text
}

// argNames are the tool's argument names of the engine's fields.
var argNames = func() map[string]string {
	names := map[string]string{}
	for _, f := range reflect.VisibleFields(reflect.TypeOf(Args{})) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" {
			names[f.Name] = name
		}
	}
	return names
}()

// argName is a field as the tool names it; a field the tool does not
// have keeps its Go name.
func argName(f engine.Field) string {
	if n, ok := argNames[string(f)]; ok {
		return n
	}
	return string(f)
}

// argumentText is a bad value in the tool's own words: its argument names.
func argumentText(pe *engine.ParamError) string {
	text := pe.Render(argName)
	for _, noun := range []string{"fields ", "field "} {
		if rest, ok := strings.CutPrefix(text, noun); ok {
			return "argument" + strings.TrimPrefix(noun, "field") + rest
		}
	}
	return text
}
