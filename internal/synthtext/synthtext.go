// Package synthtext holds the vocabulary synthetic memories are made of, so
// that the benchmarks and scripts/genmem draw their texts from the same
// words and their figures stay comparable.
package synthtext

import "strings"

// Words are the content words of synthetic memory texts: work, family,
// health, money and travel, a few preferences and frequencies.
var Words = strings.Fields(`project deadline invoice client meeting doctor appointment family dinner
	budget report deploy service database migration review contract insurance claim school
	holiday flight hotel password account bank transfer salary tax refund recipe allergy
	medication birthday gift garden car repair lawyer landlord rent lease quarterly sprint
	release bug customer support ticket roadmap design hiring interview onboarding laptop
	backup server outage incident postmortem vendor payment supplier shipment warehouse
	prefers always never morning evening weekly monthly urgent confidential shared private`)

// Names begin synthetic memory texts: people and companies.
var Names = []string{"Alex", "Sam", "John", "Maria", "Acme", "Globex", "Initech", "Priya", "Chen", "Lena"}
