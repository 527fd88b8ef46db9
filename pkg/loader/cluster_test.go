package loader

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestFromClusterSilentServer: an API server that accepts connections and never answers ends
// the load at the context's deadline, requests that take no context (API discovery) included,
// with the timeout said in one line.
func TestFromClusterSilentServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var mu sync.Mutex
	var conns []net.Conn
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := FromCluster(ctx, &rest.Config{Host: "http://" + l.Addr().String()}, Options{})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "timed out reading from the API server") {
			t.Errorf("err = %v, want a timeout", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the load outlived its deadline by far: some request is not bounded")
	}
}
