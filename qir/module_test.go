package qir

import (
	"testing"
	"unsafe"
)

// TestModuleSizes: a parsed module holds an inst a line and a value for
// most angles, so their padding is paid a million times over. (Sizes on
// 64-bit platforms, as sim's TestOpSize.)
func TestModuleSizes(t *testing.T) {
	if n := unsafe.Sizeof(inst{}); n != 120 {
		t.Errorf("inst is %d bytes, want 120", n)
	}
	if n := unsafe.Sizeof(value{}); n != 112 {
		t.Errorf("value is %d bytes, want 112", n)
	}
}
