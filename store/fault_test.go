package store_test

import (
	"testing"

	"github.com/qjobs/quantum/store"
	"github.com/qjobs/quantum/store/internal/faulttest"
)

func TestPanicInEveryCriticalSection(t *testing.T) {
	faulttest.PanicInEveryCriticalSection(t, func(t *testing.T) faulttest.Faultable { return store.NewMemory() })
}
