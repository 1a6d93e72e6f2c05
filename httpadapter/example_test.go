package httpadapter_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/store"
)

// Serve the API on a listener that holds a bounded number of connections
// open at once. One slot here, to show a refusal; a server would allow a
// thousand or so.
func ExampleLimitListener() {
	svc, err := quantum.New(store.NewMemory())
	if err != nil {
		panic(err)
	}
	defer svc.Close(context.Background())

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := &http.Server{Handler: httpadapter.New(svc), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	go srv.Serve(httpadapter.LimitListener(ln, 1))
	defer srv.Close()

	// A connection that holds the only slot...
	held, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		panic(err)
	}
	defer held.Close()

	// ...so the next one is refused.
	res, err := http.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		panic(err)
	}
	defer res.Body.Close()
	fmt.Println(res.Status, "Retry-After:", res.Header.Get("Retry-After"))
	// Output: 503 Service Unavailable Retry-After: 1
}
