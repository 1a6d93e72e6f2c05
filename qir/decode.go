package qir

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode/utf8"
)

// decode turns program.data into a module, by format. "qir.ll" is LLVM IR
// text, sent as it is or as base64 of it (the public SDK sends base64);
// "qir.bc" and "pyqir" are base64 of bitcode. Data of the other kind gets
// an error that says which format it is.
func decode(format, data string) (*module, error) {
	switch format {
	case "qir.ll":
		if raw, ok := unbase64(data); ok {
			if isBitcode(raw) {
				return nil, errorf("program.data is base64 of LLVM bitcode: send it as qir.bc")
			}
			if !utf8.Valid(raw) || !looksLikeLL(string(raw)) {
				return nil, errorf("program.data is base64, but not of LLVM IR text")
			}
			return parseLL(string(raw))
		}
		return parseLL(data)
	case "qir.bc", "pyqir":
		raw, ok := unbase64(data)
		if !ok {
			if looksLikeLL(data) {
				return nil, errorf("program.data is LLVM IR text, not base64 of bitcode: send it as qir.ll")
			}
			return nil, errorf("program.data is not base64 (standard alphabet, with padding)")
		}
		if !isBitcode(raw) {
			if utf8.Valid(raw) && looksLikeLL(string(raw)) {
				return nil, errorf("program.data is base64 of LLVM IR text, not of bitcode: send it as qir.ll")
			}
			return nil, errorf("program.data is base64, but not of LLVM bitcode (it lacks the 'BC' 0xC0DE magic)")
		}
		return readBitcode(raw)
	}
	return nil, errorf("format %q is not QIR (qir.ll, qir.bc or pyqir)", format)
}

// unbase64 decodes standard base64, allowing line breaks (and nothing
// else that is not base64). Text never passes: LLVM IR has spaces.
func unbase64(s string) ([]byte, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " \t") {
		return nil, false
	}
	if strings.ContainsAny(s, "\r\n") {
		s = strings.NewReplacer("\r", "", "\n", "").Replace(s)
	}
	raw, err := base64.StdEncoding.DecodeString(s)
	return raw, err == nil
}

// isBitcode reports whether b starts with bitcode's magic, or the wrapper
// header's.
func isBitcode(b []byte) bool {
	return bytes.HasPrefix(b, []byte{'B', 'C', 0xC0, 0xDE}) || bytes.HasPrefix(b, []byte{0xDE, 0xC0, 0x17, 0x0B})
}

// looksLikeLL reports whether s reads as an LLVM module: it defines or
// declares a function.
func looksLikeLL(s string) bool {
	return strings.Contains(s, "define ") || strings.Contains(s, "declare ")
}
