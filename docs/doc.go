// Package docs holds termhelper's reference documents (the protocol, its
// JSON Schemas, the policy, the benchmarks) and the tests that keep their
// links whole. It has no code.
package docs
