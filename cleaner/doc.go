// Package cleaner turns the raw bytes a command writes to its terminal into
// text a language model can read.
//
// A terminal model applies what changes the screen and drops every other
// control sequence, so a progress bar leaves only its last state, as a
// terminal would show it. It keeps the main screen and the alternate
// screen of full-screen programs, scroll regions, autowrap with its
// pending wrap, cursor addressing and saving, insertion and deletion of
// lines and characters, every form of erasing, tab stops, wide characters
// and resizing, on top of the VT parser of charmbracelet/x/ansi.
//
// The text is the main screen's: a program's alternate screen never reaches
// it, as xterm shows only what was before and after. Rows joined by
// autowrap are one line in the text. A stream with no terminal (pipes;
// Options.Cols 0) has no width and never wraps. Rows that leave the
// screen are committed and never change again, which keeps memory bounded
// whatever the size of the output: a line longer than the screen is passed
// on piece by piece as its rows leave, and only its head is kept.
//
// Each line is capped at a number of characters, and each window of text
// returned by Take at another: a longer window keeps its head, its tail and
// the lines from the middle that look like errors, and says how much was
// left out and where the full text went. The full text, every character of
// every line, goes to a writer the caller supplies (see package spill);
// the package does no I/O itself. Screen, Generation and LiveLines let a
// caller see the screen as it is now, tell when it changes, and match
// patterns on lines not committed yet.
//
// Output is always valid UTF-8, whatever the input and however it is split
// into writes.
package cleaner
