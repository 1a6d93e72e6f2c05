package store_test

import (
	"testing"

	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store"
	"github.com/qjobs/quantum/store/storetest"
)

func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store { return store.NewMemory() })
}
