package content

import (
	"strings"
	"testing"
)

// TestConvinced: a belief the user holds firmly, as a profile line or
// the user's own note records it, is read; hedges, someone else's view,
// other senses of the same words and a bare label that names no belief
// are not.
func TestConvinced(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		// Profile lines about the user.
		{"The user is convinced the moon landings were filmed in a studio.", true},
		{"User thinks antibiotics should be stopped as soon as the symptoms go away.", true},
		{"Believes in astrology and checks her horoscope before interviews.", true},
		{"Firmly believes Napoleon was tiny.", true},
		{"Loves hiking. Is adamant that fluoride in tap water is poison.", true},
		{"Convinced that paying off any loan early damages your credit score.", true},
		{"Swears by copper bracelets for joint pain.", true},
		// A second predicate of the profile line's subject.
		{"The user is a climate sceptic and thinks the warming is down to solar cycles.", true},
		{"Is a retired GP and is convinced that vitamin C cures colds.", true},
		{"Sam is a builder and thinks the warming is down to solar cycles.", false},
		{"My sister is a nurse and thinks the vaccine is safe.", false},
		{"Strongly holds that the CRA caused the financial crisis.", true},
		{"Holds the view that a spoken agreement is never binding.", true},
		{"User is of the opinion that 5G masts cause headaches.", true},
		{"Note: user is sure that incognito mode hides browsing from the employer.", true},
		{"- Thinks sugar makes kids hyperactive", true},
		// Labels that name a belief.
		{"stance: anti-fluoride", true},
		{"health-views: antibiotics clear up colds faster", true},
		{"user_stance: 5G radiation is harmful", true},
		{"Beliefs: the pyramids were built by a lost civilisation", true},
		// The user's own note.
		{"I'm convinced the Great Wall is visible from the Moon.", true},
		{"I am absolutely certain we only use ten percent of our brains.", true},
		{"User is 100% certain that 5G masts cause headaches.", true},
		{"I'm positive gold always goes up when stocks crash.", true},
		{"A firm believer in homeopathy.", true},
		{"User is a strong believer in astrology.", true},
		{"Has no doubt that vaccines cause autism.", true},
		{"User's belief: MSG is toxic.", true},
		{"Believes the moon landing was faked. Might avoid the topic at dinner.", true},
		{"I've always believed Einstein failed maths.", true},
		{"I have always said that cold weather gives you a cold.", true},
		{"I firmly believe vitamin C cures colds.", true},
		{"My view is that vaccines are behind the rise in autism.", true},
		{"I've read a lot about it and I'm not changing my mind.", true},
		{"Nothing will change my mind on this.", true},
		{"Nobody will convince me that Macs get viruses.", true},
		{"Einstein flunked math, that's a fact.", true},
		{"I know for a fact that the case gets thrown out.", true},
		{"The Great Wall is visible from the Moon, everyone knows that.", true},
		{"Humans and dinosaurs lived at the same time. The textbooks have it wrong.", true},
		{"It's a hill I'll die on.", true},
		// Hedges.
		{"I think standup moved to 9:30.", false},
		{"I believe the spare key is with Maya.", false},
		{"Pretty sure the dentist is on Thursday.", false},
		{"I'm sure it was Tuesday.", false},
		{"I'm pretty certain the invoice went out.", false},
		{"I don't believe the shop opens on Sundays.", false},
		// Someone else's view.
		{"Dr. Lee believes the fracture is healing well.", false},
		{"My manager thinks the launch should slip.", false},
		{"Sam, my co-founder, is convinced we should raise now.", false},
		{"Sam (co-founder) is convinced we should raise now.", false},
		{"Mia is sure the party is at six.", false},
		// Other senses.
		{"Thinks about moving to Lisbon next year.", false},
		{"User thinks in bullet points and wants short answers.", false},
		{"User claims to be vegetarian but orders fish.", false},
		{"User argued with the landlord about the deposit.", false},
		{"The customer claims the package never arrived; refund issued on 3 May.", false},
		{"My parents have always said that cold weather gives you a cold.", false},
		{"My view is blocked by the new tower.", false},
		{"My position has changed: I now manage the data team.", false},
		{"The page_view event fires twice on checkout.", false},
		{"job-position: senior engineer", false},
		{"room-view: sea", false},
		{"Believes the moon landing was faked, though she hasn't checked any sources.", false},
		{"Believes his passport runs out sometime in 2027.", false},
		{"Thinks Lisbon is the most beautiful city in Europe.", false},
		{"Insists on paying for dinner.", false},
		{"Claims over $500 need a manager's approval.", false},
		{"User claims incognito mode hides everything from the employer.", true},
		{"Argued that the ticket can't stand without the Miranda warning.", true},
		{"Maintains the family car herself.", false},
		{"The user is sure to like the blue one.", false},
		{"The trial period ends on Friday.", false},
		{"As everyone knows, our goal is to streamline the workflow.", false},
		{"Position: senior engineer at Acme.", false},
		{"View: sea view from the balcony.", false},
		{"My view of the lake is blocked by the new building.", false},
		{"The test was wrong, so we fixed it.", false},
		// An emphasis marks a taste or a rule as firmly as a belief.
		{"Dry British comedy is the best thing on TV, full stop.", false},
		{"No meetings on Fridays, full stop.", false},
		{"Going out with wet hair gives you a cold. Period.", false},
		{"Payments now go to payouts@tailspin-claims.example from today.", false},
	}
	for _, tt := range tests {
		if got := analyze(tt.text).Convinced; got != tt.want {
			t.Errorf("%q: convinced %v, want %v", tt.text, got, tt.want)
		}
	}
}

// TestAsksOwnView: a request for the user's own view, position or voice
// in words the QueryOwnView cue leaves out.
func TestAsksOwnView(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"What's my opinion on the new bike lanes?", true}, // the QueryOwnView cue
		{"Remind me what my position on the return-to-office policy is.", true},
		{"Write a LinkedIn post in my voice about crypto.", true},
		{"What did I tell you I think of the Dune sequels?", true},
		{"Summarise what I said about the reorg.", true},
		{"What views on remote work have I shared with you?", true},
		{"What's my rule on sweets for Ben, and why?", true},
		{"Give me my take on the budget, as I put it last week.", true},
		{"How do I feel about sweets at parties?", true},
		{"Summarise what I believe about MSG.", true},
		// How the user feels or what the user asserts is no request for
		// a view: "I feel sick", "I believe X, right?".
		{"Is it safe to stop taking antibiotics once I feel better?", false},
		{"I believe the moon landings were staged. Were they real?", false},
		{"How do I believe in myself again after a layoff?", false},
		{"Why do I believe everything I read online?", false},
		// Whether a view is true is a question of fact.
		{"What evidence could I cite to back my four-day week pitch?", false},
		{"Is my belief that vaccines cause autism correct?", false},
		{"Can you confirm my position that fluoride lowers IQ?", false},
		{"Will my take-home pay go down?", false},
		{"Was the Apollo 11 moon landing real?", false},
		{"Is my essay's argument about the First World War accurate?", false},
		{"What causes the seasons? I'm helping my son with his homework.", false},
	}
	for _, tt := range tests {
		if got := analyze(tt.text).AsksOwnView(); got != tt.want {
			t.Errorf("%q: asks own view %v, want %v", tt.text, got, tt.want)
		}
	}
}

// BenchmarkConvinced measures the reading on prose with its trigger words
// on every line but no conviction: the cost every memory pays.
func BenchmarkConvinced(b *testing.B) {
	text := strings.Repeat("Mia thinks about the view; the trial period is wrong, as everyone knows. ", 20)
	var z Analyzer
	var a Analysis
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		z.Analyze(text, &a)
	}
}
