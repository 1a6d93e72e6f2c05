package quantum

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
	_, ok := jobDevice(qrn)
	return ok
}

// jobDevice returns the device QRN a job QRN starts with, ok false when
// qrn is not a job QRN.
func jobDevice(qrn string) (string, bool) {
	if len(qrn) <= jobSuffixLen {
		return "", false
	}
	dev, suffix := qrn[:len(qrn)-jobSuffixLen], qrn[len(qrn)-jobSuffixLen:]
	if suffix[0] != '-' || !lowerHex(suffix[1:5]) || suffix[5:11] != "-qjob-" || !lowerHex(suffix[11:]) || !validDeviceQRN(dev) {
		return "", false
	}
	return dev, true
}

// validDeviceQRN reports whether qrn has the form of a device QRN.
func validDeviceQRN(qrn string) bool {
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
