package apitest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// builtinDevice is a built-in device as a list shows it.
func builtinDevice(qrn, name, vendor string, pricing quantum.Pricing) *quantum.Device {
	return &quantum.Device{
		Name: name, QRN: qrn, Vendor: vendor, DeviceType: quantum.DeviceSimulator, RunInputTypes: []string{"qasm2", "qasm3", "qir.ll", "qir.bc", "pyqir"},
		Status: quantum.DeviceOnline, NumberQubits: 28, Paradigm: "gate_model", Modality: ptr("state_vector"),
		PricingModel: "fixed", Pricing: pricing, DirectAccess: true, BatchJobSupport: true,
		NoiseModels: []string{"ideal", "depolarizing", "amplitude_damping", "phase_damping", "bit_flip", "phase_flip"},
		Precisions:  []string{"double", "single"},
	}
}

// takes is d taking the formats too.
func takes(d *quantum.Device, formats ...string) *quantum.Device {
	d.RunInputTypes = append(d.RunInputTypes, formats...)
	return d
}

// qvmDevice is the Quantum Virtual Machine as a list shows it: Quil only,
// 30 qubits.
func qvmDevice() *quantum.Device {
	d := builtinDevice(qvm, "Quantum Virtual Machine", "azure", quantum.Pricing{})
	d.RunInputTypes, d.NumberQubits = []string{"pyquil"}, 30
	return d
}

// sparseDevice is d as the flagship is: 64 qubits, the sparse method past
// what a state vector holds.
func sparseDevice(d *quantum.Device) *quantum.Device {
	d.NumberQubits, d.Modality = 64, ptr("sparse_simulator")
	return d
}

// fakeDevice is a quantumtest.Device as a list shows it.
func fakeDevice(qrn, name, status string) *quantum.Device {
	return &quantum.Device{
		Name: name, QRN: qrn, Vendor: "qbraid", DeviceType: quantum.DeviceSimulator, RunInputTypes: []string{"qasm2", "qasm3"},
		Status: status, NumberQubits: 32, Paradigm: "gate_model", PricingModel: "fixed", DirectAccess: true,
		BatchJobSupport: true,
	}
}

// deviceEnv has the built-in devices, a RETIRED one and one private to
// alice.
type deviceEnv struct {
	*env
	ionq, private, retired, flagship, sv1, qvm *quantum.Device
	// The emulated QPUs of the catalogue as a list shows them (their
	// fields are qpus_test.go's to check).
	ankaa, aria, garnet, h1, ibex *quantum.Device
	clifford                      *quantum.Device // the stabilizer simulator
	annealer                      *quantum.Device // NEC's Vector Annealer, numberQubits null
	aquila, emutn                 *quantum.Device // the analog devices
}

// listed is the device as a list shows it: GetDevice's without its
// description.
func (e *env) listed(qrn string) *quantum.Device {
	e.t.Helper()
	d, err := e.alice.GetDevice(ctx, qrn)
	if err != nil {
		e.t.Fatal(err)
	}
	d.Description = ""
	return d
}

func openDevices(t *testing.T, target Target) *deviceEnv {
	t.Helper()
	e := open(t, target)
	retired := e.device("retired", &quantumtest.FakeBackend{}, func(d *quantum.Device) { d.Status, d.Name = quantum.DeviceRetired, "Old" })
	private := e.device("private", &quantumtest.FakeBackend{}, func(d *quantum.Device) {
		d.Private, d.AllowedUsers, d.Name = true, []string{e.aliceUser.ID}, "Mine"
	})
	return &deviceEnv{
		env:      e,
		ionq:     takes(builtinDevice(ionqSim, "IonQ Simulator", "ionq", quantum.Pricing{}), "ionq"),
		qvm:      qvmDevice(),
		private:  fakeDevice(private, "Mine", quantum.DeviceOnline),
		retired:  fakeDevice(retired, "Old", quantum.DeviceRetired),
		flagship: sparseDevice(builtinDevice(flagship, "QIR Simulator", "qbraid", quantum.Pricing{})),
		sv1:      builtinDevice(sv1, "SV1", "aws", quantum.Pricing{PerMinute: 7.5}),
		ankaa:    e.listed("aws:rigetti:qpu:ankaa-3"),
		aria:     e.listed("aws:ionq:qpu:aria-1"),
		garnet:   e.listed("aws:iqm:qpu:garnet"),
		h1:       e.listed("azure:quantinuum:qpu:h1-1"),
		ibex:     e.listed("aws:aqt:qpu:ibex-q1"),
		clifford: e.listed("qbraid:qbraid:sim:stabilizer"),
		annealer: e.listed("qbraid:nec:sim:vector-annealer"),
		aquila:   e.listed("aws:quera:qpu:aquila"),
		emutn:    e.listed("azure:pasqal:sim:emu-tn"),
	}
}

// testListDevices: the devices a user may see, filtered, sorted and
// paged; each page compared whole, its devices with GetDevice's.
func testListDevices(t *testing.T, target Target) {
	e := openDevices(t, target)
	yes, no := ptr(true), ptr(false)
	one := func(total int) quantum.Pagination {
		return quantum.Pagination{Page: 1, Limit: 20, Total: total, TotalPages: min(total, 1)}
	}
	none := []*quantum.Device{}
	qpus := []*quantum.Device{e.ankaa, e.aquila, e.aria, e.garnet, e.h1, e.ibex}                       // by name
	first := []*quantum.Device{e.ankaa, e.aquila, e.aria, e.clifford, e.emutn, e.garnet, e.h1, e.ibex} // the names before "IonQ"
	join := func(lists ...[]*quantum.Device) []*quantum.Device {
		var out []*quantum.Device
		for _, l := range lists {
			out = append(out, l...)
		}
		return out
	}
	byName := join(first, []*quantum.Device{e.ionq, e.private, e.annealer, e.flagship, e.qvm, e.sv1})
	builtins := join(first, []*quantum.Device{e.ionq, e.annealer, e.flagship, e.qvm, e.sv1})
	tests := []struct {
		name    string
		q       quantum.DeviceQuery
		devices []*quantum.Device
		pages   quantum.Pagination
	}{
		{"all, by name", quantum.DeviceQuery{}, byName, one(14)},
		{"retired too", quantum.DeviceQuery{Retired: yes}, join(first, []*quantum.Device{e.ionq, e.private, e.annealer, e.retired, e.flagship, e.qvm, e.sv1}), one(15)},
		{"not retired", quantum.DeviceQuery{Retired: no}, byName, one(14)},
		{"status RETIRED", quantum.DeviceQuery{Status: quantum.DeviceRetired}, []*quantum.Device{e.retired}, one(1)},
		{"status ONLINE", quantum.DeviceQuery{Status: quantum.DeviceOnline}, byName, one(14)},
		{"status OFFLINE", quantum.DeviceQuery{Status: quantum.DeviceOffline}, none, one(0)},
		{"vendor", quantum.DeviceQuery{Vendor: "aws"}, []*quantum.Device{e.ankaa, e.aquila, e.aria, e.garnet, e.ibex, e.sv1}, one(6)},
		{"provider", quantum.DeviceQuery{ProviderID: "ionq"}, []*quantum.Device{e.aria, e.ionq}, one(2)},
		{"type QPU", quantum.DeviceQuery{DeviceType: quantum.DeviceQPU}, qpus, one(6)},
		{"provider rigetti", quantum.DeviceQuery{ProviderID: "rigetti"}, []*quantum.Device{e.ankaa, e.qvm}, one(2)},
		{"type SIMULATOR", quantum.DeviceQuery{DeviceType: quantum.DeviceSimulator}, []*quantum.Device{e.clifford, e.emutn, e.ionq, e.private, e.annealer, e.flagship, e.qvm, e.sv1}, one(8)},
		{"private", quantum.DeviceQuery{Private: yes}, []*quantum.Device{e.private}, one(1)},
		{"public", quantum.DeviceQuery{Private: no}, builtins, one(13)},
		{"verified", quantum.DeviceQuery{Verified: yes}, builtins, one(13)},
		{"not verified", quantum.DeviceQuery{Verified: no}, []*quantum.Device{e.private}, one(1)},
		{"direct access", quantum.DeviceQuery{DirectAccess: yes}, byName, one(14)},
		{"no direct access", quantum.DeviceQuery{DirectAccess: no}, none, one(0)},
		{"search", quantum.DeviceQuery{Search: "State-Vector SIMULATOR priced"}, []*quantum.Device{e.sv1}, one(1)},
		{"search about", quantum.DeviceQuery{Search: "square lattice"}, []*quantum.Device{e.ankaa, e.garnet}, one(2)},
		{"search nothing there", quantum.DeviceQuery{Search: "zzz"}, none, one(0)},
		{"qrn", quantum.DeviceQuery{QRN: flagship}, []*quantum.Device{e.flagship}, one(1)},
		{"name desc, page 2 of 6", quantum.DeviceQuery{SortBy: "name", SortOrder: "desc", Limit: 2, Page: 2},
			[]*quantum.Device{e.flagship, e.annealer}, quantum.Pagination{Page: 2, Limit: 2, Total: 14, TotalPages: 7, HasPrev: true, HasNext: true}},
		{"by vendor", quantum.DeviceQuery{SortBy: "vendor"}, []*quantum.Device{e.ibex, e.sv1, e.aria, e.garnet, e.aquila, e.ankaa, e.emutn, e.h1, e.qvm, e.ionq, e.annealer, e.private, e.flagship, e.clifford}, one(14)}, // ties by QRN
		{"by qubits desc", quantum.DeviceQuery{SortBy: "numberQubits", SortOrder: "desc"},
			[]*quantum.Device{e.clifford, e.aquila, e.emutn, e.ankaa, e.flagship, e.private, e.qvm, e.sv1, e.ionq, e.aria, e.garnet, e.h1, e.ibex, e.annealer}, one(14)}, // the annealer's null as 0
		{"by status, retired too", quantum.DeviceQuery{SortBy: "status", Retired: yes},
			[]*quantum.Device{e.ibex, e.sv1, e.aria, e.garnet, e.aquila, e.ankaa, e.emutn, e.h1, e.qvm, e.ionq, e.annealer, e.private, e.flagship, e.clifford, e.retired}, one(15)},
		{"by type asc", quantum.DeviceQuery{SortBy: "deviceType", SortOrder: "asc"},
			[]*quantum.Device{e.ibex, e.aria, e.garnet, e.aquila, e.ankaa, e.h1, e.sv1, e.emutn, e.qvm, e.ionq, e.annealer, e.private, e.flagship, e.clifford}, one(14)},
		{"past the end", quantum.DeviceQuery{Page: 5}, none, quantum.Pagination{Page: 5, Limit: 20, Total: 14, TotalPages: 1, HasPrev: true}},
		{"everything at once", quantum.DeviceQuery{Vendor: "qbraid", ProviderID: "qbraid", DeviceType: quantum.DeviceSimulator,
			Status: quantum.DeviceOnline, Retired: no, Private: no, Verified: yes, DirectAccess: yes, Search: "simulator",
			SortBy: "name", SortOrder: "asc", Page: 1, Limit: 1}, []*quantum.Device{e.clifford}, quantum.Pagination{Page: 1, Limit: 1, Total: 2, TotalPages: 2, HasNext: true}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := e.alice.ListDevices(ctx, tc.q)
			if err != nil {
				t.Fatalf("ListDevices(%+v): %v", tc.q, err)
			}
			wantEqual(t, "page", p, &quantum.DevicePage{Devices: tc.devices, Pagination: tc.pages})
		})
	}
	p, err := e.bob.ListDevices(ctx, quantum.DeviceQuery{})
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "bob's page", p, &quantum.DevicePage{Devices: builtins, Pagination: one(13)})

	// A list shows each device as GetDevice does, without its description.
	p, err = e.alice.ListDevices(ctx, quantum.DeviceQuery{Retired: yes})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range p.Devices {
		one, err := e.alice.GetDevice(ctx, d.QRN)
		if err != nil {
			t.Fatal(err)
		}
		if one.Description == "" {
			t.Fatalf("GetDevice(%s) has no description", d.QRN)
		}
		one.Description = ""
		wantEqual(t, "device from GetDevice without its description", one, d)
	}
}

// testListDevicesInvalid: every rule of a device query, alone and
// several at once.
func testListDevicesInvalid(t *testing.T, target Target) {
	e := open(t, target)
	const (
		pageRule   = "must be at least 1"
		limitRule  = "must be between 1 and 100"
		vendorRule = "must be one of aws, azure, ibm, ionq, qbraid"
		typeRule   = "must be QPU or SIMULATOR"
		statusRule = "must be one of ONLINE, OFFLINE, RETIRED, UNAVAILABLE"
		searchRule = "must be 1 to 255 characters"
		textRule   = "must be valid UTF-8 without NUL characters"
		sortRule   = "must be one of name, vendor, deviceType, status, numberQubits, createdAt, updatedAt"
		orderRule  = "must be asc or desc"
	)
	long := strings.Repeat("s", 256)
	tests := []struct {
		name string
		q    quantum.DeviceQuery
		want *quantum.Error
	}{
		{"negative page", quantum.DeviceQuery{Page: -1}, invalid(field("page", pageRule))},
		{"limit 101", quantum.DeviceQuery{Limit: 101}, invalid(field("limit", limitRule))},
		{"vendor all", quantum.DeviceQuery{Vendor: "all"}, invalid(field("vendor", vendorRule))},
		{"type GPU", quantum.DeviceQuery{DeviceType: "GPU"}, invalid(field("deviceType", typeRule))},
		{"status ON", quantum.DeviceQuery{Status: "ON"}, invalid(field("status", statusRule))},
		{"long search", quantum.DeviceQuery{Search: long}, invalid(field("search", searchRule))},
		{"qrn with NUL", quantum.DeviceQuery{QRN: "a\x00"}, invalid(field("qrn", textRule))},
		{"providerId with NUL", quantum.DeviceQuery{ProviderID: "a\x00"}, invalid(field("providerId", textRule))},
		{"sort by price", quantum.DeviceQuery{SortBy: "price"}, invalid(field("sortBy", sortRule))},
		{"sort order up", quantum.DeviceQuery{SortOrder: "up"}, invalid(field("sortOrder", orderRule))},
		{"several at once", quantum.DeviceQuery{Page: -1, Limit: 500, Vendor: "x", DeviceType: "x", Status: "x", Search: long,
			QRN: "a\x00", ProviderID: "a\x00", SortBy: "x", SortOrder: "x"},
			invalid(field("page", pageRule), field("limit", limitRule), field("vendor", vendorRule), field("deviceType", typeRule),
				field("status", statusRule), field("search", searchRule), field("qrn", textRule), field("providerId", textRule),
				field("sortBy", sortRule), field("sortOrder", orderRule))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.alice.ListDevices(ctx, tc.q)
			wantErr(t, "ListDevices", err, tc.want)
		})
	}
}

// testGetDevice: one device with its description; a private device
// does not exist for others; unknown and malformed QRNs.
func testGetDevice(t *testing.T, target Target) {
	e := openDevices(t, target)
	for _, want := range []*quantum.Device{e.flagship, e.sv1, e.ionq} {
		got, err := e.alice.GetDevice(ctx, want.QRN)
		if err != nil {
			t.Fatalf("GetDevice(%s): %v", want.QRN, err)
		}
		if !strings.Contains(got.Description, "simulator") {
			t.Fatalf("GetDevice(%s): description %q", want.QRN, got.Description)
		}
		w := *want
		w.Description = got.Description
		wantEqual(t, "device", got, &w)
	}
	for _, want := range []*quantum.Device{e.private, e.retired} {
		got, err := e.alice.GetDevice(ctx, want.QRN)
		if err != nil {
			t.Fatalf("GetDevice(%s): %v", want.QRN, err)
		}
		w := *want
		w.Description = "a quantumtest.FakeBackend device"
		wantEqual(t, "device", got, &w)
	}
	_, err := e.bob.GetDevice(ctx, e.private.QRN)
	wantErr(t, "bob's GetDevice of alice's private device", err, errorf(quantum.ENOTFOUND, "device %s not found", e.private.QRN))
	for _, qrn := range []string{"aws:aws:sim:none", "x:y:qpu:z"} {
		_, err := e.alice.GetDevice(ctx, qrn)
		wantErr(t, "GetDevice of an unknown device", err, errorf(quantum.ENOTFOUND, "device %s not found", qrn))
	}
	for _, qrn := range []string{"nonsense", "", "a/b", "AWS:aws:sim:sv1", "aws:aws:gpu:sv1", sv1 + "/x", sv1 + "?x=1", " " + sv1, "..", "aws:aws:sim:"} {
		t.Run(fmt.Sprintf("%q", qrn), func(t *testing.T) {
			_, err := e.alice.GetDevice(ctx, qrn)
			wantErr(t, "GetDevice", err, invalid(field("device_qrn", "must be a device QRN vendor:provider:type:name")))
		})
	}
}
