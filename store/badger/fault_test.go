package badger_test

import (
	"testing"

	"github.com/qjobs/quantum/store/badger"
	"github.com/qjobs/quantum/store/internal/faulttest"
)

func TestPanicInEveryCriticalSection(t *testing.T) {
	faulttest.PanicInEveryCriticalSection(t, func(t *testing.T) faulttest.Faultable { return openBadger(t, badger.WithInMemory()) })
}
