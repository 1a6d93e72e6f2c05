package httpadapter

import (
	"net/http"

	"github.com/qjobs/quantum"
)

// statusOf is the one table from the Service's error codes to HTTP statuses.
// A code missing here is a 500.
var statusOf = map[string]int{
	quantum.EINVALIDJOBSTATE:    http.StatusBadRequest,
	quantum.ECANCELNOTSUPPORTED: http.StatusBadRequest,
	quantum.ENOVALIDAUTH:        http.StatusUnauthorized,
	quantum.EINVALIDAPIKEY:      http.StatusUnauthorized,
	quantum.EFORBIDDEN:          http.StatusForbidden,
	quantum.ENOTFOUND:           http.StatusNotFound,
	quantum.EMETHODNOTALLOWED:   http.StatusMethodNotAllowed,
	quantum.ERESULTNOTREADY:     http.StatusConflict,
	quantum.EJOBNOTFINAL:        http.StatusConflict,
	quantum.EPAYLOADTOOLARGE:    http.StatusRequestEntityTooLarge,
	quantum.EUNSUPPORTEDMEDIA:   http.StatusUnsupportedMediaType,
	quantum.EVALIDATION:         http.StatusUnprocessableEntity,
	quantum.ETOOMANYJOBS:        http.StatusTooManyRequests,
	quantum.ERATELIMITED:        http.StatusTooManyRequests,
	quantum.EBUSY:               http.StatusServiceUnavailable,
	quantum.ECANCELED:           statusClientClosed,
	quantum.EINTERNAL:           http.StatusInternalServerError,

	quantum.EINSUFFICIENTCREDITS: http.StatusPaymentRequired, // WithCredits
	quantum.ECONFLICT:            http.StatusConflict,        // the control API
}

// statusClientClosed is the status logged for a request whose client went
// away before the answer (nginx's 499): nobody reads it.
const statusClientClosed = 499

func httpStatus(code string) int {
	if s, ok := statusOf[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}
