package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
)

// Bounds on what the client reads of an answer, so that a broken or
// hostile server cannot exhaust its memory.
const (
	maxBody = 4 << 20 // an ordinary answer: a job, a page of 100 jobs
	// maxResult bounds a result: the simulator keeps a result's outcome
	// keys under 64 MiB (sim.DefaultMaxResultBytes), and their JSON adds
	// quotes, a colon and a count to each of at most a million of them.
	maxResult = 128 << 20
	// maxErrorBody bounds an error answer: an envelope is small; past
	// this it is some proxy's page, of which 200 bytes are quoted.
	maxErrorBody = 64 << 10
	// drainBody is how much of an answer's unread tail is read so that
	// its connection can be used again; past it, the connection is
	// closed instead.
	drainBody = 64 << 10
)

var errTooLarge = errors.New("client: the answer is too large")

// capped reads at most left bytes of r, then fails with errTooLarge. It
// keeps the first bytes read, to quote an answer it cannot decode, and the
// error of r, to tell a lost connection from a bad answer.
type capped struct {
	r    io.Reader
	left int64
	head []byte
	err  error
}

func (c *capped) Read(p []byte) (int, error) {
	if c.left <= 0 {
		c.err = errTooLarge
		return 0, errTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if room := 200 - len(c.head); room > 0 {
		c.head = append(c.head, p[:min(n, room)]...)
	}
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// readAnswer reads and closes an answer: the data of a success into out
// and its pagination into page (either may be nil), a failure as a
// *quantum.Error. A 2xx body is decoded as it arrives, not held whole: a
// result of tens of MB then needs no second copy.
func readAnswer(res *http.Response, limit int64, out any, page *quantum.Pagination) error {
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		data, err := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
		if err != nil {
			return &transportError{err: err}
		}
		return answerError(res, data)
	}
	defer io.Copy(io.Discard, io.LimitReader(res.Body, drainBody))
	if out == nil && page == nil {
		return nil
	}
	body := &capped{r: res.Body, left: limit}
	env := struct {
		Success    bool                `json:"success"`
		Data       any                 `json:"data"`
		Pagination *quantum.Pagination `json:"pagination"`
	}{Data: out, Pagination: page} // decoded into what the pointers point at
	dec := json.NewDecoder(body)
	dec.UseNumber() // numbers in maps as the in-process API shows them, after normalise
	err := dec.Decode(&env)
	switch {
	case errors.Is(body.err, errTooLarge):
		return badAnswer(res, "is larger than %d bytes", limit)
	case body.err != nil:
		return &transportError{err: body.err}
	case err != nil && !errors.As(err, new(*json.SyntaxError)) && !errors.Is(err, io.ErrUnexpectedEOF):
		return badAnswer(res, "does not match the API: %v", err) // a server of another version, say
	case err != nil || !env.Success:
		return badAnswer(res, "is not a success envelope: %s", snippet(body.head))
	}
	normalise(out)
	return nil
}

// decodeJSON decodes data as readAnswer decodes an answer's data.
func decodeJSON(data []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return err
	}
	normalise(out)
	return nil
}

// normalise turns the json.Numbers of a job's free-form maps into int64
// or float64, as qtype.FromJSONNumbers does for the in-process API.
func normalise(out any) {
	switch v := out.(type) {
	case *quantum.Job:
		for _, m := range []map[string]any{v.Tags, v.RuntimeOptions, v.Metadata} {
			qtype.FromJSONNumbers(m)
		}
	case *[]*quantum.Job:
		for _, j := range *v {
			if j != nil {
				normalise(j)
			}
		}
	}
}
