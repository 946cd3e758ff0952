//go:build !race

package paysandboxtest_test

// race is whether this test binary was built with -race (race_test.go).
const race = false
