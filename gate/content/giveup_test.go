package content

import "testing"

// TestGivenUp: a newer text that says its writer gave something up makes
// an older one that holds the thing stale, whatever the two otherwise
// share; other senses of the verbs, someone else's giving up, plans,
// questions, denials, something that happens once and a different thing
// that shares a word do not.
func TestGivenUp(t *testing.T) {
	tests := []struct {
		older, newer string
		want         bool
	}{
		// a thing given up, which the older holds
		{"Text me on WhatsApp, I never answer calls.", "I'm off WhatsApp for good, Signal please", true},
		{"Best way to reach Maria is WhatsApp", "Deleted WhatsApp in May; Signal or plain SMS only now", true},
		{"Use WhatsApp for anything quick", "Quick note: The bike needs air. Quit WhatsApp. Reach me on Signal.", true},
		{"Goal for 2026: run a sub-4-hour marathon.", "Dropped the marathon plan after the knee injury.", true},
		{"I live at 14 Elm Street, Leeds.", "Moved from Leeds to Bristol in March.", true},
		{"Drinks two espressos a day", "Gave up espressos in May.", true},
		{"Has a Netflix account for the kids", "Cancelled the Netflix subscription.", true},
		{"Drinks coffee every morning", "I don't drink coffee anymore.", true},
		{"Mobile contract is with Vodafone", "Not a Vodafone customer any more.", true},
		{"Slack for work chat", "We stopped using Slack last year.", true},
		{"Vegetarian, eats fish now and then.", "Stopped being vegetarian over the winter.", true},
		{"GP is Dr Okafor at Elm Street Surgery.", "No longer with Elm Street Surgery since the move.", true},
		{"GP is Dr Okafor at Elm Street Surgery.", "No longer with the old surgery since the move.", false},                             // "old": one of several, as "Sold my old bike"
		{"GP is Dr Okafor at Elm Street Surgery.", "Registered with Northgate after the move — no longer with the old surgery.", false}, // after a dash: as "Tom – deleted it"
		{"Member at PureGym on Castle Street.", "Admin catch-up: renewed the passport, and ended my PureGym membership.", false},        // after another's label
		{"Member at PureGym on Castle Street.", "Renewed the passport, sorted the tax return, and ended my PureGym membership.", true},
		{"Shares files via Dropbox", "Moved everything to Google Drive and shut the Dropbox account down.", true},
		{"Shares files via Dropbox", "I moved everything to Google Drive, then deleted Dropbox.", true},
		{"Drives a Corsa", "Tom moved to Leeds and sold the Corsa.", false},
		{"Drives a Corsa", "Sold the house and ditched the Corsa.", true},
		{"Drives a Corsa", "Bought a bike and ditched the Corsa.", true},
		{"Drives a Corsa", "Finally sold the house and ditched the Corsa.", true},
		{"Drives a Corsa", "Quick note: renewed the passport and ditched the Corsa.", true},
		{"Drives a Corsa", "Sorry to hear that Tom moved and sold the Corsa.", false},
		{"Member of the Riverside Book Club.", "Left the book club in spring.", true},
		{"Owns a small Boss amp.", "Sold the Strat and the amp.", true},
		{"Prefers WhatsApp over calls", "Said goodbye to WhatsApp.", true},
		{"Keeps notes in Evernote", "Uninstalled Evernote over the holidays.", true},
		{"Main account is with Barclays", "Closed my Barclays account in April.", true},
		{"Pays with the Amex Gold", "The user cancelled their Amex.", true},
		{"Uses Uber in London", "Cancelled the Uber.", false},
		{"Pilates on Thursdays with Jo", "Cancelled Pilates Thursday.", false},
		{"Family group chat is on WhatsApp", "Deleted the group chat.", false},
		{"Uses Slack for work", "Deleted the Slack app.", true},
		{"Sells prints on Etsy", "Sold all the prints.", false},
		{"Breeds spaniel puppies", "Sold the puppies.", false},
		{"Does the Guardian crossword every day", "Gave up on the crossword.", false},
		{"Keeps coupons on the fridge", "Cut out the coupon.", false},
		{"Eats sugar every day", "Cut out sugar.", true},
		{"Text me on WhatsApp", "~~Deleted WhatsApp~~ (changed my mind)", false},
		{"Twitter for work DMs only", "Don't use Twitter anymore (except for work).", false},
		{"Works from home on Fridays", "I'm off work completely this Friday.", false},
		{"Grew up in Bristol", "Moved from Bristol to Bath in 2021.", false},
		{"Used to live in Leeds", "Moved from Leeds to York in March.", false},
		{"Former Deloitte consultant, now freelance", "Left Deloitte.", false},
		{"Consultant at Deloitte", "Left Deloitte.", true},
		{"Keeps the stock in the garage", "Sold all the stock.", false},
		{"Uses WhatsApp daily", "Deleted WhatsApp in May, then reinstalled it.", false},
		{"Uses WhatsApp daily", "Deleted WhatsApp in May. My back hurts.", true},
		{"Uses Facebook daily", "Quit Facebook in May. Now I'm back, sadly.", false},
		{"Has a Netflix account", "Cancelled their Netflix subscription.", false},
		{"Goes to the gym", "CANCELLED GYM.", false},
		{"Drives Dad's Corsa on weekends", "Sold Dad's Corsa.", false},
		{"Uses the Fender Stratocaster daily", "Deleted WhatsApp. Quit Slack. Sold the Peloton. Sold the Fender Stratocaster amp.", false}, // the fourth thing would be cut short
		{"Commutes on a Brompton", "I've just sold the Brompton.", true},
		{"Eats meat and dairy", "Stopped eating meat and dairy in May.", true},
		{"Vodafone 20GB plan", "Switched away from Vodafone.", true},
		{"Shares files via Dropbox", "Shut down the Dropbox account.", true},
		{"Uses Facebook daily", "Got rid of Facebook.", true},
		{"Loves cheese", "Off cheese completely since May.", true},
		// someone else's, a plan, a wish, a question, a denial
		{"Uses WhatsApp daily", "My sister quit WhatsApp.", false},
		{"Uses WhatsApp daily", "Tom deleted WhatsApp.", false},
		{"Uses WhatsApp daily", "Thinking about quitting WhatsApp.", false},
		{"Uses WhatsApp daily", "I want to quit WhatsApp.", false},
		{"Uses WhatsApp daily", "Did I quit WhatsApp?", false},
		{"Uses WhatsApp daily", "I never deleted WhatsApp.", false},
		{"Uses WhatsApp daily", "If I quit WhatsApp, text me.", false},
		{"Drives a Corsa", "Sold his Corsa.", false},
		{"Drives a Corsa", "Sold my dad's Corsa.", false},
		{"Drinks coffee every morning", "Do you drink coffee anymore?", false},
		{"Drinks coffee every morning", "Tom doesn't drink coffee anymore.", false},
		// another sense of the verb, or something that happens once
		{"Dentist: Dr Patel", "Cancelled the dentist appointment.", false},
		{"Likes the window open at night", "Closed the window.", false},
		{"Kids' swimming on Saturday", "Dropped the kids at school.", false},
		{"Car is due for service", "Stopped the car at the lights.", false},
		{"Bakery on the corner", "Stopped by the bakery.", false},
		{"Works from the office", "Left the charger at the office.", false},
		{"Buys oat milk", "Sold out of oat milk at the shop.", false},
		{"Emails Tom on Fridays", "Deleted the email from Tom.", false},
		{"I'm off to Spain in May", "I'm off to Spain.", false},
		{"Works from home on Fridays", "Off work today.", false},
		{"Drinks coffee every morning", "Moved the coffee machine to the kitchen.", false},
		// a different thing that shares a word, a denied or given-up older
		{"Choir rehearsal every Tuesday", "Quit the choir committee.", false},
		{"Spotify subscription renews on the 3rd", "Cancelled the Netflix subscription.", false},
		{"I never use WhatsApp", "Quit WhatsApp.", false},
		{"Doesn't use WhatsApp for work", "Deleted WhatsApp.", false},
		{"Quit WhatsApp in 2024.", "Deleted WhatsApp in May.", false},
		{"Uses Slack last thing every day", "Stopped using Slack last year.", true},
		// each condition of the reading, one row at least
		{"Uses WhatsApp daily", "Deleted WhatsApp in May. Reinstalled it in June.", false},
		{"Shares photos on Facebook", "I quit Facebook, she says.", false},
		{"Uses Chrome for work", "Quit Chrome today.", false},
		{"Uses Chrome for work", "Quit Chrome, this morning.", false},
		{"Uses Chrome for work", "Quit Chrome this week.", false},
		{"Uses Slack daily", "Quit Slack last week.", true},
		{"Uses Slack daily", "Quit Slack this year.", true},
		{"Uses Chrome for work", "Quit Chrome this time.", false},
		{"Drinks coffee every morning", "I'm off coffee for good.", true},
		{"Gets a HelloFresh box on Tuesdays", "Unsubscribed from HelloFresh.", true},
		{"Uses Slack daily", "Quit Slack yesterday.", true},
		{"Texts on WhatsApp", "\"Deleted WhatsApp for good\" is what I keep hearing", false},
		{"Uses WhatsApp daily", "Quit WhatsApp? Not yet.", false},
		{"Ella has piano on Tuesdays", "Ella: quit piano.", false},
		{"Ella has piano on Tuesdays", "Quick note: quit piano.", true},
		{"Ella has piano on Tuesdays", "Update, 3 May: quit piano.", true},
		{"Uses Facebook daily", "Plan: quit Facebook.", false},
		{"Uses Facebook daily", "Next year: quit Facebook.", false},
		{"Ella has piano on Tuesdays", "Note, quit piano.", false},
		{"Text me on WhatsApp", "[19:50] Olga: Busy today.\n[19:53] Priya: I'm off WhatsApp for good.", true},
		{"Text me on WhatsApp", "[19:50] Olga: The podcast queue is long.\n[19:53] Priya: I'm off WhatsApp for good, Signal please.", true},
		{"Uses Facebook daily", "Tom and I quit Facebook.", false},
		{"Uses WhatsApp daily", "Notes\nDeleted WhatsApp in May.", true},
		{"Drinks coffee every morning", "Shouldn't drink coffee anymore.", false},
		{"Has coffee every morning", "I don't drink coffee anymore after 4pm", false},
		{"Drinks coffee every morning", "I do not drink coffee anymore.", true},
		{"Drinks coffee every morning", "I am off coffee completely.", true},
		{"Drinks coffee daily", "Off coffee for now.", false},
		{"Has a Netflix account", "I don't use the Netflix account anymore.", true},
		{"Has a Netflix account", "No longer use the Netflix account.", true},
		{"Photo backup pauses at 20%", "Deleted the photo.", false},
		{"Does yoga every Friday", "Cancelled yoga.", false},
		{"Tracks the budget in a spreadsheet", "Switched from the spreadsheet to the dashboard.", false},
		{"Watches TV in the evening", "Cancelled Apple TV.", false},
		{"Has a Bluesky account", "Quit Twitter and joined Bluesky.", false},
		{"Has Netflix for films", "Quit Sky and kept Netflix.", false},
		{"I drive a blue Ford Focus.", "I sold the Focus and now drive a Yaris.", true},
		{"Uses WhatsApp for everything", "Stopped using WhatsApp for work.", false},
		{"Car is due for service", "Stopped the car.", false},
		{"Attends St Mary's church on Sundays", "Stopped going to church.", true},
		{"Works at Deloitte", "Quit my job at Deloitte.", true},
		{"Uses Dropbox for photos", "Shut the Dropbox account down.", true},
		{"Home broadband is Virgin Media", "Left Virgin Media for BT.", true},
		{"Has a Netflix account", "Left Netflix for Mum.", false},
		{"Drinks coffee daily", "Quit coffee for Lent.", false},
		{"Mum only uses WhatsApp.", "Deleted WhatsApp.", false},
		{"Tom's phone is on Signal.", "Quit Signal.", false},
		{"Drinks two espressos a day", "Gave up espresso.", true},
		{"Goes to the Tuesday yoga class", "Quit the Tuesday yoga class.", true},
		{"Cycles on a road bike", "Sold my old bike.", false},
		{"Uses Netflix every night", "Quit Netflix next month.", false},
		{"Uses Instagram daily", "Quit Instagram completely until Easter.", false},
		{"Uses Instagram daily", "Quit Instagram completely for Lent.", false},
		{"Uses Instagram daily", "Quit Instagram completely for good.", true},
		{"Drinks coffee every morning", "I don't drink coffee any more until the exams are over.", false},
		{"Has a cold remedy in the cupboard", "Got rid of the cold.", false},
		{"Drinks oat milk lattes", "Gave up dairy milk.", false},
		{"Sings in the Thursday choir", "Quit the Tuesday choir.", false},
		{"Sings in the Tuesday choir", "Quit the Tuesday choir.", true},
		{"THE GYM IS OPEN LATE", "CANCELLED THE GYM.", false},
		{"Has a Netflix account", "The user cancelled their Netflix subscription.", true},
		{"Has a Netflix account", "Tom cancelled their Netflix subscription.", false},
		{"Is on Facebook", "The user is no longer on Facebook.", true},
		{"It's on WhatsApp that we talk", "Deleted WhatsApp.", true},
		{"Goes running every year", "Stopped using Slack last year.", false},
	}
	for _, tt := range tests {
		older, newer := analyze(tt.older), analyze(tt.newer)
		got := GivenUp(older, newer) != 0
		if got != tt.want {
			t.Errorf("GivenUp(%q, %q) = %v, want %v", tt.older, tt.newer, got, tt.want)
		}
		if got && !newer.GivesUp() {
			t.Errorf("GivesUp(%q) = false, yet it gave up a word %q holds", tt.newer, tt.older)
		}
	}
}

// TestHolds: a word held only where a negation denies it, or given up in
// the text itself, is not held.
func TestHolds(t *testing.T) {
	tests := []struct {
		text, word string
		want       bool
	}{
		{"Text me on WhatsApp", "whatsapp", true},
		{"I never use WhatsApp", "whatsapp", false},
		{"No dairy, no meat", "dairy", false},
		{"Quit WhatsApp in May", "whatsapp", false},
		{"Uses Signal, not WhatsApp", "signal", true},
		{"Uses Signal", "whatsapp", false},
	}
	for _, tt := range tests {
		a := analyze(tt.text)
		h := analyze(tt.word).Words[0]
		if got := Holds(a, h); got != tt.want {
			t.Errorf("Holds(%q, %q) = %v, want %v", tt.text, tt.word, got, tt.want)
		}
	}
}
