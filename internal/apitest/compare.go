package apitest

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
)

// wantEqual fails the test unless got and want are deeply equal, naming
// every place where they differ (with the Go types of what differs: an
// int64 that should be a float64 is a difference).
func wantEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	if reflect.DeepEqual(got, want) {
		return
	}
	var d []string
	diff(&d, what, reflect.ValueOf(got), reflect.ValueOf(want))
	if len(d) == 0 { // DeepEqual saw what diff did not: say so plainly
		d = []string{fmt.Sprintf("%s: got %#v, want %#v", what, got, want)}
	}
	t.Fatalf("%s differs:\n\t%s", what, strings.Join(d, "\n\t"))
}

var timeType = reflect.TypeFor[time.Time]()

// diff appends to d a line for each place where got and want differ.
func diff(d *[]string, path string, got, want reflect.Value) {
	if !got.IsValid() || !want.IsValid() {
		if got.IsValid() != want.IsValid() {
			*d = append(*d, fmt.Sprintf("%s: got %s, want %s", path, show(got), show(want)))
		}
		return
	}
	if got.Type() != want.Type() {
		*d = append(*d, fmt.Sprintf("%s: got %s, want %s", path, show(got), show(want)))
		return
	}
	if reflect.DeepEqual(got.Interface(), want.Interface()) {
		return
	}
	switch got.Kind() {
	case reflect.Pointer, reflect.Interface:
		if got.IsNil() || want.IsNil() {
			*d = append(*d, fmt.Sprintf("%s: got %s, want %s", path, show(got), show(want)))
			return
		}
		diff(d, path, got.Elem(), want.Elem())
		return
	case reflect.Struct:
		if got.Type() == timeType {
			break
		}
		for i := range got.NumField() {
			if got.Type().Field(i).IsExported() {
				diff(d, path+"."+got.Type().Field(i).Name, got.Field(i), want.Field(i))
			}
		}
		return
	case reflect.Map:
		if got.IsNil() != want.IsNil() {
			break
		}
		keys := map[string]reflect.Value{}
		for _, k := range append(got.MapKeys(), want.MapKeys()...) {
			keys[fmt.Sprint(k.Interface())] = k
		}
		names := make([]string, 0, len(keys))
		for n := range keys {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			k := keys[n]
			diff(d, fmt.Sprintf("%s[%q]", path, n), got.MapIndex(k), want.MapIndex(k))
		}
		return
	case reflect.Slice:
		if got.IsNil() != want.IsNil() || got.Len() != want.Len() {
			break
		}
		for i := range got.Len() {
			diff(d, fmt.Sprintf("%s[%d]", path, i), got.Index(i), want.Index(i))
		}
		return
	}
	*d = append(*d, fmt.Sprintf("%s: got %s, want %s", path, show(got), show(want)))
}

// show prints a value with its type, following pointers.
func show(v reflect.Value) string {
	if !v.IsValid() {
		return "nothing"
	}
	switch x := v.Interface().(type) {
	case *quantum.Job: // its QRN and status say which, where its fields would not
		if x != nil {
			return fmt.Sprintf("job %s %s", x.JobQRN, x.Status)
		}
	case *quantum.Device:
		if x != nil {
			return "device " + x.QRN
		}
	}
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && !v.IsNil() {
		if v.Kind() == reflect.Pointer {
			return "&" + show(v.Elem())
		}
		return show(v.Elem())
	}
	if v.Kind() == reflect.Slice && !v.IsNil() && v.Type().Elem().Kind() == reflect.Pointer {
		items := make([]string, v.Len())
		for i := range v.Len() {
			items[i] = show(v.Index(i))
		}
		return fmt.Sprintf("%s[%s]", v.Type(), strings.Join(items, ", "))
	}
	if v.Type() == timeType {
		tm := v.Interface().(time.Time)
		return fmt.Sprintf("time %s (%s)", tm.Format(time.RFC3339Nano), tm.Location())
	}
	if v.Kind() == reflect.Slice && v.IsNil() {
		return fmt.Sprintf("%s(nil)", v.Type())
	}
	if v.Kind() == reflect.Map && v.IsNil() {
		return fmt.Sprintf("%s(nil)", v.Type())
	}
	return fmt.Sprintf("%T(%#v)", v.Interface(), v.Interface())
}

// wantErr fails the test unless err is a *quantum.Error equal to want in
// every field: code, message, field details and retry.
func wantErr(t *testing.T, what string, err error, want *quantum.Error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error, want %v", what, want)
	}
	var qe *quantum.Error
	if !errors.As(err, &qe) {
		t.Fatalf("%s: %v (%T) is not a *quantum.Error; want %v", what, err, err, want)
	}
	wantEqual(t, what+" error", qe, want)
}

// invalid is the VALIDATION_ERROR of the given field errors, as the
// Service words it: its message joins theirs.
func invalid(details ...quantum.FieldError) *quantum.Error {
	msgs := make([]string, len(details))
	for i, f := range details {
		msgs[i] = f.Field + ": " + f.Message
	}
	return &quantum.Error{Code: quantum.EVALIDATION, Message: strings.Join(msgs, "; "), Details: details}
}

func field(name, msg string) quantum.FieldError { return quantum.FieldError{Field: name, Message: msg} }

func errorf(code, format string, args ...any) *quantum.Error {
	return &quantum.Error{Code: code, Message: fmt.Sprintf(format, args...)}
}
