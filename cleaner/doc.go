// Package cleaner turns the raw bytes a command writes to its terminal into
// text a language model can read.
//
// A small terminal model applies what changes the screen (carriage returns,
// backspaces, tabs, erasures, cursor movement within the last rows) and
// drops every other control sequence, so a progress bar leaves only its
// last state, as a terminal would show it. Rows that scroll out of reach of
// the cursor are committed and never change again, which keeps memory
// bounded whatever the size of the output.
//
// Each line is capped at a number of characters, and each window of text
// returned by Take at another: a longer window keeps its head, its tail and
// the lines from the middle that look like errors, and says how much was
// left out and where the full text went. The package does no I/O itself;
// the caller supplies the writer for the full text (see package spill).
//
// Output is always valid UTF-8, whatever the input and however it is split
// into writes.
package cleaner
