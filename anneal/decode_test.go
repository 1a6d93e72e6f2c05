package anneal_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/qjobs/quantum/anneal"
)

// The public client's encodings (qBraid's ProblemEncoder: json.dumps of
// the problem, each quadratic key json.dumps of a pair, a space after the
// comma).
const (
	clientQUBO = `{"problem_type": "qubo", "linear": {"x1": 1.0, "x2": -1.5}, "quadratic": {"[\"x1\", \"x2\"]": 0.5}}`
	// (4·s1 + 2·s2 + 7·s3 + s4)² from pyqubo over Spins, every term in
	// quadratic with the diagonal, pairs in either order.
	clientPyQUBO = `{"problem_type": "qubo", "quadratic": {"[\"s1\", \"s1\"]": -160.0, "[\"s4\", \"s2\"]": 16.0, "[\"s1\", \"s2\"]": 64.0, "[\"s2\", \"s2\"]": -96.0, "[\"s3\", \"s2\"]": 112.0, "[\"s3\", \"s3\"]": -196.0, "[\"s1\", \"s3\"]": 224.0, "[\"s1\", \"s4\"]": 32.0, "[\"s4\", \"s3\"]": 56.0, "[\"s4\", \"s4\"]": -52.0}}`
)

func decode(t *testing.T, text string) *anneal.Problem {
	t.Helper()
	p, err := anneal.Decode([]byte(text))
	if err != nil {
		t.Fatalf("Decode(%s): %v", text, err)
	}
	return p
}

// term is a problem's coefficient of the named variables (one name:
// linear).
func term(t *testing.T, p *anneal.Problem, names ...string) float64 {
	t.Helper()
	idx := make([]int32, len(names))
	for k, name := range names {
		idx[k] = -1
		for i, n := range p.Names {
			if n == name {
				idx[k] = int32(i)
			}
		}
		if idx[k] < 0 {
			t.Fatalf("no variable %q in %q", name, p.Names)
		}
	}
	if len(idx) == 1 {
		return p.Linear[idx[0]]
	}
	u, v := min(idx[0], idx[1]), max(idx[0], idx[1])
	for _, c := range p.Couplings {
		if c.U == u && c.V == v {
			return c.C
		}
	}
	t.Fatalf("no coupling %q", names)
	return 0
}

func TestDecodeClientEncoding(t *testing.T) {
	p := decode(t, clientQUBO)
	if p.Kind != anneal.QUBO || strings.Join(p.Names, ",") != "x1,x2" {
		t.Fatalf("got %v %q", p.Kind, p.Names)
	}
	if term(t, p, "x1") != 1 || term(t, p, "x2") != -1.5 || term(t, p, "x1", "x2") != 0.5 {
		t.Fatalf("terms %v %v", p.Linear, p.Couplings)
	}
	// The energy of x1=0, x2=1: −1.5.
	if e := p.Energy([]int8{0, 1}); e != -1.5 {
		t.Fatalf("E(0,1) = %v", e)
	}

	q := decode(t, clientPyQUBO)
	if strings.Join(q.Names, ",") != "s1,s2,s3,s4" || len(q.Couplings) != 6 {
		t.Fatalf("names %q, %d couplings", q.Names, len(q.Couplings))
	}
	for _, c := range []struct {
		names []string
		want  float64
	}{{[]string{"s1"}, -160}, {[]string{"s4"}, -52}, {[]string{"s2", "s4"}, 16}, {[]string{"s4", "s2"}, 16}, {[]string{"s1", "s3"}, 224}} {
		if got := term(t, q, c.names...); got != c.want {
			t.Errorf("%q: %v, want %v", c.names, got, c.want)
		}
	}
}

func TestDecodeMergesAndReadsKeysAsJSON(t *testing.T) {
	for _, c := range []struct {
		name, text string
		check      func(t *testing.T, p *anneal.Problem)
	}{
		{"a pair and its reverse add", `{"problem_type":"qubo","quadratic":{"[\"a\", \"b\"]":1,"[\"b\", \"a\"]":2.5}}`,
			func(t *testing.T, p *anneal.Problem) {
				if len(p.Couplings) != 1 || term(t, p, "a", "b") != 3.5 {
					t.Fatalf("couplings %v", p.Couplings)
				}
			}},
		{"a pair spaced otherwise adds", `{"problem_type":"ising","quadratic":{"[\"a\", \"b\"]":1,"[\"a\",\"b\"]":2, " [ \"b\" ,\"a\" ] ":4}}`,
			func(t *testing.T, p *anneal.Problem) {
				if term(t, p, "a", "b") != 7 {
					t.Fatalf("couplings %v", p.Couplings)
				}
			}},
		{"a QUBO's diagonal is linear", `{"problem_type":"qubo","linear":{"a":1},"quadratic":{"[\"a\", \"a\"]":2}}`,
			func(t *testing.T, p *anneal.Problem) {
				if term(t, p, "a") != 3 || len(p.Couplings) != 0 {
					t.Fatalf("linear %v couplings %v", p.Linear, p.Couplings)
				}
			}},
		{"names hold commas, quotes, brackets and spaces", `{"problem_type":"qubo","quadratic":{"[\"x, y\", \"say \\\"hi\\\"\"]":1,"[\" x1\", \"[1]\"]":2}}`,
			func(t *testing.T, p *anneal.Problem) {
				if term(t, p, "x, y", `say "hi"`) != 1 || term(t, p, " x1", "[1]") != 2 {
					t.Fatalf("names %q", p.Names)
				}
			}},
		{"escapes in names", `{"problem_type":"qubo","linear":{"\u00e9t\u00e9":1,"\ud83d\ude00":2},"quadratic":{"[\"\\u00e9t\\u00e9\", \"b\"]":3}}`,
			func(t *testing.T, p *anneal.Problem) {
				if term(t, p, "été") != 1 || term(t, p, "😀") != 2 || term(t, p, "été", "b") != 3 {
					t.Fatalf("names %q", p.Names)
				}
			}},
		{"a variable only in zero terms stays", `{"problem_type":"qubo","linear":{"a":1,"z":0},"quadratic":{"[\"a\", \"q\"]":0}}`,
			func(t *testing.T, p *anneal.Problem) {
				if strings.Join(p.Names, ",") != "a,q,z" {
					t.Fatalf("names %q", p.Names)
				}
			}},
		{"names sorted whatever the order written", `{"problem_type":"ising","linear":{"c":1,"a":2,"b":3}}`,
			func(t *testing.T, p *anneal.Problem) {
				if strings.Join(p.Names, ",") != "a,b,c" || p.Linear[0] != 2 {
					t.Fatalf("names %q linear %v", p.Names, p.Linear)
				}
			}},
		{"null and unknown keys are absent", `{"problem_type":"qubo","linear":null,"quadratic":{"[\"a\", \"b\"]":1},"offset":3,"extra":[1,{"x":[]}]}`,
			func(t *testing.T, p *anneal.Problem) {
				if len(p.Names) != 2 {
					t.Fatalf("names %q", p.Names)
				}
			}},
		{"numbers in every JSON spelling", `{"problem_type":"qubo","linear":{"a":-0,"b":1e2,"c":-2.5E-1,"d":7}}`,
			func(t *testing.T, p *anneal.Problem) {
				if p.Linear[1] != 100 || p.Linear[2] != -0.25 || p.Linear[3] != 7 {
					t.Fatalf("linear %v", p.Linear)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) { c.check(t, decode(t, c.text)) })
	}
}

// Every bad problem is refused naming the JSON path of what is wrong and
// the rule.
func TestDecodeRefusesNamingThePath(t *testing.T) {
	for _, c := range []struct {
		name, text, path, rule string
	}{
		{"not JSON", `{"problem_type": "qubo", "linear": {"a": NaN}}`, "", "NaN is not one"},
		{"not JSON, where", "{\n\"problem_type\": \"qubo\",\n\"linear\": {\"a\" 1}}", "", "line 3, column 16"},
		{"not an object", `[1, 2]`, "", "must be a JSON object"},
		{"null", `null`, "", "must be a JSON object"},
		{"no problem_type", `{"linear": {"a": 1}}`, "problem_type", "is required"},
		{"an unknown problem_type", `{"problem_type": "hubo", "linear": {"a": 1}}`, "problem_type", `must be "qubo" or "ising" (got "hubo")`},
		{"a problem_type not a string", `{"problem_type": 1, "linear": {"a": 1}}`, "problem_type", `must be "qubo" or "ising"`},
		{"empty", `{"problem_type": "qubo"}`, "", "has no variables"},
		{"empty objects", `{"problem_type": "ising", "linear": {}, "quadratic": {}}`, "", "has no variables"},
		{"linear not an object", `{"problem_type": "qubo", "linear": [1]}`, "linear", "must be an object of variable names to numbers"},
		{"quadratic not an object", `{"problem_type": "qubo", "quadratic": "x"}`, "quadratic", "must be an object of variable pairs"},
		{"a key split by text", `{"problem_type": "qubo", "quadratic": {"a, b": 1}}`, `quadratic["a, b"]`, "must be a JSON array of two variable names"},
		{"a key of three names", `{"problem_type": "qubo", "quadratic": {"[\"a\", \"b\", \"c\"]": 1}}`, `quadratic["[\"a\", \"b\", \"c\"]"]`, "two variable names"},
		{"a key of one name", `{"problem_type": "qubo", "quadratic": {"[\"a\"]": 1}}`, `quadratic["[\"a\"]"]`, "two variable names"},
		{"a key of numbers", `{"problem_type": "qubo", "quadratic": {"[1, 2]": 1}}`, `quadratic["[1, 2]"]`, "two variable names"},
		{"a key with a tail", `{"problem_type": "qubo", "quadratic": {"[\"a\", \"b\"] x": 1}}`, `quadratic["[\"a\", \"b\"] x"]`, "two variable names"},
		{"a key with a bad escape", `{"problem_type": "qubo", "quadratic": {"[\"a\\q\", \"b\"]": 1}}`, `quadratic["[\"a\\q\", \"b\"]"]`, "two variable names"},
		{"a coefficient as a string", `{"problem_type": "qubo", "linear": {"a": "1"}}`, `linear["a"]`, `must be a finite number (got "1")`},
		{"a null coefficient", `{"problem_type": "qubo", "quadratic": {"[\"a\", \"b\"]": null}}`, `quadratic["[\"a\", \"b\"]"]`, "must be a finite number (got null)"},
		{"a coefficient past float64", `{"problem_type": "qubo", "linear": {"a": 1e999}}`, `linear["a"]`, "must be a finite number: 1e999 is past"},
		{"an Ising diagonal", `{"problem_type": "ising", "quadratic": {"[\"a\", \"a\"]": 1}}`, `quadratic["[\"a\", \"a\"]"]`, "an Ising problem cannot hold"},
		{"a linear name twice", `{"problem_type": "qubo", "linear": {"a": 1, "\u0061": 2}}`, `linear["\u0061"]`, "an earlier linear key names"},
		{"a quadratic key twice", `{"problem_type": "qubo", "quadratic": {"[\"a\", \"b\"]": 1, "[\"b\", \"a\"]": 1, "[\"a\", \"b\"]": 2}}`, `quadratic["[\"a\", \"b\"]"]`, "is written twice"},
		{"a NUL in a name", `{"problem_type": "qubo", "linear": {"a\u0000": 1}}`, `linear["a\u0000"]`, "NUL"},
		{"energies past float64", `{"problem_type": "qubo", "linear": {"a": 1e308, "b": 1e308}}`, "", "the annealer's arithmetic stays finite"},
		{"not UTF-8", "{\"problem_type\": \"qubo\", \"linear\": {\"a\xff\": 1}}", "", "must be valid UTF-8"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := anneal.Decode([]byte(c.text))
			var pe *anneal.PathError
			if !errors.As(err, &pe) {
				t.Fatalf("Decode: %v, want a *PathError", err)
			}
			if pe.Path != c.path || !strings.Contains(pe.Rule, c.rule) {
				t.Fatalf("got path %q rule %q, want path %q and a rule with %q", pe.Path, pe.Rule, c.path, c.rule)
			}
		})
	}
}
