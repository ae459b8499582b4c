// Package memory defines memgate's memory record and its trust metadata: who
// owns it (scope), where it came from (source authority), what it is (kind),
// how sensitive it is (classification), when it is valid, and how it relates to
// other memories (lineage and supersession).
//
// The JSON form uses the field names of the memgate specification (camelCase)
// and is the format of `memgate import` and `memgate export`. Every metadata
// field is optional except id, text and userId; missing metadata is normal in
// real data, and later stages treat it conservatively rather than failing.
// The decoder is strict about everything else: an unknown or repeated key, a
// value of the wrong type, and a date outside MinTime to MaxTime are errors
// that name the key (and, in JSON Lines, the line).
//
// Ids and scope labels are compared in Unicode NFC form (Memory.Normalize,
// NormalizeID) and may not contain whitespace (labels: inner spaces only),
// control or invisible characters (CheckID, CheckLabel), so that two ids that
// look the same are the same.
package memory
