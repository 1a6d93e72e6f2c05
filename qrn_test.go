package quantum_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qtype"
)

// The grammar of QRNs as regular expressions: the hand-written parsers
// must agree with them on every string.
var (
	deviceQRNGrammar = regexp.MustCompile(`^[a-z0-9]+:[a-z0-9]+:(sim|qpu):[a-z0-9][a-z0-9._-]*$`)
	jobQRNGrammar    = regexp.MustCompile(`^[a-z0-9]+:[a-z0-9]+:(?:sim|qpu):[a-z0-9][a-z0-9._-]*-[0-9a-f]{4}-qjob-[0-9a-f]{24}$`)
)

var qrnSeeds = []string{
	"", "a:b:sim:c", "qbraid:qbraid:sim:qir-sv", "aws:ionq:qpu:aria-1", "a:b:gpu:c", "A:b:sim:c", "a:b:sim:", "a:b:sim:-x",
	"a::sim:c", ":b:sim:c", "a:b:sim:c:d", "a:b:sim:c.d_e-f", "a:b:sim:c d",
	"qbraid:qbraid:sim:qir-sv-dcad-qjob-0123456789abcdef01234567",
	"qbraid:qbraid:sim:qir-sv-dcad-qjob-0123456789abcdef0123456",
	"qbraid:qbraid:sim:qir-sv-dcad-qjob-0123456789ABCDEF01234567",
	"qbraid:qbraid:sim:qir-sv-dcaz-qjob-0123456789abcdef01234567",
	"qbraid:qbraid:sim:qir-sv-dcad-qjob-0123456789abcdef01234567-dcad-qjob-0123456789abcdef01234567",
	"a:b:sim:c-dcad-qjob-0123456789abcdef01234567", "a:b:sim:-dcad-qjob-0123456789abcdef01234567",
	"-dcad-qjob-0123456789abcdef01234567", "a:b:sim:c_dcad-qjob-0123456789abcdef01234567",
	"a:b:sim:c-dcad-qjob_0123456789abcdef01234567", "a:b:sim:c-dcad-qjob-0123456789abcdef01234567\n",
}

func checkQRN(t *testing.T, s string) {
	t.Helper()
	if got, want := qtype.CheckDeviceQRN(s) == nil, deviceQRNGrammar.MatchString(s); got != want {
		t.Errorf("CheckDeviceQRN(%q) valid = %v, the grammar says %v", s, got, want)
	}
	if got, want := qtype.ValidJobQRN(s), jobQRNGrammar.MatchString(s); got != want {
		t.Errorf("ValidJobQRN(%q) = %v, the grammar says %v", s, got, want)
	}
}

func TestQRNsAsTheGrammar(t *testing.T) {
	for _, s := range qrnSeeds {
		checkQRN(t, s)
		for i := range len(s) { // every one-byte change of a seed
			for _, c := range []byte{'a', 'F', '0', ':', '-', '.', '_', ' ', 0xff} {
				checkQRN(t, s[:i]+string(c)+s[i+1:])
			}
			checkQRN(t, s[:i]+s[i+1:])
		}
	}
	if !qtype.ValidJobQRN("qbraid:qbraid:sim:qir-sv-dcad-qjob-" + strings.Repeat("a", 24)) {
		t.Fatal("a job QRN refused")
	}
}

func FuzzQRNsAsTheGrammar(f *testing.F) {
	for _, s := range qrnSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkQRN(t, s) })
}
