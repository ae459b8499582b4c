package weaviate

// SetListPage sets how many objects a page of a tenant listing holds and
// returns a function that restores it, so tests can make ReplaceUser list
// a small tenant in many pages.
func SetListPage(n int) (restore func()) {
	old := listPage
	listPage = n
	return func() { listPage = old }
}

// SetLexScanMax sets the most entries Lexical scores itself before it lets
// Weaviate's BM25 propose candidates, and returns a function that restores
// it, so tests can take the BM25 path on a small corpus.
func SetLexScanMax(n int64) (restore func()) {
	old := lexScanMax
	lexScanMax = n
	return func() { lexScanMax = old }
}
