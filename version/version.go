// Package version is termhelper's version: the number from the VERSION file
// at the module root and the commit it was built from, stamped at build time
// with -ldflags -X (make build, make dist). A build without the stamp (a plain
// go build, go install of the module) still reports the VERSION file, handed
// in by main through Default, and the commit Go recorded, if any.
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
)

// Stamped by the linker: -X github.com/termhelper/termhelper/version.number=0.2.0
// and -X github.com/termhelper/termhelper/version.commit=abc1234.
var (
	number string
	commit string
)

// fallback is the VERSION file as embedded in the binary.
var fallback string

// Default records the VERSION file's text, used when no number was stamped.
func Default(file string) {
	fallback = strings.TrimSpace(file)
}

// Number is the version, such as "0.2.0".
func Number() string {
	if number != "" {
		return number
	}
	if fallback != "" {
		return fallback
	}
	return "unknown"
}

// Commit is the commit the binary was built from: the stamp, else the
// revision Go recorded when building in a checkout, else "unknown".
func Commit() string {
	if commit != "" {
		return commit
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		return revision(info.Settings)
	}
	return "unknown"
}

// revision is the short VCS revision among the build settings.
func revision(settings []debug.BuildSetting) string {
	for _, s := range settings {
		if s.Key == "vcs.revision" && s.Value != "" {
			return short(s.Value)
		}
	}
	return "unknown"
}

// short keeps a revision as long as git rev-parse --short=12 prints it.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// String is what termhelper --version prints:
// "termhelper 0.2.0 (abc1234def56, go1.26.8)".
func String() string {
	return fmt.Sprintf("termhelper %s (%s, %s)", Number(), Commit(), runtime.Version())
}
