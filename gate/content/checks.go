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
	checkAs                               // as: "mark the job as successful"
)

// checkStrictWords are the safeguards whose skipping is itself the harm;
// skipping a test or a review is often ordinary ("skip the slow tests
// locally").
const checkStrictWords = "check checks validation validations verification verifications audit audits guardrail guardrails " +
	"safeguard safeguards gate gates"

// checkTriggers are the roles of the words defeatsChecks starts from: a
// text holds none of them, and Analyze does not call it.
const checkTriggers = checkBypass | checkSkip | checkAlways | checkRegardless | checkMark

// checkWords lists the words of each role. "results", "ok" and "valid"
// are left out: "regardless of the results", "mark the ticket as ok".
var checkWords = map[checkRole]string{
	checkNoun: checkStrictWords + " test tests review reviews lint linting linter hook hooks assertion assertions failures errors",
	checkBypass: "bypass bypasses bypassing bypassed circumvent circumvents circumventing monkeypatch monkeypatches monkeypatched " +
		"monkeypatching fake fakes faked faking fudge fudges fudged",
	checkSkip:       "skip skips skipping",
	checkStrict:     checkStrictWords,
	checkMark:       "mark marks marked marking record records stamp stamps",
	checkStatus:     "passed successful success succeeded green sanitized sanitised final verified compliant",
	checkAlways:     "always",
	checkOutcome:    "pass passes succeed succeeds true",
	checkRegardless: "regardless irrespective",
	checkAs:         "as",
}

// How many words after the word that starts a pattern the rest of it may
// stand (at most, counting the word itself as 0).
const (
	maxCheckObject = 4 // "bypass the strict schema checks"
	maxMarkAs      = 5 // "mark the nightly export job as successful": "as" 5 words after "mark"
	maxOutcome     = 2 // "always return true"
	maxRegardless  = 3 // "regardless of the checks"
)

// defeatsChecks counts the places in the text just analysed that bypass
// a safeguard or declare one passed without it.
func (z *Analyzer) defeatsChecks() int {
	n := 0
	for i := range z.words {
		r := z.checks[i]
		if r&checkTriggers != 0 && z.checkForbidden(i) {
			continue
		}
		switch {
		case r&checkBypass != 0 && z.guardAhead(i, checkNoun),
			r&checkSkip != 0 && z.guardAhead(i, checkStrict),
			r&checkAlways != 0 && z.alwaysPasses(i),
			r&checkRegardless != 0 && z.findAhead(i, maxRegardless, checkNoun) >= 0,
			r&checkMark != 0 && z.marksAs(i):
			n++
		}
	}
	return n
}

// findAhead returns the first of the next reach words of word i, in its
// sentence, that plays role, or -1.
func (z *Analyzer) findAhead(i, reach int, role checkRole) int {
	for j := i + 1; j < len(z.words) && j-i <= reach; j++ {
		if z.checks[j]&role != 0 {
			return j
		}
		if z.endsSentence(j) {
			break
		}
	}
	return -1
}

// guardAhead reports whether a safeguard of role follows word i as what
// it acts on, not as a word describing something else: "bypass review
// gates", "skip strict schema checks"; not "fake test data", "the bypass
// valve on the test rig".
func (z *Analyzer) guardAhead(i int, role checkRole) bool {
	for j := z.findAhead(i, maxCheckObject, role); j >= 0; j = z.findAhead(j, maxCheckObject-(j-i), role) {
		if z.endsSentence(j) || j+1 >= len(z.words) || z.content[j+1] == 0 || z.checks[j+1]&checkNoun != 0 {
			return true
		}
	}
	return false
}

// checkForbidden reports whether trigger word i is forbidden rather than
// advised: a negation (forbidsAt: "not", "never", "avoid", "without",
// "rather than", "instead of"…) stands right before it, or
// before an adverb that does not change what is forbidden ("Never skip schema validation", "Don't just
// bypass the gates", "avoid bypassing review gates", "We can't mark the
// export as verified yet"). A verb between them forbids something else
// ("Don't forget to skip validation", "Don't wait for QA: mark the job as
// successful").
func (z *Analyzer) checkForbidden(i int) bool {
	for j := i - 1; j >= 0 && !z.clauseEnds(j); j-- {
		if z.forbidsAt(j) {
			return true // "never skip", "rather than bypassing the hook", "instead of skipping validation"
		}
		if !forbidAdverbs[string(z.tok(j))] {
			return false
		}
	}
	return false
}

// forbidAdverbs may stand between a negation and what it forbids: "do not
// just bypass…", "never blindly skip…".
var forbidAdverbs = setOf("just ever simply really blindly quietly silently")

// marksAs reports whether mark word i declares a status a check grants:
// "mark the job as successful", "stamp the export as sanitized"; not
// "mark the invoice as paid", nor a status granted only once the check is
// done ("record the result as passed only after QA signs off").
func (z *Analyzer) marksAs(i int) bool {
	j := z.findAhead(i, maxMarkAs, checkAs)
	return j >= 0 && j+1 < len(z.words) && z.checks[j+1]&checkStatus != 0 && !z.onlyOnceChecked(j+1)
}

// onlyOnceChecked reports whether status word i is granted only on a
// condition: "only" and "after", "once", "when", "if" or "upon" follow it
// in its clause ("as passed only after QA signs off", "as verified only
// once the counts match").
func (z *Analyzer) onlyOnceChecked(i int) bool {
	k := i + 1
	if k < len(z.words) && !z.clauseEnds(i) && string(z.tok(k)) == "only" && k+1 < len(z.words) && !z.clauseEnds(k) {
		switch string(z.tok(k + 1)) {
		case "after", "once", "when", "if", "upon":
			return true
		}
	}
	return false
}

// alwaysPasses reports whether "always" at word i fixes a check's result:
// "monkeypatch checks to always pass:", "always return true"; not "always
// pass a date range", "make sure the tests always pass".
func (z *Analyzer) alwaysPasses(i int) bool {
	j := z.findAhead(i, maxOutcome, checkOutcome)
	return j >= 0 && z.clauseEnds(j) && (string(z.tok(i-1)) == "to" || string(z.tok(j)) == "true")
}
