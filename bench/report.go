//go:build linux

package main

import (
	"fmt"
	"strings"
	"time"
)

// result is what one section found.
type result struct {
	rows  []row
	notes []string
}

// row is one line of the table. Values are already formatted; verdict is
// "yes", "no" or "" where the issue sets no target.
type row struct {
	measure, floor, helper, ratio, target, verdict string
}

func (r *result) add(x row) { r.rows = append(r.rows, x) }

func (r *result) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// render writes the Markdown report: one table, then the notes.
func render(all []result, host string, quick bool, took time.Duration) string {
	var b strings.Builder
	mode := "full"
	if quick {
		mode = "quick (sizes and repetitions cut down: not comparable to the targets)"
	}
	fmt.Fprintf(&b, "\n%s- run: %s, %s\n\n", host, mode, took.Round(time.Second))
	b.WriteString("| measure | floor | termhelper | ratio | target | met |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, r := range all {
		for _, x := range r.rows {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n",
				x.measure, dash(x.floor), dash(x.helper), dash(x.ratio), dash(x.target), dash(x.verdict))
		}
	}
	b.WriteString("\n")
	for _, r := range all {
		for _, n := range r.notes {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	return b.String()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func verdict(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// fmtMiB formats a size given in KiB, as /proc reports it.
func fmtMiB(kib int64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }

func fmtRatio(x float64) string { return fmt.Sprintf("%.2fx", x) }

// ratio is helper over floor, for times.
func ratio(helper, floor time.Duration) float64 {
	if floor <= 0 {
		return 0
	}
	return float64(helper) / float64(floor)
}

func mbps(bytes int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) / 1e6 / d.Seconds()
}
