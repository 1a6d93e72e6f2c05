package httpadapter

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"

	"github.com/qjobs/quantum"
)

// timestampLayout is UTC RFC 3339 with milliseconds, as decided for every
// time on the wire.
const timestampLayout = "2006-01-02T15:04:05.000Z"

type successBody struct {
	Success    bool                `json:"success"`
	Data       any                 `json:"data"`
	Pagination *quantum.Pagination `json:"pagination,omitempty"`
	Meta       *meta               `json:"meta,omitempty"`
}

type meta struct {
	Timestamp string `json:"timestamp"`
}

type errorBody struct {
	Success bool        `json:"success"`
	Message string      `json:"message"`
	Error   errorDetail `json:"error"`
}

type errorDetail struct {
	Code    string               `json:"code"`
	Message string               `json:"message"`
	Details []quantum.FieldError `json:"details,omitempty"`
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

func (h *handler) ok(w http.ResponseWriter, status int, data any) {
	writeJSON(w, status, successBody{Success: true, Data: data})
}

func (h *handler) page(w http.ResponseWriter, data any, p quantum.Pagination) {
	writeJSON(w, http.StatusOK, successBody{
		Success:    true,
		Data:       data,
		Pagination: &p,
		Meta:       &meta{Timestamp: h.now().UTC().Format(timestampLayout)},
	})
}

// fail writes err as the error body. A *quantum.Error speaks for itself;
// anything else is an internal error: logged with the request id, never
// echoed.
//
// A request whose client went away (its context ended) is not a fault of
// ours: it is logged at Info and answered 499, which nobody reads.
func (h *handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var qe *quantum.Error
	switch {
	case r.Context().Err() != nil:
		h.log.Info("client went away", zap.String("requestId", requestID(w)), zap.String("path", r.URL.Path))
		qe = &quantum.Error{Code: quantum.ECANCELED, Message: "the request was cancelled"}
	case !errors.As(err, &qe) || httpStatus(qe.Code) == http.StatusInternalServerError:
		id := requestID(w)
		h.log.Error("request failed", zap.String("requestId", id), zap.String("path", r.URL.Path), zap.Error(err))
		qe = &quantum.Error{Code: quantum.EINTERNAL, Message: "internal error; request id " + id}
	}
	if qe.RetryAfter > 0 {
		// Whole seconds, rounded up: 0 would invite a retry storm.
		w.Header().Set("Retry-After", strconv.FormatInt(int64((qe.RetryAfter+time.Second-1)/time.Second), 10))
	}
	writeJSON(w, httpStatus(qe.Code), errorBody{
		Message: qe.Message,
		Error:   errorDetail{Code: qe.Code, Message: qe.Message, Details: qe.Details},
	})
}

func validation(field, msg string) *quantum.Error {
	return &quantum.Error{
		Code:    quantum.EVALIDATION,
		Message: field + ": " + msg,
		Details: []quantum.FieldError{{Field: field, Message: msg}},
	}
}
