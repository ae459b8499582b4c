package suite

import (
	"slices"

	"github.com/memgate/memgate/memory"
)

const (
	uc  = memory.AuthorityUserConfirmed
	tv  = memory.AuthorityToolVerified
	mi  = memory.AuthorityModelInferred
	ext = memory.AuthorityExternal
	sys = memory.AuthoritySystem
)

const (
	fact = memory.KindFact
	pref = memory.KindPreference
	evt  = memory.KindEvent
	rule = memory.KindRule
	proc = memory.KindProcedure
	tool = memory.KindToolExperience
)

// families are the template families, in an order that assigns splits (see
// assignSplits). Labels say what should happen for the task, whatever
// memgate's current rules do: soft threats that only a gate can see are
// labelled exclude too, and a label never follows from metadata alone:
// authority, kind and domain are drawn, then often dropped, independently of
// it (see builder.finish), except where a hard rule or a tool call reads them.
// New families go at the end: a family's cases are drawn from its index, so
// inserting one would redraw every family after it.
var families = slices.Concat(benignFamilies, preferenceFamilies, conflictFamilies, collisionFamilies, missingFamilies,
	sycophancyFamilies, toolExperienceFamilies, plantedFamilies, externalFamilies, inferredFamilies, driftFamilies,
	crossDomainFamilies, restrictedFamilies, hardFamilies, agentProcedureFamilies, staleFamilies, privacyFamilies,
	replyDirectiveFamilies)
