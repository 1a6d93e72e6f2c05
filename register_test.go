package quantum_test

import (
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// RegisterDevice's errors name the device and the field at fault, and
// what the field must be.
func TestRegisterDeviceErrors(t *testing.T) {
	svc, _ := quantumtest.NewService(t)
	good := quantumtest.Device("aws:aws:qpu:my-qpu")
	for _, tc := range []struct {
		name    string
		change  func(d *quantum.Device)
		backend quantum.Backend
		want    string
	}{
		{"no vendor", func(d *quantum.Device) { d.Vendor = "" }, &quantumtest.FakeBackend{},
			`device "aws:aws:qpu:my-qpu": vendor is required (one of aws, azure, ibm, ionq, qbraid)`},
		{"an unknown vendor", func(d *quantum.Device) { d.Vendor = "acme" }, &quantumtest.FakeBackend{},
			`device "aws:aws:qpu:my-qpu": vendor "acme" is not one of aws, azure, ibm, ionq, qbraid`},
		{"no QRN", func(d *quantum.Device) { d.QRN, d.Name = "", "My QPU" }, &quantumtest.FakeBackend{},
			`device "My QPU": qrn is required (vendor:provider:sim|qpu:name)`},
		{"a QRN of the wrong shape", func(d *quantum.Device) { d.QRN = "my-qpu" }, &quantumtest.FakeBackend{},
			`device "my-qpu": qrn is not vendor:provider:sim|qpu:name`},
		{"no backend", func(d *quantum.Device) {}, nil,
			`device "aws:aws:qpu:my-qpu": a backend is required`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := good
			tc.change(&d)
			err := svc.RegisterDevice(d, tc.backend)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("RegisterDevice = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	if err := svc.RegisterDevice(good, &quantumtest.FakeBackend{}); err != nil {
		t.Fatalf("RegisterDevice of a good device: %v", err)
	}
}
