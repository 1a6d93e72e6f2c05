package store_test

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/qjobs/quantum/internal/testenv"
)

// A program that keeps its jobs in memory imports package store and no
// other store: it must not link what the stores that keep jobs
// elsewhere depend on, which would be most of its binary. Those stores
// have packages of their own for that reason (store/badger,
// store/postgres); this test keeps them out of package store.
func TestStoreLinksNoOtherStore(t *testing.T) {
	const pkg = "github.com/qjobs/quantum/store"
	deps := goListDeps(t, pkg)
	if !slices.Contains(deps, pkg) {
		t.Fatalf("go list -deps %s does not list the package itself: %q", pkg, deps)
	}
	for _, tc := range []struct{ what, prefix string }{
		{"the badger Store", "github.com/qjobs/quantum/store/badger"},
		{"badger", "github.com/dgraph-io/"},
		{"OpenTelemetry, through badger", "go.opentelemetry.io/"},
		{"protobuf, through badger", "google.golang.org/protobuf/"},
		{"the PostgreSQL Store", "github.com/qjobs/quantum/store/postgres"},
		{"pgx", "github.com/jackc/"},
	} {
		t.Run(tc.what, func(t *testing.T) {
			var hits []string
			for _, d := range deps {
				if strings.HasPrefix(d, tc.prefix) {
					hits = append(hits, d)
				}
			}
			if len(hits) > 0 {
				t.Errorf("package store depends on %s (%d packages: %s, …): every memory-only program would link them", tc.what, len(hits), hits[0])
			}
		})
	}
}

// goListDeps lists the packages pkg depends on, itself included, as the
// go command resolves them for a build (tests excluded).
func goListDeps(t *testing.T, pkg string) []string {
	t.Helper()
	if testing.Short() {
		testenv.Skip(t, "-short: the dependency check runs the go command")
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		testenv.Skip(t, "no go command on PATH to list the dependencies: "+err.Error())
	}
	out, err := exec.CommandContext(t.Context(), goCmd, "list", "-deps", "-f", "{{.ImportPath}}", pkg).Output()
	if err != nil {
		var stderr []byte
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			stderr = ee.Stderr
		}
		t.Fatalf("go list -deps %s: %v\n%s", pkg, err, stderr)
	}
	return strings.Fields(string(out))
}
