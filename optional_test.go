package quantum_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSkipsAreDeclared keeps the README's promise that under CI=true no
// test skips but the optional ones it lists: every skip in the module
// goes through internal/testenv, and the tests that call
// testenv.Optional are exactly those of the README's "Optional tests".
func TestSkipsAreDeclared(t *testing.T) {
	inCode := optionalSkipsInCode(t)
	inREADME := optionalTestsInREADME(t)
	for test, pos := range inCode {
		if !slices.Contains(inREADME, test) {
			t.Errorf("%s: %s may skip (testenv.Optional) but the README's Optional tests does not list it", pos, test)
		}
	}
	for _, test := range inREADME {
		if _, ok := inCode[test]; !ok {
			t.Errorf("the README's Optional tests lists %s, which has no testenv.Optional", test)
		}
	}
}

// optionalSkipsInCode maps "package Function" to where that function
// calls testenv.Optional, and fails on any skip that bypasses testenv.
func optionalSkipsInCode(t *testing.T) map[string]string {
	t.Helper()
	found := map[string]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); path != "." && err == nil {
				return filepath.SkipDir // a module of its own (bench)
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if dir == "internal/testenv" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				pkg, _ := sel.X.(*ast.Ident)
				fromTestenv := pkg != nil && pkg.Name == "testenv"
				switch name := sel.Sel.Name; {
				case fromTestenv && name == "Optional":
					found[dir+" "+fn.Name.Name] = fset.Position(call.Pos()).String()
				case !fromTestenv && (name == "Skip" || name == "Skipf" || name == "SkipNow"):
					t.Errorf("%s: %s skips without internal/testenv: call testenv.Optional (and list the test in the README) or testenv.Skip",
						fset.Position(call.Pos()), fn.Name.Name)
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// optionalTestsInREADME reads the table of the README's "Optional tests":
// "package Function" for each row.
func optionalTestsInREADME(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "\n### Optional tests\n")
	if !ok {
		t.Fatal("the README has no section ### Optional tests")
	}
	if i := strings.Index(section, "\n#"); i >= 0 {
		section = section[:i]
	}
	var tests []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 {
			t.Fatalf("README, Optional tests: a row without package and test: %q", line)
		}
		tests = append(tests, strings.Trim(strings.TrimSpace(cells[0]), "`")+" "+strings.Trim(strings.TrimSpace(cells[1]), "`"))
	}
	if len(tests) == 0 {
		t.Fatal("the README's Optional tests lists no test")
	}
	return tests
}
