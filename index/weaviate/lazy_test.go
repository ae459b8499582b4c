package weaviate_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/memgate/memgate/index"
	"github.com/memgate/memgate/index/weaviate"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// An index made by Constructor does not connect when it is made, fails
// its calls while Weaviate is unreachable, and works once Weaviate is
// reachable again, without being made anew: a server started while
// Weaviate was down recovers by itself.
func TestConstructorReconnects(t *testing.T) {
	base := serverURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	// A loopback port where nothing listens yet.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	class := fmt.Sprintf("MemgateLazy%d", time.Now().UnixNano())
	via := url.URL{Scheme: "weaviate", Host: addr, RawQuery: url.Values{"class": {class}}.Encode()}

	start := time.Now()
	ix := weaviate.Constructor(via.String())(4)
	if d := time.Since(start); d > time.Second {
		t.Fatalf("Constructor took %v: it must not connect", d)
	}
	if p, ok := ix.(index.Persistent); !ok || !p.Persistent() {
		t.Fatal("the constructed index is not persistent")
	}
	ctx := t.Context()
	e := retrieve.Entry{ID: "m1", UserID: "u1", Text: "the ferry leaves at noon", Vector: []float32{1, 0, 0, 0}}
	if err := ix.Upsert(ctx, e); err == nil {
		t.Fatal("Upsert succeeded with nothing listening")
	}

	// Weaviate becomes reachable at addr: forward it to the real server.
	ln, err = net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("the port was taken meanwhile: %v", err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				s, err := net.Dial("tcp", u.Host)
				if err != nil {
					return
				}
				defer s.Close()
				go io.Copy(s, c)
				io.Copy(c, s)
			}()
		}
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		direct := *u
		q := direct.Query()
		q.Set("class", class)
		direct.RawQuery = q.Encode()
		if x, err := weaviate.New(ctx, direct.String(), 4); err == nil {
			x.DropClass(ctx)
		}
	})
	time.Sleep(1100 * time.Millisecond) // past the pause between attempts
	if err := ix.Upsert(ctx, e); err != nil {
		t.Fatalf("Upsert once Weaviate is reachable: %v", err)
	}
	hits, err := ix.Search(ctx, memory.Filter{UserID: "u1"}, []float32{1, 0, 0, 0}, 5)
	if err != nil || len(hits) != 1 || hits[0].ID != "m1" {
		t.Fatalf("Search after reconnecting = %v, %v; want m1", hits, err)
	}
}

// A caller that gives up while the index connects (a readiness probe with a
// short deadline) must not leave its error to the callers after it: they try
// again at once. (Found by review.) No Weaviate is needed: a stand-in
// answers every request late, with 503.
func TestGivingUpDoesNotPoisonTheIndex(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(300 * time.Millisecond)
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer slow.Close()
	ix := weaviate.Constructor("weaviate://" + slow.Listener.Addr().String())(4)
	probe, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	err := ix.(index.Checker).Check(probe)
	cancel()
	if err == nil {
		t.Fatal("the probe succeeded against a server that answers 503")
	}
	start := time.Now()
	_, err = ix.Search(context.Background(), memory.Filter{UserID: "u"}, []float32{1, 0, 0, 0}, 5)
	if err == nil || errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "deadline exceeded") {
		t.Fatalf("a search after the probe gave up = %v; want its own attempt's error", err)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Fatalf("the search failed after %v: it did not try to connect", d)
	}
}
