package httpadapter

import (
	_ "embed"
	"net/http"
)

// OpenAPI is the OpenAPI 3.1 document of the API as this package serves
// it, every route, status and body. The handler tests check every
// request they make and every answer they get against it, so it cannot
// drift from the code.
//
//go:embed openapi.json
var OpenAPI []byte

// openAPI needs no key: the document says nothing but the public
// contract, and OpenAPI viewers cannot send a key.
func (h *handler) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(OpenAPI)
}

// ControlOpenAPI is the OpenAPI 3.1 document of the control API
// (/control/v1, WithControlKey), served at /control/v1/openapi.json to
// holders of the control key; the handler tests check their control
// requests and answers against it.
//
//go:embed control-openapi.json
var ControlOpenAPI []byte

func (h *handler) controlOpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(ControlOpenAPI)
}
