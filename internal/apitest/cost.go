package apitest

import (
	"fmt"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// testEstimateCost: perTask + shots×perShot + one minute of perMinute,
// and every rule of its two parameters.
func testEstimateCost(t *testing.T, target Target) {
	e := open(t, target)
	priced := e.device("priced", &quantumtest.FakeBackend{}, func(d *quantum.Device) {
		d.Pricing = quantum.Pricing{PerTask: 1, PerShot: 0.01}
	})
	private := e.device("private", &quantumtest.FakeBackend{}, func(d *quantum.Device) {
		d.Private, d.AllowedUsers = true, []string{e.aliceUser.ID}
	})
	for _, tc := range []struct {
		device string
		shots  int
		want   float64
	}{{sv1, 100, 7.5}, {flagship, 1, 0}, {ionqSim, 1_000_000, 0}, {priced, 100, 2}, {priced, 1_000_000, 10001}, {private, 5, 0}} {
		got, err := e.alice.EstimateCost(ctx, tc.device, tc.shots)
		if err != nil {
			t.Fatalf("EstimateCost(%s, %d): %v", tc.device, tc.shots, err)
		}
		if got != tc.want {
			t.Fatalf("EstimateCost(%s, %d) = %v, want %v", tc.device, tc.shots, got, tc.want)
		}
	}
	required := field("deviceQrn", "is required")
	atLeast1 := field("shots", "must be at least 1")
	for _, tc := range []struct {
		api    quantum.API
		device string
		shots  int
		want   *quantum.Error
	}{
		{e.alice, "", 10, invalid(required)},
		{e.alice, flagship, 0, invalid(atLeast1)},
		{e.alice, flagship, -1, invalid(atLeast1)},
		{e.alice, "", 0, invalid(required, atLeast1)},
		{e.alice, "x:y:sim:z", 10, invalid(field("deviceQrn", `no device "x:y:sim:z"`))},
		{e.alice, "not a device", 10, invalid(field("deviceQrn", `no device "not a device"`))},
		{e.alice, "x:y:sim:z", 0, invalid(field("deviceQrn", `no device "x:y:sim:z"`), atLeast1)},
		{e.alice, flagship, 1_000_001, invalid(field("shots", "must be at most 1000000 on "+flagship))},
		{e.bob, private, 5, invalid(field("deviceQrn", fmt.Sprintf("no device %q", private)))},
	} {
		_, err := tc.api.EstimateCost(ctx, tc.device, tc.shots)
		wantErr(t, fmt.Sprintf("EstimateCost(%q, %d)", tc.device, tc.shots), err, tc.want)
	}
}
