// Package memory defines memgate's memory record and its trust metadata: who
// owns it (scope), where it came from (source authority), what it is (kind),
// how sensitive it is (classification), when it is valid, and how it relates to
// other memories (lineage and supersession).
//
// The JSON form uses the field names of the memgate specification (camelCase)
// and is the format of `memgate import` and `memgate export`. Every metadata
// field is optional except id, text and userId; missing metadata is normal in
// real data, and later stages treat it conservatively rather than failing.
package memory
