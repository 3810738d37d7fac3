package cpuset

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// MaxCPUs is how many CPUs a Set can name, 0 to MaxCPUs-1: glibc's CPU_SETSIZE, the size of
// the mask sched_setaffinity is given here.
const MaxCPUs = 1024

// Set is a set of CPU numbers. The zero value is empty; Sets compare with ==.
type Set struct {
	mask [MaxCPUs / 64]uint64
}

// Of returns the set of the given CPUs; it panics on a number outside [0, MaxCPUs).
func Of(cpus ...int) Set {
	var s Set
	for _, c := range cpus {
		if c < 0 || c >= MaxCPUs {
			panic(fmt.Sprintf("cpuset.Of: CPU %d outside [0, %d)", c, MaxCPUs))
		}
		s.add(c)
	}
	return s
}

func (s *Set) add(cpu int) { s.mask[cpu/64] |= 1 << (cpu % 64) }

// Contains says whether cpu is in the set.
func (s Set) Contains(cpu int) bool {
	return cpu >= 0 && cpu < MaxCPUs && s.mask[cpu/64]&(1<<(cpu%64)) != 0
}

// Len is the number of CPUs in the set.
func (s Set) Len() int {
	n := 0
	for _, w := range s.mask {
		n += bits.OnesCount64(w)
	}
	return n
}

// CPUs lists the set's CPUs in increasing order.
func (s Set) CPUs() []int {
	var cpus []int
	for c := range MaxCPUs {
		if s.Contains(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// Minus is the CPUs of s that are not in t.
func (s Set) Minus(t Set) Set {
	for i := range s.mask {
		s.mask[i] &^= t.mask[i]
	}
	return s
}

// String writes the set in the kernel's canonical cpu-list syntax, as
// /sys/devices/system/cpu/online and taskset -c -p do: increasing, runs of two or more as
// ranges ("0-1,3"). The empty set is "".
func (s Set) String() string {
	var b strings.Builder
	cpus := s.CPUs()
	for i := 0; i < len(cpus); {
		j := i
		for j+1 < len(cpus) && cpus[j+1] == cpus[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(cpus[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(cpus[j]))
		}
		i = j + 1
	}
	return b.String()
}

// Parse reads a cpu-list as Linux writes and taskset -c takes it: comma-separated CPU
// numbers and ranges, a range optionally with a stride ("0", "0-1,3", "0-6:2" for 0,2,4,6).
// Space around the whole list is ignored (a list read from /sys ends in a newline); an empty
// list, an empty item, a reversed range or a CPU of MaxCPUs or more is an error naming the
// item.
func Parse(s string) (Set, error) {
	var set Set
	list := strings.TrimSpace(s)
	if list == "" {
		return set, fmt.Errorf("empty CPU list (want e.g. 0 or 0-1,3)")
	}
	for item := range strings.SplitSeq(list, ",") {
		if err := set.parseItem(item); err != nil {
			if item == list {
				return Set{}, fmt.Errorf("CPU list %q: %w", list, err)
			}
			return Set{}, fmt.Errorf("CPU list %q, item %q: %w", list, item, err)
		}
	}
	return set, nil
}

func (s *Set) parseItem(item string) error {
	if item == "" {
		return fmt.Errorf("empty item (two commas, or one at an end)")
	}
	rng, strideText, hasStride := strings.Cut(item, ":")
	loText, hiText, isRange := strings.Cut(rng, "-")
	lo, err := cpuNumber(loText)
	if err != nil {
		return err
	}
	hi, stride := lo, 1
	if isRange {
		if hi, err = cpuNumber(hiText); err != nil {
			return err
		}
		if hi < lo {
			return fmt.Errorf("the range ends below its start")
		}
	}
	if hasStride {
		if !isRange {
			return fmt.Errorf("a stride needs a range (N-M:S)")
		}
		if stride, err = strconv.Atoi(strideText); err != nil || stride < 1 || !digits(strideText) {
			return fmt.Errorf("stride %q is not a positive whole number", strideText)
		}
	}
	for c := lo; c <= hi; c += stride {
		s.add(c)
	}
	return nil
}

// cpuNumber reads one CPU number.
func cpuNumber(text string) (int, error) {
	if text == "" {
		return 0, fmt.Errorf("a CPU number is missing")
	}
	if !digits(text) {
		return 0, fmt.Errorf("%q is not a CPU number", text)
	}
	n, err := strconv.Atoi(text)
	if err != nil || n >= MaxCPUs {
		return 0, fmt.Errorf("CPU %s is beyond the %d a set can name", text, MaxCPUs)
	}
	return n, nil
}

// digits says whether text is a non-empty run of ASCII digits: no sign, no space.
func digits(text string) bool {
	if text == "" {
		return false
	}
	for _, c := range text {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
