package qtype

import "strings"

// QRNs are read on every call that names a job, so they are parsed by
// hand: a regular expression took a sixth of an in-process job's CPU
// (bench/README.md, issue 31). The grammar is
//
//	device QRN: [a-z0-9]+ ":" [a-z0-9]+ ":" ("sim" | "qpu") ":" [a-z0-9][a-z0-9._-]*
//	job QRN:    deviceQRN "-" hex{4} "-qjob-" hex{24}
//
// hex being lowercase. qrn_test.go checks the parsers against these as
// regular expressions.

// jobSuffixLen is the length of a job QRN's part after its device's:
// "-" hex{4} "-qjob-" hex{24}.
const jobSuffixLen = 1 + 4 + 6 + 24

// ValidJobQRN reports whether qrn has the form of a job QRN:
// <deviceQrn>-<4 hex>-qjob-<24 hex>.
func ValidJobQRN(qrn string) bool {
	_, ok := JobDevice(qrn)
	return ok
}

// jobDevice returns the device QRN a job QRN starts with, ok false when
// qrn is not a job QRN.
func JobDevice(qrn string) (string, bool) {
	if len(qrn) <= jobSuffixLen {
		return "", false
	}
	dev, suffix := qrn[:len(qrn)-jobSuffixLen], qrn[len(qrn)-jobSuffixLen:]
	if suffix[0] != '-' || !lowerHex(suffix[1:5]) || suffix[5:11] != "-qjob-" || !lowerHex(suffix[11:]) || !ValidDeviceQRN(dev) {
		return "", false
	}
	return dev, true
}

// validDeviceQRN reports whether qrn has the form of a device QRN.
func ValidDeviceQRN(qrn string) bool {
	vendor, rest, ok := strings.Cut(qrn, ":")
	if !ok || !lowerAlnum(vendor) {
		return false
	}
	provider, rest, ok := strings.Cut(rest, ":")
	if !ok || !lowerAlnum(provider) {
		return false
	}
	kind, name, ok := strings.Cut(rest, ":")
	if !ok || kind != "sim" && kind != "qpu" || name == "" || !isLowerAlnum(name[0]) {
		return false
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !isLowerAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// lowerAlnum reports whether s is one or more of [a-z0-9].
func lowerAlnum(s string) bool {
	for i := range len(s) {
		if !isLowerAlnum(s[i]) {
			return false
		}
	}
	return s != ""
}

func lowerHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// CheckJobQRN returns the VALIDATION_ERROR on job_qrn that every method
// taking a job QRN answers for one of the wrong form, or nil. A client
// checks with it before building a URL of the QRN.
func CheckJobQRN(qrn string) error {
	if !ValidJobQRN(qrn) {
		return Invalid("job_qrn", "must be a job QRN <deviceQrn>-<4 hex>-qjob-<24 hex>")
	}
	return nil
}

// CheckDeviceQRN is CheckJobQRN for a device QRN (device_qrn).
func CheckDeviceQRN(qrn string) error {
	if !ValidDeviceQRN(qrn) {
		return Invalid("device_qrn", "must be a device QRN vendor:provider:type:name")
	}
	return nil
}
