// Package console serves the web console of the quantum job service: one
// page, plain HTML, CSS and JavaScript modules embedded in the binary, that
// speaks the public /api/v1 from the browser with the user's API key.
//
//	mux.Handle("/api/", api)          // httpadapter.New(svc)
//	mux.Handle("/", console.New())    // the console, same origin
//
// The console imports nothing of the service's: everything it shows comes
// from /api/v1, exactly as any other client sees it. It keeps the key in the
// tab's sessionStorage and sends it only in the X-API-KEY header.
//
// The handler may be mounted under any prefix (with http.StripPrefix): the
// page addresses its files relatively and routes views in the URL's
// fragment (#/jobs/…), so the server has one page to serve whatever view
// is open.
package console

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"
)

//go:embed assets
var assets embed.FS

// Option configures the console.
type Option func(*config)

type config struct {
	apiBase string
}

// WithAPIBase sets the base URL of the API the page calls, such as
// https://api.example.com (the page appends /api/v1). The default, "",
// is the origin that serves the page. Another origin must allow the
// page's origin (CORS, with the X-API-KEY header); the console's own
// Content-Security-Policy lets the page connect to it and nowhere else.
func WithAPIBase(base string) Option {
	return func(c *config) { c.apiBase = strings.TrimRight(base, "/") }
}

// New returns the handler that serves the console. It answers GET and
// HEAD: the page at "/" (and "/index.html") and its assets; anything else
// is a 404 or 405 in plain text.
func New(opts ...Option) http.Handler {
	var c config
	for _, o := range opts {
		o(&c)
	}
	files, err := fs.Sub(assets, "assets")
	if err != nil {
		panic("console: " + err.Error()) // the embedded tree is fixed at build time
	}
	return &handler{files: files, index: renderIndex(files, c.apiBase), csp: policy(c.apiBase), modified: time.Now()}
}

type handler struct {
	files    fs.FS
	index    []byte
	csp      string
	modified time.Time
}

// renderIndex fills the page's one parameter, the API base, into a meta
// tag (html/template escapes it): the page reads it from there, since a
// script of its own cannot be inline under the policy.
func renderIndex(files fs.FS, apiBase string) []byte {
	src, err := fs.ReadFile(files, "index.html")
	if err != nil {
		panic("console: " + err.Error())
	}
	t := template.Must(template.New("index").Parse(string(src)))
	var b bytes.Buffer
	if err := t.Execute(&b, struct{ APIBase string }{apiBase}); err != nil {
		panic("console: " + err.Error())
	}
	return b.Bytes()
}

// policy is the Content-Security-Policy of every answer: scripts and styles
// from the console's own files only (no inline script, no inline style
// attribute), connections to the page's origin or the configured API's,
// no plug-ins, no forms posted anywhere, and no framing (clickjacking).
func policy(apiBase string) string {
	connect := "'self'"
	if u, err := url.Parse(apiBase); err == nil && u.Scheme != "" && u.Host != "" {
		connect += " " + u.Scheme + "://" + u.Host
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src 'self'",
		"style-src 'self'",
		"img-src 'self' data:",
		"connect-src " + connect,
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	}, "; ")
}

// types are the content types of the console's files, fixed here rather
// than read from the system's tables, which map .js to text/plain on some
// machines: a module script must come as JavaScript (nosniff).
var types = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".svg": "image/svg+xml",
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", h.csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY") // for browsers without frame-ancestors
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if name == "" || name == "index.html" {
		// The page is small and names no version of its files: revalidate
		// it every time, so a new binary's console is picked up at once.
		hd.Set("Cache-Control", "no-cache")
		hd.Set("Content-Type", "text/html; charset=utf-8")
		http.ServeContent(w, r, "index.html", h.modified, bytes.NewReader(h.index))
		return
	}
	b, err := fs.ReadFile(h.files, name)
	ctype := types[path.Ext(name)]
	if err != nil || ctype == "" {
		http.NotFound(w, r)
		return
	}
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Content-Type", ctype)
	http.ServeContent(w, r, name, h.modified, bytes.NewReader(b))
}
