package quantum

import (
	"context"

	"github.com/qjobs/quantum/qtype"
)

// A QPU's qubits are not all coupled: a two-qubit gate runs only between
// neighbours. A device says how its qubits are laid out (Topology) and how
// good each qubit and coupling is (Calibration), as the public service's
// QPU documents do; a program that joins qubits that are not coupled is
// refused at create, naming both.

// GetDeviceCalibrations returns a QPU's calibration document; NOT_FOUND
// "Calibration data not found for this device" for a device without one
// (every simulator), as the public service answers.
func (s *Service) GetDeviceCalibrations(ctx context.Context, u User, qrn string) (*qtype.CalibrationDocument, error) {
	if err := qtype.CheckDeviceQRN(qrn); err != nil {
		return nil, err
	}
	d, ok := s.devices.Get(qrn)
	if !ok || !d.VisibleTo(u.ID) {
		return nil, qtype.Errorf(ENOTFOUND, "device %s not found", qrn)
	}
	if d.Calibration == nil {
		return nil, qtype.Errorf(ENOTFOUND, "Calibration data not found for this device")
	}
	return d.Calibration.Document(d, s.now()), nil
}
