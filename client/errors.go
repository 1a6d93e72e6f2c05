package client

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/qjobs/quantum"
)

// answerError is the *quantum.Error of a failed answer: the server's own
// code and details from its error envelope, or, for a body that is not
// one (a proxy's page), a code that fits the status.
func answerError(res *http.Response, body []byte) *quantum.Error {
	var env struct {
		Error *struct {
			Code    string               `json:"code"`
			Message string               `json:"message"`
			Details []quantum.FieldError `json:"details"`
		} `json:"error"`
	}
	retry := retryAfter(res.Header.Get("Retry-After"), time.Now())
	if json.Unmarshal(body, &env) == nil && env.Error != nil && env.Error.Code != "" {
		return &quantum.Error{Code: env.Error.Code, Message: env.Error.Message, Details: env.Error.Details, RetryAfter: retry}
	}
	msg := fmt.Sprintf("HTTP %d from %s", res.StatusCode, res.Request.URL.Host)
	if s := snippet(body); s != "" {
		msg += ": " + s
	}
	if loc := res.Header.Get("Location"); res.StatusCode < 400 && loc != "" {
		msg += " (a redirect to " + snippet([]byte(loc)) + ", which the client does not follow)"
	}
	return &quantum.Error{Code: codeOfStatus(res.StatusCode), Message: msg, RetryAfter: retry}
}

// codeOfStatus guesses the code of an answer without an envelope.
func codeOfStatus(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return quantum.EINVALIDAPIKEY
	case http.StatusPaymentRequired:
		return quantum.EINSUFFICIENTCREDITS
	case http.StatusForbidden:
		return quantum.EFORBIDDEN
	case http.StatusNotFound:
		return quantum.ENOTFOUND
	case http.StatusMethodNotAllowed:
		return quantum.EMETHODNOTALLOWED
	case http.StatusRequestEntityTooLarge:
		return quantum.EPAYLOADTOOLARGE
	case http.StatusUnsupportedMediaType:
		return quantum.EUNSUPPORTEDMEDIA
	case http.StatusUnprocessableEntity, http.StatusBadRequest:
		return quantum.EVALIDATION
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return quantum.EBUSY
	}
	return quantum.EINTERNAL
}

// snippet is the start of a body, fit to quote in an error: printable,
// one line, at most 200 bytes.
func snippet(body []byte) string {
	s := strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, string(body[:min(len(body), 200)]))
	return strings.TrimSpace(s)
}

// retryAfter reads a Retry-After header: seconds or an HTTP date; 0 when
// absent, unreadable or past.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		return time.Duration(min(max(s, 0), 1<<30)) * time.Second // no overflow into the negative
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// cancelled is the error of a call whose context ended, as the Service
// answers it in process.
func cancelled(err error) *quantum.Error {
	return &quantum.Error{Code: quantum.ECANCELED, Message: "the request ended: " + err.Error()}
}
