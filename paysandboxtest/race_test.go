//go:build race

package paysandboxtest_test

// race is whether this test binary was built with -race: the module
// outside the repository is tested the same way, so its build finds the
// packages this build compiled in the cache.
const race = true
