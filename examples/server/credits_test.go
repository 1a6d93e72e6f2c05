package main

import (
	"net/http"
	"strings"
	"testing"
)

// balance is the key's balance not reserved, from the route.
func (c *client) balance() float64 {
	c.t.Helper()
	return c.ok("GET", "/api/v1/billing/credits/balance", nil, http.StatusOK)["qbraidCredits"].(float64)
}

// TestCreditsFromFlagsAndFile: -credits grants each -api-key's user, a
// key-file line with credits grants its user (and turns credits on
// alone), and a restart on the same store grants nothing again, unless
// the amount changed.
func TestCreditsFromFlagsAndFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name             string
		args             []string
		keysFile         string
		alice, bob, carl float64 // balances after start-up
	}{
		{"first start", []string{"-credits", "10", "-api-key", "alice"}, "bob bob 2.5\ncarl carl\n", 10, 2.5, 0},
		{"restart: recorded once", []string{"-credits", "10", "-api-key", "alice"}, "bob bob 2.5\ncarl carl\n", 10, 2.5, 0},
		{"the file alone turns credits on", []string{"-api-key", "alice"}, "bob bob 2.5\ncarl carl 0\n", 10, 2.5, 0},
		{"a new amount is granted on top", []string{"-credits", "5", "-api-key", "alice"}, "bob bob 2.5\ncarl carl 1\n", 15, 2.5, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys := writeKeys(t, tc.keysFile, 0o600)
			base, stop := startServer(t, append([]string{"-store", "badger", "-data", dir, "-api-keys-file", keys}, tc.args...)...)
			defer stop()
			for key, want := range map[string]float64{"alice": tc.alice, "bob": tc.bob, "carl": tc.carl} {
				if got := (&client{t: t, base: base, key: key}).balance(); got != want {
					t.Errorf("%s has %v credits, want %v", key, got, want)
				}
			}
			// Credits are on: a paid job (SV1, 7.5 estimated) past carl's
			// balance is refused.
			status, out := (&client{t: t, base: base, key: "carl"}).call("POST", "/api/v1/jobs", map[string]any{
				"program": map[string]any{"format": "qasm2", "data": quickBell}, "shots": 10, "deviceQrn": "aws:aws:sim:sv1"})
			if status != http.StatusPaymentRequired || !strings.Contains(out["message"].(string), "estimated cost is 7.5 credits") {
				t.Fatalf("carl's paid job: %d %v, want 402", status, out)
			}
			if err := stop(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Without -credits or a key line with credits, nothing is refused.
func TestCreditsOffByDefault(t *testing.T) {
	base, _ := startServer(t, "-api-key", "alice")
	alice := &client{t: t, base: base, key: "alice"}
	status, out := alice.call("POST", "/api/v1/jobs", map[string]any{
		"program": map[string]any{"format": "qasm2", "data": quickBell}, "shots": 10, "deviceQrn": "aws:aws:sim:sv1"})
	if status != http.StatusCreated {
		t.Fatalf("a paid job with credits off: %d %v", status, out)
	}
	if got := alice.balance(); got != 0 {
		t.Fatalf("balance %v with credits off", got)
	}
}

func TestCreditsFlagRefusesBadAmounts(t *testing.T) {
	for _, v := range []string{"-1", "lots", "NaN", "1e10", "Inf"} {
		_, err := parseFlags([]string{"-credits", v}, &strings.Builder{})
		if err == nil || !strings.Contains(err.Error(), "must be a number of credits from 0 to 1000000000") {
			t.Errorf("-credits %s: %v", v, err)
		}
	}
}
