package envoy

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestHTTPGetBounded: a server that streams forever costs at most the body cap and returns an
// error naming it; one that never answers is cut by the context's deadline.
func TestHTTPGetBounded(t *testing.T) {
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat("x", 64<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer endless.Close()
	old := MaxBodyBytes
	MaxBodyBytes = 1 << 20
	defer func() { MaxBodyBytes = old }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := httpGet(ctx, endless.URL+"/debug/syncz")
	if err == nil || !strings.Contains(err.Error(), "GET /debug/syncz: the response is larger than 1048576 bytes (--max-input-size)") {
		t.Errorf("endless: %v", err)
	}

	silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	defer silent.Close()
	ctx2, cancel2 := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel2()
	_, err = httpGet(ctx2, silent.URL+"/debug/syncz")
	if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
		t.Errorf("silent: %v", err)
	}
}
