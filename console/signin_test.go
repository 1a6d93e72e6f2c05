package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qjobs/quantum/quantumtest"
)

// Signing in keeps a key the API accepts in sessionStorage only, and shows
// the API's own message for one it refuses; signing out forgets it.
func TestSignIn(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		wantError string // "" when the key works
	}{
		{"a good key", quantumtest.APIKey, ""},
		{"a bad key", "not-a-key", "the API key is not valid"},
		{"no key", "", "Enter an API key."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.run(chromedp.WaitVisible(chromedp.ID("apikey")), chromedp.SendKeys(chromedp.ID("apikey"), tc.key+"\r"))
			if tc.wantError != "" {
				if got := e.text("#signin-error"); got != tc.wantError {
					t.Errorf("error shown = %q, want the API's %q", got, tc.wantError)
				}
				if eval[bool](e, `sessionStorage.length > 0`) {
					t.Error("a refused key was kept in sessionStorage")
				}
				return
			}
			e.waitJS(`document.querySelector('#jobs-summary')?.textContent.includes('0 jobs')`)
			if got := e.text("#user"); got != "quantumtest" {
				t.Errorf("user shown = %q, want quantumtest", got)
			}
			key := eval[string](e, `sessionStorage.getItem('quantum.apiKey')`)
			cookies := eval[string](e, `document.cookie + localStorage.length`)
			if key != tc.key || cookies != "0" {
				t.Errorf("sessionStorage key %q, cookies+localStorage %q: want the key in sessionStorage only", key, cookies)
			}
			if where := value(e, chromedp.Location()); strings.Contains(where, tc.key) {
				t.Errorf("the key is in the URL %s", where)
			}

			e.run(chromedp.Click(chromedp.ID("signout")), chromedp.WaitVisible(chromedp.ID("apikey")))
			if key := eval[string](e, `String(sessionStorage.getItem('quantum.apiKey'))`); key != "null" {
				t.Errorf("after sign-out sessionStorage holds %q", key)
			}
		})
	}
}
