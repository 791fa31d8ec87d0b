package sandbox

// journalItem is a path a check looks at, for the journal of changes
// (journal_linux.go): what lies there, through a final link if follow;
// attrs, its own attributes (its mode); entries, what the folder there
// lists.
type journalItem struct {
	path    string
	follow  bool
	attrs   bool
	entries bool
}
