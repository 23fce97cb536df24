package relay_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a test leaves a goroutine behind: a
// stream, a loop of Run or a pool that was not stopped.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
