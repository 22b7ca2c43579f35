//go:build race

package sshd

// raceEnabled says whether the tests run under the race detector.
const raceEnabled = true
