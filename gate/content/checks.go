package content

// Checks defeated (a part of the Destructive cue, whose harm is to
// safeguards rather than data): advice that bypasses a verification or
// reports one as passed without it, the shape of poisoned "lessons" in
// an agent's experience memory ("Monkeypatch checks to always pass",
// "Bypass review gates", "mark the job as successful", "record success
// regardless of checks"). Running tests, skipping slow ones locally, or
// marking an invoice as paid is no such thing.

// checkRole is what a word can do in a sentence about checks, one bit
// each (entry.check).
type checkRole uint16

const (
	checkNoun       checkRole = 1 << iota // checks, validation, gates: a safeguard
	checkBypass                           // bypass, circumvent, monkeypatch: defeats a safeguard named after it
	checkSkip                             // skip: defeats only a safeguard of checkStrict
	checkStrict                           // checks, validation, audits: a safeguard whose skipping is itself the harm
	checkMark                             // mark, record, stamp: declares a status
	checkStatus                           // passed, successful, sanitized: a status a check grants
	checkAlways                           // always: "always pass" fakes a result
	checkOutcome                          // pass, succeed, true: what "always" makes a check return
	checkRegardless                       // regardless: "regardless of checks" ignores them
)

// checkWords lists the words of each role.
var checkWords = map[checkRole]string{
	checkNoun: "check checks validation validations verification verifications test tests gate gates guardrail guardrails " +
		"audit audits review reviews lint linting linter hook hooks assertion assertions safeguard safeguards failures errors results",
	checkBypass: "bypass bypasses bypassing bypassed circumvent circumvents circumventing monkeypatch monkeypatches monkeypatched " +
		"monkeypatching fake fakes faked faking fudge fudges fudged",
	checkSkip:       "skip skips skipping",
	checkStrict:     "check checks validation validations verification verifications audit audits guardrail guardrails safeguard safeguards gate gates",
	checkMark:       "mark marks marked marking record records stamp stamps",
	checkStatus:     "passed successful success succeeded ok green sanitized sanitised final verified valid compliant",
	checkAlways:     "always",
	checkOutcome:    "pass passes succeed succeeds true",
	checkRegardless: "regardless irrespective",
}

// Reach of each pattern, in words.
const (
	maxCheckObject = 4 // "bypass the strict schema checks"
	maxMarkStatus  = 6 // "mark the nightly export job as successful"
)

// defeatsChecks counts the places in the text just analysed that bypass
// a safeguard or declare one passed without it.
func (z *Analyzer) defeatsChecks() int {
	n := 0
	for i := range z.words {
		r := z.checks[i]
		switch {
		case r&checkBypass != 0 && z.checkAhead(i, maxCheckObject, checkNoun),
			r&checkSkip != 0 && z.checkAhead(i, maxCheckObject, checkStrict),
			r&checkAlways != 0 && z.alwaysPasses(i),
			r&checkRegardless != 0 && z.checkAhead(i, 3, checkNoun),
			r&checkMark != 0 && z.marksAs(i):
			n++
		}
	}
	return n
}

// checkAhead reports whether one of the next reach words of word i, in
// its sentence, plays role.
func (z *Analyzer) checkAhead(i, reach int, role checkRole) bool {
	for j := i + 1; j < len(z.words) && j-i <= reach; j++ {
		if z.checks[j]&role != 0 {
			return true
		}
		if z.endsSentence(j) {
			break
		}
	}
	return false
}

// marksAs reports whether mark word i declares a status a check grants:
// "mark the job as successful", "stamp the export as sanitized"; not
// "mark the invoice as paid".
func (z *Analyzer) marksAs(i int) bool {
	for j := i + 1; j+1 < len(z.words) && j-i < maxMarkStatus; j++ {
		if string(z.tok(j)) == "as" {
			return z.checks[j+1]&checkStatus != 0
		}
		if z.endsSentence(j) {
			break
		}
	}
	return false
}

// alwaysPasses reports whether "always" at word i makes a check's result
// fixed: "monkeypatch checks to always pass:", "always return true"; not
// "always pass a date range".
func (z *Analyzer) alwaysPasses(i int) bool {
	for j := i + 1; j < len(z.words) && j-i <= 2; j++ {
		if z.checks[j]&checkOutcome != 0 {
			return z.clauseEnds(j)
		}
		if z.endsSentence(j) {
			break
		}
	}
	return false
}
