//go:build !linux

package sandbox

func testAction(string) int { return 2 }

func testTrampoline() {}
