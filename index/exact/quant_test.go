package exact

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/memgate/memgate/embed"
	"github.com/memgate/memgate/memory"
	"github.com/memgate/memgate/retrieve"
)

// TestTwoPassMatchesFullScan checks that the two-pass search returns the
// full scan's hits, ids and scores bit for bit, on data made to trouble it:
// near-duplicates whose scores differ by less than the quantization error,
// exact copies (ties broken by id), vectors with one huge component (a coarse
// scale), tiny vectors, zero vectors, texts embedded by the
// builtin embedder, scope filters, removals, every k from 1 to more than the
// rows, and split and sequential scans.
func TestTwoPassMatchesFullScan(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(21, 22))
	for _, dim := range []int{7, 64, embed.BuiltinDim} {
		t.Run(fmt.Sprint(dim), func(t *testing.T) {
			base := randVec(r, dim)
			emb := embed.NewBuiltin()
			words := []string{"invoice", "deadline", "client", "doctor", "flight", "budget", "report", "family", "meeting", "tax"}
			x := New(dim)
			projects := []string{"", "p1", "p2"}
			for i := range 5000 {
				id := fmt.Sprintf("m%d", r.IntN(4000))
				if i%7 == 0 {
					if err := x.Remove(ctx, "u", id); err != nil {
						t.Fatal(err)
					}
					continue
				}
				var v []float32
				switch r.IntN(8) {
				case 0: // a near-duplicate of base
					v = slices.Clone(base)
					v[r.IntN(dim)] += float32(r.NormFloat64() * 1e-4)
				case 1: // an exact copy
					v = base
				case 2: // one huge component
					v = randVec(r, dim)
					v[r.IntN(dim)] = 50
				case 3: // tiny
					v = randVec(r, dim)
					for j := range v {
						v[j] *= 1e-30
					}
				case 4:
					v = make([]float32, dim)
				case 5:
					if dim == embed.BuiltinDim {
						v = make([]float32, dim)
						emb.EmbedInto(v, words[r.IntN(len(words))]+" "+words[r.IntN(len(words))]+" "+words[r.IntN(len(words))])
						break
					}
					fallthrough
				default:
					v = randVec(r, dim)
				}
				e := retrieve.Entry{ID: id, UserID: "u", ProjectID: projects[r.IntN(len(projects))], Vector: v}
				if err := x.Upsert(ctx, e); err != nil {
					t.Fatal(err)
				}
			}
			nan := randVec(r, dim)
			nan[0] = float32(math.NaN())
			if err := x.Upsert(ctx, retrieve.Entry{ID: "nan", UserID: "u", Vector: nan}); err == nil {
				t.Fatal("a vector with a NaN was accepted")
			}
			if _, err := x.Search(ctx, memory.Filter{UserID: "u"}, nan, 5); err == nil {
				t.Fatal("a query with a NaN was accepted")
			}
			n := x.Len()
			near := slices.Clone(base)
			near[0] += 1e-3
			queries := [][]float32{base, near, randVec(r, dim)}
			if dim == embed.BuiltinDim {
				q := make([]float32, dim)
				emb.EmbedInto(q, "the client invoice deadline")
				queries = append(queries, q)
			}
			filters := []memory.Filter{{UserID: "u"}, {UserID: "u", ProjectID: "p1"}, {UserID: "u", ProjectID: "unseen"}}
			twoPassRuns := 0
			for _, f := range filters {
				for qi, q := range queries {
					for _, k := range []int{1, 5, 50, 100, 400, n - 1, n + 5} {
						x.search, x.parts = searchExact, 1
						want, err := x.Search(ctx, f, q, k)
						if err != nil {
							t.Fatal(err)
						}
						for _, parts := range []int{1, 2, 3} {
							x.search, x.parts = searchTwoPass, parts
							got, err := x.Search(ctx, f, q, k)
							if err != nil {
								t.Fatal(err)
							}
							twoPassRuns++
							if !sameHits(got, want) {
								t.Fatalf("filter %+v query %d k=%d parts=%d: two passes differ from the full scan:\n got %v\nwant %v",
									f, qi, k, parts, got, want)
							}
						}
					}
				}
			}
			if twoPassRuns == 0 {
				t.Fatal("no two-pass search ran")
			}
		})
	}
}

// sameHits compares hits bit for bit, NaN scores included.
func sameHits(a, b []retrieve.Hit) bool {
	return slices.EqualFunc(a, b, func(x, y retrieve.Hit) bool {
		return x.ID == y.ID && math.Float64bits(x.Score) == math.Float64bits(y.Score)
	})
}

// TestTwoPassPrunes checks that pass 1 is worth its cost on embedded text:
// the rows pass 2 scores are a small part of a 20,000-row partition. Were
// the bound loose (or wrong the other way), this or the test above fails.
func TestTwoPassPrunes(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(23, 24))
	emb := embed.NewBuiltin()
	words := []string{"project", "deadline", "invoice", "client", "meeting", "doctor", "appointment", "family",
		"budget", "report", "deploy", "service", "database", "review", "contract", "insurance", "school", "holiday",
		"flight", "hotel", "account", "bank", "salary", "tax", "recipe", "allergy", "birthday", "garden", "car", "rent"}
	x := New(embed.BuiltinDim)
	es := make([]retrieve.Entry, 20000)
	for i := range es {
		text := ""
		for range 8 + r.IntN(12) {
			text += words[r.IntN(len(words))] + " "
		}
		v := make([]float32, embed.BuiltinDim)
		emb.EmbedInto(v, text)
		es[i] = retrieve.Entry{ID: fmt.Sprintf("m%d", i), UserID: "u", Vector: v}
	}
	if err := x.Upsert(ctx, es...); err != nil {
		t.Fatal(err)
	}
	q := make([]float32, embed.BuiltinDim)
	emb.EmbedInto(q, "send the quarterly report deadline to the client")
	s := x.users["u"]
	sc := getScan(s, 100, 1, embed.BuiltinDim)
	defer sc.release()
	sc.q = q
	if !sc.quantQuery(q) {
		t.Fatal("query not quantized")
	}
	top := sc.quantVectors()
	if len(top.items) != 100 {
		t.Fatalf("%d hits", len(top.items))
	}
	scored := 0
	t0 := sc.lows[0][0]
	for i := range s.ids {
		if sc.approx[i] >= t0 {
			scored++
		}
	}
	t.Logf("pass 2 scored %d of %d rows", scored, len(s.ids))
	if scored > len(s.ids)/10 {
		t.Fatalf("pass 2 scored %d of %d rows: the bound prunes too little", scored, len(s.ids))
	}
}

// TestTwoPassExtremeMagnitudes checks the two ends of float32's range that
// a relative error bound misses (found by review): products in the
// subnormal range, each rounded to a multiple of 2⁻¹⁴⁹ whatever its size, and
// finite vectors whose float32 dot product overflows to +Inf, which the full
// scan ties (broken by id). The engine stores unit vectors, so neither
// reaches it; the index still promises the full scan's result.
func TestTwoPassExtremeMagnitudes(t *testing.T) {
	ctx := context.Background()
	const dim = 256
	fill := func(v []float32, x float32) []float32 {
		for i := range v {
			v[i] = x
		}
		return v
	}
	tiny := float32(math.Ldexp(1, -74))
	everyOther := make([]float32, dim)
	for i := range everyOther {
		if i%2 == 0 {
			everyOther[i] = 1.49 * tiny
		}
	}
	cases := []struct {
		name    string
		q       []float32
		a, b    []float32
		filler  []float32
		wantTop string
	}{
		// Every product of a is 0.51·2⁻¹⁴⁹ (rounded up), half of b's are
		// 1.49·2⁻¹⁴⁹ (rounded down): exactly b is larger, in float32 a.
		{"subnormal products", fill(make([]float32, dim), float32(math.Ldexp(1, -75))),
			fill(make([]float32, dim), 0.51*tiny), everyOther, fill(make([]float32, dim), 0.1*tiny), "a"},
		{"overflow", fill(make([]float32, dim), 1e20), fill(make([]float32, dim), 0.5e20),
			fill(make([]float32, dim), 1e20), fill(make([]float32, dim), 1), "a"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			full, two := New(dim), New(dim)
			full.search, two.search = searchExact, searchTwoPass
			for _, x := range []*Index{full, two} {
				es := []retrieve.Entry{{ID: "a", UserID: "u", Vector: tc.a}, {ID: "b", UserID: "u", Vector: tc.b}}
				for i := range 3000 {
					es = append(es, retrieve.Entry{ID: fmt.Sprintf("f%04d", i), UserID: "u", Vector: tc.filler})
				}
				if err := x.Upsert(ctx, es...); err != nil {
					t.Fatal(err)
				}
			}
			f := memory.Filter{UserID: "u"}
			want, err := full.Search(ctx, f, tc.q, 1)
			if err != nil {
				t.Fatal(err)
			}
			got, err := two.Search(ctx, f, tc.q, 1)
			if err != nil {
				t.Fatal(err)
			}
			if want[0].ID != tc.wantTop {
				t.Fatalf("the full scan ranks %v first; the case expects %s (float32's own answer)", want, tc.wantTop)
			}
			if !sameHits(got, want) {
				t.Fatalf("two passes %v, full scan %v", got, want)
			}
		})
	}
}
