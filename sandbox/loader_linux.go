package sandbox

import "strings"

// loaderVar tells a variable the dynamic loader obeys (glibc's and musl's
// LD_ family, glibc's tunables). A termhelper built with cgo is started
// by the loader, so such a variable, which a request's env may set,
// would act in the trampoline before the sandbox is in force: LD_PRELOAD
// would run its code unconfined, LD_DEBUG_OUTPUT would write anywhere.
func loaderVar(kv string) bool {
	return strings.HasPrefix(kv, "LD_") || strings.HasPrefix(kv, "GLIBC_TUNABLES=")
}

// splitLoader parts env into what the trampoline may start with and the
// loader's variables, which travel in the plan and are given back to the
// command alone (restoreLoader).
func splitLoader(env []string) (rest, loader []string) {
	for _, kv := range env {
		if loaderVar(kv) {
			loader = append(loader, kv)
		} else {
			rest = append(rest, kv)
		}
	}
	return rest, loader
}

// restoreLoader is the command's environment: the trampoline's with the
// loader's variables given back.
func restoreLoader(env, loader []string) []string {
	return append(env[:len(env):len(env)], loader...)
}
