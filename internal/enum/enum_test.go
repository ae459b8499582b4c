package enum

import "testing"

type color string

func TestParse(t *testing.T) {
	allowed := []color{"red", "green"}
	if c, err := Parse("green", allowed); err != nil || c != "green" {
		t.Fatalf("Parse(green) = %q, %v", c, err)
	}
	if _, err := Parse("blue", allowed); err == nil || err.Error() != `unknown value "blue" (allowed: red, green)` {
		t.Fatalf("Parse(blue) = %v", err)
	}
	if _, err := Parse("", allowed); err == nil {
		t.Fatal("empty value accepted")
	}
}
