package localtest_test

import (
	"os"
	"testing"

	"github.com/openpathways/pathways/internal/testenv"
)

// TestMain fails the package's tests when they leave goroutines running.
func TestMain(m *testing.M) { os.Exit(testenv.RunWithoutLeaks(m)) }
