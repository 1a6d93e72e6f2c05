package httpadapter_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/qjobs/quantum/httpadapter"
)

// quickBodies are creates the quick reader takes (quick) or leaves to the
// general one: those of clients, and well and badly formed ones around
// the edges of what it takes.
var quickBodies = []struct {
	name  string
	body  string
	quick bool
}{
	{"as bench/load sends it", `{"deviceQrn":"qbraid:qbraid:sim:qir-sv","program":{"data":"OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -\u003e c;\n","format":"qasm2"},"shots":1000}`, true},
	{"as Python sends it", `{"program": {"format": "qasm3", "data": "qubit q; // caf\u00e9 \u2192 \ud83d\ude00"}, "shots": 10, "deviceQrn": "d", "name": "\u00fcber"}`, false},
	{"as Python sends it, without emoji", `{"program": {"format": "qasm3", "data": "qubit q; // caf\u00e9 \u2192 done"}, "shots": 10, "deviceQrn": "d", "name": "\u00fcber"}`, true},
	{"with a name, in another order", `{"name":"bell","shots":1,"program":{"format":"qasm3","data":"qubit q;"},"deviceQrn":"d"}`, true},
	{"space everywhere", " \t\r\n{ \"program\" : { \"format\" : \"qasm2\" , \"data\" : \"x\" } ,\n\"shots\" :\t7 , \"deviceQrn\" : \"d\" }\n ", true},
	{"every short escape", `{"program":{"format":"q","data":"\" \\ \/ \b \f \n \r \t"},"shots":1,"deviceQrn":"d","name":"a\/b"}`, true},
	{"empty strings", `{"program":{"format":"","data":""},"shots":1,"deviceQrn":"","name":""}`, true},
	{"shots zero", `{"program":{"format":"q","data":"x"},"shots":0,"deviceQrn":"d"}`, true},
	{"shots of nine digits", `{"program":{"format":"q","data":"x"},"shots":999999999,"deviceQrn":"d"}`, true},
	{"shots of ten digits", `{"program":{"format":"q","data":"x"},"shots":1000000000,"deviceQrn":"d"}`, false},
	{"shots with a leading zero", `{"program":{"format":"q","data":"x"},"shots":01,"deviceQrn":"d"}`, false},
	{"negative shots", `{"program":{"format":"q","data":"x"},"shots":-1,"deviceQrn":"d"}`, false},
	{"shots with a fraction", `{"program":{"format":"q","data":"x"},"shots":1.0,"deviceQrn":"d"}`, false},
	{"shots with an exponent", `{"program":{"format":"q","data":"x"},"shots":1e3,"deviceQrn":"d"}`, false},
	{"shots as a string", `{"program":{"format":"q","data":"x"},"shots":"10","deviceQrn":"d"}`, false},
	{"shots null", `{"program":{"format":"q","data":"x"},"shots":null,"deviceQrn":"d"}`, false},
	{"shots followed by junk", `{"program":{"format":"q","data":"x"},"shots":10x,"deviceQrn":"d"}`, false},
	{"a name in UTF-8", `{"program":{"format":"q","data":"x"},"shots":1,"deviceQrn":"d","name":"héllo 🙂"}`, true},
	{"UTF-8 and escapes", `{"program":{"format":"q","data":"é\n\u00e9ü"},"shots":1,"deviceQrn":"d","name":"\"ü\""}`, true},
	{"\\u escapes", `{"program":{"format":"q","data":"\u0041\u003c\u003E\u0026\u00ff\uFFFF\u0080"},"shots":1,"deviceQrn":"d"}`, true},
	{"an escaped NUL", `{"program":{"format":"q","data":"x"},"shots":1,"deviceQrn":"d","name":"\u0000"}`, true},
	{"a lone high surrogate", `{"program":{"format":"q","data":"\ud800x"},"shots":1,"deviceQrn":"d"}`, false},
	{"a lone low surrogate", `{"program":{"format":"q","data":"\udc00"},"shots":1,"deviceQrn":"d"}`, false},
	{"a \\u escape with a bad digit", `{"program":{"format":"q","data":"\u12g4"},"shots":1,"deviceQrn":"d"}`, false},
	{"a short \\u escape", `{"program":{"format":"q","data":"\u12"},"shots":1,"deviceQrn":"d"}`, false},
	{"a \\u escape at the end", `{"program":{"format":"q","data":"\u12`, false},
	{"an unknown escape", `{"program":{"format":"q","data":"\x"},"shots":1,"deviceQrn":"d"}`, false},
	{"a raw control character", "{\"program\":{\"format\":\"q\",\"data\":\"a\x01\"},\"shots\":1,\"deviceQrn\":\"d\"}", false},
	{"a raw DEL", "{\"program\":{\"format\":\"q\",\"data\":\"a\x7f\"},\"shots\":1,\"deviceQrn\":\"d\"}", true},
	{"invalid UTF-8", "{\"program\":{\"format\":\"q\",\"data\":\"a\xff\"},\"shots\":1,\"deviceQrn\":\"d\"}", false},
	{"invalid UTF-8 after an escape", "{\"program\":{\"format\":\"q\",\"data\":\"\\n\xc3\x28\"},\"shots\":1,\"deviceQrn\":\"d\"}", false},
	{"a UTF-8 sequence cut short", "{\"program\":{\"format\":\"q\",\"data\":\"x\"},\"shots\":1,\"deviceQrn\":\"d\",\"name\":\"\xe2\x82\"}", false},
	{"invalid UTF-8 in a key", "{\"program\":{\"format\":\"q\",\"data\":\"x\"},\"shots\":1,\"deviceQrn\":\"d\",\"\xff\":1}", false},
	{"tags", `{"program":{"format":"q","data":"x"},"shots":1,"deviceQrn":"d","tags":{"a":"b"}}`, false},
	{"runtime options", `{"program":{"format":"q","data":"x"},"shots":1,"deviceQrn":"d","runtimeOptions":{"seed":1}}`, false},
	{"an unknown field", `{"program":{"format":"q","data":"x"},"shots":1,"deviceQrn":"d","extra":1}`, false},
	{"a key with an escape", `{"program":{"format":"q","data":"x"},"sh\u006fts":1,"deviceQrn":"d"}`, true},
	{"a key that unescapes to nothing known", `{"program":{"format":"q","data":"x"},"shots":1,"device\/Qrn":"d"}`, false},
	{"a key in another case", `{"program":{"format":"q","data":"x"},"Shots":1,"deviceQrn":"d"}`, false},
	{"shots twice", `{"program":{"format":"q","data":"x"},"shots":1,"shots":2,"deviceQrn":"d"}`, false},
	{"a name twice", `{"program":{"format":"q","data":"x"},"shots":1,"deviceQrn":"d","name":"a","name":"b"}`, false},
	{"the device twice", `{"program":{"format":"q","data":"x"},"shots":1,"deviceQrn":"d","deviceQrn":"e"}`, false},
	{"a program twice", `{"program":{"format":"q","data":"x"},"program":{"format":"q","data":"y"},"shots":1,"deviceQrn":"d"}`, false},
	{"a format twice", `{"program":{"format":"q","format":"r","data":"x"},"shots":1,"deviceQrn":"d"}`, false},
	{"a batch", `{"program":[{"format":"q","data":"x"}],"shots":1,"deviceQrn":"d"}`, false},
	{"a program null", `{"program":null,"shots":1,"deviceQrn":"d"}`, false},
	{"a program without data", `{"program":{"format":"q"},"shots":1,"deviceQrn":"d"}`, false},
	{"a program without a format", `{"program":{"data":"x"},"shots":1,"deviceQrn":"d"}`, false},
	{"a program with more", `{"program":{"format":"q","data":"x","extra":1},"shots":1,"deviceQrn":"d"}`, false},
	{"data as a JSON value", `{"program":{"format":"ionq","data":{"qubits":1}},"shots":1,"deviceQrn":"d"}`, false},
	{"no shots", `{"program":{"format":"q","data":"x"},"deviceQrn":"d"}`, false},
	{"no device", `{"program":{"format":"q","data":"x"},"shots":1}`, false},
	{"no program", `{"shots":1,"deviceQrn":"d"}`, false},
	{"junk after the object", `{"program":{"format":"q","data":"x"},"shots":1,"deviceQrn":"d"} x`, false},
	{"two objects", `{"program":{"format":"q","data":"x"},"shots":1,"deviceQrn":"d"}{}`, false},
	{"a trailing comma", `{"program":{"format":"q","data":"x"},"shots":1,"deviceQrn":"d",}`, false},
	{"truncated", `{"program":{"format":"q","data":"x"},"shots":1,"deviceQrn":"d"`, false},
	{"an unterminated string", `{"program":{"format":"q","data":"x`, false},
	{"an escape at the end", `{"program":{"format":"q","data":"x\`, false},
	{"empty", ``, false},
	{"an empty object", `{}`, false},
	{"null", `null`, false},
	{"an array", `[]`, false},
}

// TestQuickCreateIsTheGeneralReader checks that the quick reader takes the
// creates clients send, and that what it makes of any body it takes is what
// the general reader makes of it.
func TestQuickCreateIsTheGeneralReader(t *testing.T) {
	// What a Go client's encoding/json sends: < > & escaped, keys sorted.
	goClient, err := json.Marshal(map[string]any{
		"program":   map[string]any{"format": "qasm2", "data": "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\ncreg c[1];\nh q[0];\nmeasure q -> c; // <&>\n"},
		"shots":     1000,
		"deviceQrn": "qbraid:qbraid:sim:qir-sv",
		"name":      "über job",
	})
	if err != nil {
		t.Fatal(err)
	}
	bodies := append(slices.Clone(quickBodies), struct {
		name  string
		body  string
		quick bool
	}{"as encoding/json writes it", string(goClient), true})
	for _, tt := range bodies {
		t.Run(tt.name, func(t *testing.T) {
			quickOK := sameRequest(t, []byte(tt.body))
			if quickOK != tt.quick {
				t.Errorf("quick reader took it: %v, want %v", quickOK, tt.quick)
			}
		})
	}
}

// FuzzQuickCreate checks the same on any body.
func FuzzQuickCreate(f *testing.F) {
	for _, tt := range quickBodies {
		f.Add([]byte(tt.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) { sameRequest(t, body) })
}

// sameRequest fails unless the general reader makes of body what the
// quick one does, where the quick one takes it; it says whether it did.
func sameRequest(t *testing.T, body []byte) bool {
	t.Helper()
	quick, ok, general, err := httpadapter.DecodeCreate(body)
	if !ok {
		return false
	}
	if err != nil {
		t.Fatalf("quick reader took %q, which the general one refuses: %v", body, err)
	}
	if !reflect.DeepEqual(quick, general) {
		t.Fatalf("%q:\nquick   %+v (program %+v)\ngeneral %+v (program %+v)", body, quick, quick.Program, general, general.Program)
	}
	return true
}
