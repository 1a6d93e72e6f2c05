package client

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/qjobs/quantum"
)

// CreateJob submits a job. Its IdempotencyKey (or, unless
// WithoutAutoIdempotencyKey, one made for it) goes in the Idempotency-Key
// header, which makes the create safe to retry.
func (c *Client) CreateJob(ctx context.Context, req quantum.JobRequest) (*quantum.Job, error) {
	if err := unsendable(req); err != nil {
		return nil, err
	}
	body, err := createBody(req)
	if err != nil {
		return nil, err
	}
	key := req.IdempotencyKey
	if key == "" && c.autoKey {
		key = uuid.NewString()
	}
	k := call{method: "POST", path: []string{"jobs"}, body: body, header: http.Header{}, idempotent: key != ""}
	if key != "" {
		k.header.Set("Idempotency-Key", key)
	}
	var j quantum.Job
	if err := c.do(ctx, k, &j, nil); err != nil {
		return nil, err
	}
	return &j, nil
}

// createBody is the request as JSON. A tag value that JSON cannot hold
// (NaN, a func) goes as null, which the Service refuses under the same
// field with the same words as the value itself in process.
func createBody(req quantum.JobRequest) ([]byte, error) {
	body := map[string]any{"shots": req.Shots, "deviceQrn": req.DeviceQRN, "name": req.Name}
	switch {
	case req.Program != nil && req.Batch != nil:
		// The wire has one program field: say what the Service says.
		return nil, &quantum.Error{Code: quantum.EVALIDATION, Message: "program: give one program or a batch, not both",
			Details: []quantum.FieldError{{Field: "program", Message: "give one program or a batch, not both"}}}
	case req.Batch != nil:
		body["program"] = req.Batch
	case req.Program != nil:
		body["program"] = req.Program
	}
	if req.Tags != nil {
		tags := make(map[string]any, len(req.Tags))
		for k, v := range req.Tags {
			if _, err := json.Marshal(v); err != nil {
				v = nil
			}
			tags[k] = v
		}
		body["tags"] = tags
	}
	if req.RuntimeOptions != nil {
		body["runtimeOptions"] = req.RuntimeOptions
	}
	data, err := json.Marshal(body)
	if err != nil { // unsendable let through something JSON refuses
		return nil, &quantum.Error{Code: quantum.EINTERNAL, Message: "client: the request cannot be sent as JSON: " + err.Error()}
	}
	return data, nil
}

// The Service's words for the rules below (package quantum).
const (
	textRule    = "must be valid UTF-8 without NUL characters"
	tagRule     = "must be a string, an integer or a boolean"
	jsonRule    = "must hold only JSON values (objects, arrays, strings, numbers, booleans, null)"
	keyRule     = "must be visible ASCII characters (no spaces)"
	keyField    = "Idempotency-Key"
	optionField = "runtimeOptions"
)

// unsendable returns the VALIDATION_ERROR the Service gives in process for
// what HTTP cannot carry as it is, so that the remote answer is the same:
// JSON encoders turn invalid UTF-8 into U+FFFD, and a server would store
// the changed text; a header cannot hold a control character, and loses
// its outer spaces; JSON has no NaN. Checked in the Service's order. The
// rest of the rules are the server's.
func unsendable(req quantum.JobRequest) error {
	if key := req.IdempotencyKey; key != "" {
		// In process the key is checked first, then the request's hash,
		// which needs the tags and options as JSON.
		if strings.ContainsFunc(key, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
			return invalid(quantum.FieldError{Field: keyField, Message: keyRule})
		}
		if !jsonable(req.Tags) || !jsonable(req.RuntimeOptions) {
			return invalid(quantum.FieldError{Field: optionField, Message: jsonRule})
		}
	}
	var fe []quantum.FieldError
	if !utf8.ValidString(req.Name) {
		fe = append(fe, quantum.FieldError{Field: "name", Message: textRule})
	}
	mangled := len(fe) > 0
	var tagErrs []quantum.FieldError
	for _, k := range slices.Sorted(maps.Keys(req.Tags)) {
		switch v := req.Tags[k]; {
		case !utf8.ValidString(k):
			tagErrs = append(tagErrs, quantum.FieldError{Field: "tags", Message: "keys " + textRule})
			mangled = true
		case !jsonable(v):
			// Sendable as null (createBody), but part of the answer when
			// something else is not.
			tagErrs = append(tagErrs, quantum.FieldError{Field: "tags." + k, Message: tagRule})
		default:
			if s, ok := v.(string); ok && !utf8.ValidString(s) {
				tagErrs = append(tagErrs, quantum.FieldError{Field: "tags." + k, Message: textRule})
				mangled = true
			}
		}
	}
	fe = append(fe, tagErrs...)
	if f, ok := badText(optionField, req.RuntimeOptions, 0); ok {
		fe = append(fe, f)
		mangled = true
	}
	if !jsonable(req.RuntimeOptions) {
		fe = append(fe, quantum.FieldError{Field: optionField, Message: jsonRule})
		mangled = true
	}
	if !mangled {
		return nil
	}
	return invalid(fe...)
}

// badText finds, as the Service does, a string or key in a JSON-like
// value that is not valid UTF-8, and names it. (NUL is valid: JSON carries
// it, and the server refuses it itself.) Past maxDepth it stops: a map
// that holds itself is no JSON either, which jsonable reports.
func badText(path string, v any, depth int) (quantum.FieldError, bool) {
	if depth > maxDepth {
		return quantum.FieldError{}, false
	}
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			return quantum.FieldError{Field: path, Message: textRule}, true
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if !utf8.ValidString(k) {
				return quantum.FieldError{Field: path, Message: "keys " + textRule}, true
			}
			if f, ok := badText(path+"."+k, x[k], depth+1); ok {
				return f, true
			}
		}
	case []any:
		for _, e := range x {
			if f, ok := badText(path, e, depth+1); ok {
				return f, true
			}
		}
	}
	return quantum.FieldError{}, false
}

const maxDepth = 1000

func jsonable(v any) bool {
	_, err := json.Marshal(v)
	return err == nil
}

// invalid is a VALIDATION_ERROR worded as the Service words it.
func invalid(fe ...quantum.FieldError) *quantum.Error {
	msgs := make([]string, len(fe))
	for i, f := range fe {
		msgs[i] = f.Field + ": " + f.Message
	}
	return &quantum.Error{Code: quantum.EVALIDATION, Message: strings.Join(msgs, "; "), Details: fe}
}
