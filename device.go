package quantum

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// DeviceQuery selects a page of devices. Zero Page and Limit mean the
// defaults (1 and 20).
type DeviceQuery struct {
	QRN, Vendor, ProviderID, DeviceType, Status string
	Retired, Private, Verified, DirectAccess    *bool
	Search, SortBy, SortOrder                   string
	Page, Limit                                 int
}

// DevicePage is a page of devices.
type DevicePage struct {
	Devices    []*Device
	Pagination Pagination
}

var deviceSorts = []string{"name", "vendor", "deviceType", "status", "numberQubits", "createdAt", "updatedAt"}

// ListDevices returns the devices the user may see, filtered, sorted
// (default: name ascending) and paged. On a store that several Services
// share (storage.ControlStore), it and GetDevice read the devices'
// controls from the store first, so that a change made on any node shows
// at once on every node, not when its notification arrives.
func (s *Service) ListDevices(ctx context.Context, u User, q DeviceQuery) (*DevicePage, error) {
	var v qtype.Validation
	page, limit := pageAndLimit(&v, q.Page, q.Limit, 20)
	if q.Vendor != "" && !slices.Contains(qtype.Vendors, q.Vendor) {
		v.Add("vendor", "must be one of %s", strings.Join(qtype.Vendors, ", "))
	}
	if q.DeviceType != "" && q.DeviceType != DeviceQPU && q.DeviceType != DeviceSimulator {
		v.Add("deviceType", "must be QPU or SIMULATOR")
	}
	if q.Status != "" && !slices.Contains([]string{DeviceOnline, DeviceOffline, DeviceRetired, DeviceUnavailable}, q.Status) {
		v.Add("status", "must be one of ONLINE, OFFLINE, RETIRED, UNAVAILABLE")
	}
	checkSearch(&v, q.Search)
	checkText(&v, "qrn", q.QRN)
	checkText(&v, "providerId", q.ProviderID)
	if q.SortBy != "" && !slices.Contains(deviceSorts, q.SortBy) {
		v.Add("sortBy", "must be one of %s", strings.Join(deviceSorts, ", "))
	}
	if q.SortOrder != "" && q.SortOrder != "asc" && q.SortOrder != "desc" {
		v.Add("sortOrder", "must be asc or desc")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := s.loadControls(ctx); err != nil {
		return nil, err
	}

	var out []*Device
	for _, d := range s.devices.All() {
		if !d.VisibleTo(u.ID) || !deviceMatches(d, q) {
			continue
		}
		out = append(out, d)
	}
	sortDevices(out, q.SortBy, q.SortOrder == "desc")
	total := len(out)
	out = pageOf(out, page, limit)
	for i, d := range out {
		live, err := s.liveDevice(ctx, d)
		if err != nil {
			return nil, err
		}
		live.Description = ""
		out[i] = live
	}
	return &DevicePage{Devices: out, Pagination: newPagination(page, limit, total)}, nil
}

func deviceMatches(d *Device, q DeviceQuery) bool {
	switch {
	case q.QRN != "" && d.QRN != q.QRN,
		q.Vendor != "" && d.Vendor != q.Vendor,
		q.ProviderID != "" && d.Provider != q.ProviderID,
		q.DeviceType != "" && d.DeviceType != q.DeviceType,
		q.Status != "" && d.Status != q.Status,
		q.Private != nil && d.Private != *q.Private,
		q.Verified != nil && d.Verified != *q.Verified,
		q.DirectAccess != nil && d.DirectAccess != *q.DirectAccess,
		q.Search != "" && !qtype.MatchesSearch(q.Search, d.Name, d.Description, d.About):
		return false
	}
	// Retired devices are left out unless asked for.
	retired := d.Status == DeviceRetired
	switch {
	case q.Retired != nil:
		return *q.Retired || !retired
	case q.Status == DeviceRetired:
		return true
	default:
		return !retired
	}
}

func sortDevices(ds []*Device, by string, desc bool) {
	key := func(a, b *Device) int {
		switch by {
		case "vendor":
			return cmp.Compare(a.Vendor, b.Vendor)
		case "deviceType":
			return cmp.Compare(a.DeviceType, b.DeviceType)
		case "status":
			return cmp.Compare(a.Status, b.Status)
		case "numberQubits":
			return cmp.Compare(a.NumberQubits, b.NumberQubits)
		case "createdAt":
			return a.CreatedAt.Compare(b.CreatedAt)
		case "updatedAt":
			return a.UpdatedAt.Compare(b.UpdatedAt)
		}
		return cmp.Compare(a.Name, b.Name)
	}
	slices.SortStableFunc(ds, func(a, b *Device) int {
		c := key(a, b)
		if desc {
			c = -c
		}
		if c == 0 { // a stable order across pages
			c = cmp.Compare(a.QRN, b.QRN)
		}
		return c
	})
}

// GetDevice returns one device with its description. A private device the
// user may not use does not exist for them.
func (s *Service) GetDevice(ctx context.Context, u User, qrn string) (*Device, error) {
	if err := qtype.CheckDeviceQRN(qrn); err != nil {
		return nil, err
	}
	d, ok := s.devices.Get(qrn)
	if !ok || !d.VisibleTo(u.ID) {
		return nil, qtype.Errorf(ENOTFOUND, "device %s not found", qrn)
	}
	if s.controls != nil {
		if err := s.loadControls(ctx); err != nil {
			return nil, err
		}
		d, _ = s.devices.Get(qrn)
	}
	return s.liveDevice(ctx, d)
}

// liveDevice is a copy of d with its live fields filled in.
func (s *Service) liveDevice(ctx context.Context, d *Device) (*Device, error) {
	c := *d
	c.RunInputTypes = slices.Clone(d.RunInputTypes)
	c.NoiseModels = slices.Clone(d.NoiseModels)
	n, err := s.store.CountQueued(ctx, d.QRN)
	if err != nil {
		return nil, s.internal(ctx, err, "count queued jobs")
	}
	c.QueueDepth = n
	return &c, nil
}

func pageAndLimit(v *qtype.Validation, page, limit, defLimit int) (int, int) {
	if page == 0 {
		page = 1
	}
	if limit == 0 {
		limit = defLimit
	}
	if page < 1 {
		v.Add("page", "must be at least 1")
	}
	if limit < 1 || limit > 100 {
		v.Add("limit", "must be between 1 and 100")
	}
	return page, limit
}

func checkSearch(v *qtype.Validation, search string) {
	if !checkText(v, "search", search) {
		return
	}
	if n := utf8.RuneCountInString(search); n > 255 {
		v.Add("search", "must be 1 to 255 characters")
	}
}

func pageOf[T any](items []T, page, limit int) []T {
	start, end := storage.JobFilter{Offset: pageOffset(page, limit), Limit: limit}.PageBounds(len(items))
	return items[start:end:end]
}
