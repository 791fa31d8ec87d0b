package sandbox

// SecretPlaces are the files and folders under home that a confined
// command finds empty or cannot read.
func SecretPlaces(home string, getenv func(string) string) []string { return nil }

// Caches are the package managers' caches a confined command may write.
func Caches(home string, getenv func(string) string) []string { return nil }

// ProtectedPaths are the paths that stay read-only inside writable places.
func ProtectedPaths(root, home string, getenv func(string) string) []string { return nil }

// GitDirs are the git folders of the repository at root that lie outside
// it (a worktree's, a submodule's): git needs to write there.
func GitDirs(root string) []string { return nil }

// Defaults is the plan for root with the default lists; the caller sets
// Mode, Network and TempDir and adds the config's lists.
func Defaults(root, home string, getenv func(string) string) Plan { return Plan{Root: root} }
