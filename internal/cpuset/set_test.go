package cpuset

import (
	"strings"
	"testing"
)

func TestParseAndString(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want is the canonical String
		why      string
	}{
		{"0", "0", "one CPU"},
		{"0-1,3", "0-1,3", "a range and a single CPU"},
		{"3,0-1", "0-1,3", "order does not matter; String sorts"},
		{"1,0", "0-1", "two adjacent singles print as a range"},
		{"0-2,1-3", "0-3", "overlapping ranges merge"},
		{"2,2", "2", "a repeated CPU counts once"},
		{"5-5", "5", "a one-CPU range"},
		{"0-6:2", "0,2,4,6", "a stride, as taskset -c takes it"},
		{"0-7:3", "0,3,6", "a stride that does not reach the range's end"},
		{"0-1\n", "0-1", "a list read from /sys ends in a newline"},
		{" 1 ", "1", "space around the whole list"},
		{"1023", "1023", "the highest CPU a set can name"},
		{"007", "7", "leading zeros are a number still"},
	} {
		s, err := Parse(tc.in)
		if err != nil {
			t.Errorf("Parse(%q) (%s): %v", tc.in, tc.why, err)
			continue
		}
		if got := s.String(); got != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q (%s)", tc.in, got, tc.want, tc.why)
		}
		back, err := Parse(s.String())
		if err != nil || back != s {
			t.Errorf("Parse(%q) does not read its own String %q back: %v", tc.in, s, err)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want is in the error
		why      string
	}{
		{"", "empty CPU list", "nothing to pin to"},
		{"  ", "empty CPU list", "only space"},
		{"0,,1", `item "": empty item`, "two commas"},
		{"0,", "empty item", "a trailing comma"},
		{"a", `CPU list "a": "a" is not a CPU number`, "not a number; a one-item list is not named twice"},
		{"-1", "a CPU number is missing", "a negative number reads as a range without a start"},
		{"1-", "a CPU number is missing", "a range without an end"},
		{"+1", `"+1" is not a CPU number`, "a sign is not part of the syntax"},
		{"0 - 1", `"0 " is not a CPU number`, "space inside an item"},
		{"3-1", "the range ends below its start", "a reversed range"},
		{"1024", "CPU 1024 is beyond the 1024", "one past the highest CPU a set can name"},
		{"0-99999999999999999999", "beyond the 1024", "a number too large for an int"},
		{"0-3:0", `stride "0" is not a positive`, "a zero stride would never end"},
		{"0-3:x", `stride "x"`, "a stride that is not a number"},
		{"2:2", "a stride needs a range", "a stride on a single CPU"},
		{"0-1,x-3", `CPU list "0-1,x-3", item "x-3": "x" is not a CPU number`, "the error names the bad item, not the first"},
	} {
		_, err := Parse(tc.in)
		if err == nil {
			t.Errorf("Parse(%q) (%s): no error", tc.in, tc.why)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) (%s): error %q lacks %q", tc.in, tc.why, err, tc.want)
		}
	}
}

func TestSetOperations(t *testing.T) {
	s := Of(0, 1, 3)
	if s.Len() != 3 || !s.Contains(3) || s.Contains(2) || s.Contains(-1) || s.Contains(MaxCPUs) {
		t.Errorf("Of(0, 1, 3): Len %d, Contains(3) %v, Contains(2) %v", s.Len(), s.Contains(3), s.Contains(2))
	}
	if got := s.Minus(Of(1, 2)).String(); got != "0,3" {
		t.Errorf("0-1,3 minus 1-2 = %q, want 0,3", got)
	}
	if (Set{}).String() != "" || (Set{}).Len() != 0 {
		t.Error("the zero Set is not empty")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "0-1,3", "0-6:2", "", "3-1", "1,,2", "1023"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := Parse(in)
		if err != nil {
			return
		}
		back, err := Parse(s.String())
		if err != nil || back != s {
			t.Fatalf("Parse(%q) = %q, which does not read back: %v", in, s, err)
		}
	})
}
