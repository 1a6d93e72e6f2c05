package httpadapter

import (
	"net/http"

	"github.com/qjobs/quantum"
)

func (h *handler) listDevices(w http.ResponseWriter, r *http.Request, u quantum.User) {
	q := &query{r: r}
	dq := quantum.DeviceQuery{
		QRN:          q.str("qrn"),
		Vendor:       q.str("vendor"),
		ProviderID:   q.str("providerId"),
		DeviceType:   q.str("deviceType"),
		Status:       q.str("status"),
		Retired:      q.bool("retired"),
		Private:      q.bool("private"),
		Verified:     q.bool("verified"),
		DirectAccess: q.bool("directAccess"),
		Search:       q.search(),
		SortBy:       q.str("sortBy"),
		SortOrder:    q.str("sortOrder"),
		Page:         q.int("page"),
		Limit:        q.int("limit"),
	}
	if err := q.fe.err(); err != nil {
		h.fail(w, r, err)
		return
	}
	page, err := h.svc.ListDevices(r.Context(), u, dq)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	devices := page.Devices
	if devices == nil {
		devices = []*quantum.Device{}
	}
	h.page(w, devices, page.Pagination)
}

func (h *handler) getDevice(w http.ResponseWriter, r *http.Request, u quantum.User) {
	d, err := h.svc.GetDevice(r.Context(), u, r.PathValue("device_qrn"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusOK, d)
}

func (h *handler) getDeviceCalibrations(w http.ResponseWriter, r *http.Request, u quantum.User) {
	d, err := h.svc.GetDeviceCalibrations(r.Context(), u, r.PathValue("device_qrn"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusOK, d)
}
