//go:build !linux

package platform

// CgroupDir is "": commands are not held in cgroups here.
func CgroupDir() string { return "" }

// KillCgroup does nothing here: there are no cgroups.
func KillCgroup(string) int { return 0 }

// PidsLimit is "": no cgroup caps a command's processes here.
func PidsLimit() string { return "" }
