package httpadapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
)

// readBody reads a JSON object body into fields, enforcing the size limit.
// An empty body reads as an empty object. Numbers stay json.Number so that
// 3 and 3.5 can be told apart.
func (h *handler) readBody(w http.ResponseWriter, r *http.Request) (map[string]json.RawMessage, error) {
	body, err := h.readRaw(w, r)
	if err != nil {
		return nil, err
	}
	return bodyFields(body)
}

// readRaw reads a body that may be JSON, enforcing the size limit.
func (h *handler) readRaw(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if err := checkContentType(r); err != nil {
		return nil, err
	}
	body, err := readAll(http.MaxBytesReader(w, r.Body, h.maxBody), r.ContentLength, h.maxBody)
	if err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge):
			return nil, &quantum.Error{Code: quantum.EPAYLOADTOOLARGE, Message: fmt.Sprintf("request body exceeds %d bytes", tooLarge.Limit)}
		case r.Context().Err() != nil:
			return nil, r.Context().Err() // the client went away
		}
		return nil, validation("body", "could not be read")
	}
	return body, nil
}

// bodyFields reads a body as a JSON object's fields.
func bodyFields(body []byte) (map[string]json.RawMessage, error) {
	fields := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(body)) == 0 {
		return fields, nil
	}
	if err := json.Unmarshal(body, &fields); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) {
			return nil, validation("body", fmt.Sprintf("is not valid JSON (offset %d: %s)", syn.Offset, syn.Error()))
		}
		return nil, validation("body", "must be a JSON object")
	}
	if fields == nil { // the body was the literal null
		return nil, validation("body", "must be a JSON object")
	}
	return fields, nil
}

// readAll reads a body into a buffer sized from its declared length, up
// to 64 KiB: a large body is copied fewer times as the buffer grows, and a
// client that declares megabytes and then stalls holds no more than what
// it has sent.
func readAll(r io.Reader, declared, limit int64) ([]byte, error) {
	size := min(max(declared, 0), limit, 64<<10)
	// +1: finding EOF needs no room. Not bytes.Buffer.ReadFrom: it wants
	// 512 bytes free for each read, and so copied every small body once.
	buf := make([]byte, 0, size+1)
	for {
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case err == io.EOF:
			return buf, nil
		case err != nil:
			return buf, err
		case len(buf) == cap(buf):
			buf = append(buf, 0)[:len(buf)] // as io.ReadAll grows
		}
	}
}

// checkContentType accepts a body that says it is JSON (application/json
// or any application/*+json, with parameters) or says nothing: the public
// client sends some requests without a Content-Type. Anything else is 415.
func checkContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json")) {
		return nil
	}
	return &quantum.Error{Code: quantum.EUNSUPPORTEDMEDIA, Message: "Content-Type must be application/json"}
}

// present reports whether a field was sent with a value other than null:
// null for an optional field means absent.
func present(raw json.RawMessage) bool {
	return len(raw) > 0 && string(bytes.TrimSpace(raw)) != "null"
}

// fieldErrors collects every problem of a body, so one answer names them all.
type fieldErrors []quantum.FieldError

func (fe *fieldErrors) add(field, msg string) {
	*fe = append(*fe, quantum.FieldError{Field: field, Message: msg})
}

func (fe fieldErrors) err() error {
	if len(fe) == 0 {
		return nil
	}
	msgs := make([]string, len(fe))
	for i, f := range fe {
		msgs[i] = f.Field + ": " + f.Message
	}
	return &quantum.Error{Code: quantum.EVALIDATION, Message: strings.Join(msgs, "; "), Details: fe}
}

// textRule is the Service's rule for strings, checked here too because a
// JSON decoder would silently turn invalid UTF-8 into U+FFFD.
const textRule = "must be valid UTF-8 without NUL characters"

func decodeString(raw json.RawMessage, field string, fe *fieldErrors) string {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		fe.add(field, "must be a string")
		return ""
	}
	if !utf8.Valid(raw) {
		fe.add(field, textRule)
		return ""
	}
	return s
}

func decodeInt(raw json.RawMessage, field string, fe *fieldErrors) int {
	var n json.Number
	// json.Number also takes a quoted number: "10" is a string, not an
	// integer.
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' {
		fe.add(field, "must be an integer")
		return 0
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		fe.add(field, "must be an integer")
		return 0
	}
	v, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		// 10.0 and 1e3 are integers written otherwise; 10.5 is not, and 1e99
		// is one no int holds.
		f, ferr := n.Float64()
		switch {
		case errors.Is(ferr, strconv.ErrRange) || (ferr == nil && f == math.Trunc(f) && math.Abs(f) >= 1<<63):
			fe.add(field, "is out of range")
			return 0
		case ferr != nil || f != math.Trunc(f):
			fe.add(field, "must be an integer")
			return 0
		}
		v = int64(f)
	}
	if int64(int(v)) != v {
		// Only where int is 32 bits; elsewhere every int64 reaches the
		// Service, which names its own bound for the field.
		fe.add(field, "is out of range")
		return 0
	}
	return int(v)
}

// decodeObject decodes a JSON object into Go values: strings, bools, int64
// for integral numbers, float64 for others, nil, and nested maps and
// slices. The Service decides which of those it accepts.
func decodeObject(raw json.RawMessage, field string, fe *fieldErrors) map[string]any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		fe.add(field, "must be a JSON object")
		return nil
	}
	if !utf8.Valid(raw) {
		fe.add(field, textRule)
		return nil
	}
	for k, v := range m {
		m[k] = qtype.FromJSONNumbers(v)
	}
	return m
}

// Query parameters. Each parser records a problem under the parameter's
// name; an absent parameter leaves the zero value.

type query struct {
	r  *http.Request
	fe fieldErrors
}

func (q *query) str(name string) string { return q.r.URL.Query().Get(name) }

func (q *query) has(name string) bool { return q.r.URL.Query().Has(name) }

// number parses an integer parameter and leaves every range check to the
// Service. ok is false when the parameter is absent or not an integer.
func (q *query) number(name string) (n int, ok bool) {
	s := q.str(name)
	if s == "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		q.fe.add(name, "must be an integer")
		return 0, false
	}
	return n, true
}

// int parses a page or limit parameter, where the Service reads 0 as "the
// default".
func (q *query) int(name string) int {
	n, ok := q.number(name)
	if ok && n == 0 {
		// Zero means "default" to the Service; a client's explicit 0 is out
		// of range, not a request for the default. Below zero the Service
		// says so itself, with the rest of its checks.
		q.fe.add(name, "must be at least 1")
	}
	return n
}

func (q *query) bool(name string) *bool {
	s := q.str(name)
	if s == "" {
		return nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		q.fe.add(name, "must be true or false")
		return nil
	}
	return &b
}

// search is checked here because "" cannot reach the Service as a value: an
// empty search= is a keyword of length 0.
func (q *query) search() string {
	if q.has("search") && q.str("search") == "" {
		q.fe.add("search", "must be 1 to 255 characters")
	}
	return q.str("search")
}
