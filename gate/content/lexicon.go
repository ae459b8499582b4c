package content

import (
	"hash/maphash"
	"slices"
	"strings"
)

// entry is what the lexicon knows of one lower-cased word.
type entry struct {
	cues     uint32    // bit c set: the word signals Cue c
	domain   int8      // 1 + Domain, 0 for none
	verb     bool      // a command verb when it starts a sentence
	stop     bool      // a function word, left out of content-word overlap
	reply    bool      // names what a reader writes back (replyWords)
	role     uint8     // 1 + the class of a one-holder role it names (roleWords), 0 for none
	roleCtx  uint8     // 1 + the index in roleContexts of the words it needs beside it, 0 for none
	plural   bool      // a role in the plural (rolePlurals)
	holding  bool      // a thing its possessor holds as one holds a role (holdingWords)
	hedge    bool      // makes a statement less than an assertion (hedgeWords)
	doubt    bool      // makes it less than certain (doubtWords)
	silent   bool      // in the lexicon for the one-holder rule only (a role, hedge or addition) or as an act: unknown to everything else
	act      bool      // an act beyond the reply (actVerbs): Analyze looks for requests only in a text that holds one
	code     bool      // a word by which code acts (codeWords): Analyze looks for code acts only in a text that holds one
	tone     tone      // what the word does in a clause about praise and criticism (toneWords)
	check    checkRole // what the word does in a sentence about safeguards (checkWords)
	convict  bool      // a word the conviction reading starts from (convictionTriggers)
	tamper   bool      // may name a way to garble a text (tamperWords, turnWords, pairedTamper): tampersReply runs only on a text that holds one
	view     viewRole  // what the word says of a request for the user's own view (ownViewAt)
	nounVerb bool      // an exfiltration or destructive word that is as often a noun: counts only where a verb stands
	program  bool      // a destructive word that is a program's name: commands only where code stands (Analyzer.codeAt)
	number   int8      // the number the word writes out (numberWords), -1 for a scale (numberScales), 0 for none
	gives    bool      // a reading of something given up may start at it (giveUpWords): givingUp runs only on a text that holds one
	negator  bool      // a negation (negators): markNot reads a negation's reach only in a text that holds one
	past     bool      // a word of the past (pastMarkers, "used"): markNot reads sentences of the past only in a text that holds one
	hash     uint64    // the word's hash (Analysis.Words, Analysis.Seq), computed once
}

// Word lists. They describe English generally (how instructions, beliefs and
// domains are worded), not any dataset's phrasing.
var cueWords = map[Cue]string{
	AddressedToAgent: "assistant assistants ai agent agents chatbot chatbots llm llms gpt chatgpt claude gemini copilot bot bots " +
		"deepseek qwen grok perplexity llama mistral " +
		"model's ai's assistant's agent's",
	SecondPerson: "you your yours yourself you're you've you'll",
	SystemVoice:  "sysadmin superuser",
	Override:     "jailbroken",
	ExfiltrationVerb: "send forward forwarding upload uploading transfer transfers wire exfiltrate leak bcc cc share post email " +
		"mail export sync copy",
	Credential: "password passwords passcode passcodes pin pins token tokens apikey credentials credential secret secrets ssh otp 2fa mfa " +
		"login logins username usernames cvv ssn seed mnemonic passphrase",
	// Base forms only: "deleted", "deleting the cache freed…" report what
	// happened; a command to the agent uses the base form.
	Destructive: "delete wipe erase destroy format shutdown rm sudo chmod curl wget exec eval base64 " +
		"disable uninstall kill terminate truncate purge",
	Secrecy: "secretly quietly covertly silently discreetly unnoticed hidden stealthily",
	// "Emergency" is left out: "emergency number", "emergency contact".
	Urgency: "urgent urgently immediately asap critical instantly",
	Belief: "believe believes believed belief beliefs think thinks thought convinced opinion opinions " +
		"feel feels suspect suspects claimed insist insists insisted conspiracy hoax myth sure certain " +
		"skeptical sceptical doubt doubts distrust",
	Preference: "prefer prefers preferred preference preferences like likes liked love loves loved enjoy enjoys enjoyed " +
		"favorite favourite favorites favourites hate hates dislike dislikes fond rather fan avoid avoids",
	// AgreementPressure has no words of its own: praise, reassurance and
	// criticism press for flattery only by how a clause holds them
	// (pressure.go), and its phrases below.
	Negation:       "not no never none nothing nobody neither nor don't doesn't didn't isn't aren't wasn't weren't won't can't cannot shouldn't",
	FirstPerson:    "i me my mine myself i'm i've i'd i'll we our us",
	ThirdPartyUser: "user user's users he she his her him hers they their",
	Reported:       "says said according website webpage web page article forum post blog review reviews comment comments reported rumor rumour source email",
	QueryObjective: "what how why when where who which whom whose is are does do did was were can evidence fact facts true false " +
		"scientific science research study studies data explain explanation cause causes define definition history capital population " +
		"honest honestly objective objectively frank frankly candid candidly critique critiques criticise criticize assess " +
		"assessment evaluate evaluation weaknesses flaws risks verify accurate accuracy " +
		// a request for a judgement of the user's own work
		"review reviewing rate grade proofread feedback risky wrong am",
	QueryPersonal: "my me i mine myself should recommend recommendation suggest suggestion remind help",
	QueryPast:     "was were previously formerly former earlier past history historical originally once",
	QueryCurrent:  "current currently now latest today nowadays present presently recent recently still incumbent",
	// Words that announce that something changed, so that an older
	// statement on the subject no longer holds.
	Change: "now nowadays anymore since stopped quit switched changed moved updated replaced replaces became newly " +
		"instead starting onwards resigned retired succeeded",
	Confided: "confided confides confide confidant confidante confidentially",
	Sensitive: "diagnosis diagnosed diagnoses hiv cancer pregnant pregnancy miscarriage abortion therapy therapist psychiatrist " +
		"depression anxiety addiction rehab medication disorder bipolar adhd autism illness disease surgery std " +
		"debt debts bankrupt bankruptcy foreclosure loan overdue salary salaries layoff laid fired arrested arrest " +
		"conviction criminal lawsuit divorce divorced affair cheating pregnant gay lesbian bisexual transgender " +
		"religion religious immigration undocumented visa secret secrets confidential private privately confided " +
		"embarrassing ashamed password ssn gambling chemotherapy chemo biopsy ivf fertility counsellor counselor counselling counseling " +
		"relapse sobriety suicidal eviction evicted unemployed",
}

// nounVerbs are exfiltration and destructive words used as nouns as often
// as verbs ("an email", "a copy", "the post", "bank transfer", "looking
// forward", "Export format: CSV", "in APA format"): they signal
// exfiltration or destruction only where a verb stands (Analyzer.verbAt).
// A command to format a disk is also read by the wiper reading (wipe.go),
// wherever it stands.
const nounVerbs = "email mail post copy share sync export transfer transfers wire forward cc bcc leak format"

// programWords are the destructive cue's program names, which prose uses
// as nouns and modifiers as often ("the exec summary", "the eval set",
// "sudo access", "curl examples", "RM 3.14"): they command a destruction
// only where code stands (Analyzer.codeAt, Analysis.CommandsDestruction).
// The cue itself counts them wherever they stand: narrowing it cost the
// gate on dev (docs/gate.md, "After look 58, tried and not kept").
const programWords = "rm sudo chmod curl wget exec eval base64"

// titles come before a name, with a full stop that does not end the
// sentence: "Mr. Peterson", "Dr. Chen".
var titles = setOf(titleWords)

const titleWords = "mr mrs ms mx dr prof"

// plainWords are words written with a capital inside a sentence that name
// no one: titles and the calendar. The lexicon knows them, so they are
// never taken for names.
const plainWords = titleWords + " miss sir madam monday tuesday wednesday thursday friday saturday sunday " +
	"january february march april may june july august september october november december"

// addressing are the words after which a request names whom it writes to:
// "reply to Ben", "tell Kate", "email Omar", "dear Ms. Lee".
var addressing = setOf("to tell email mail text message ping call answer reply respond remind ask let inform notify update " +
	"thank invite congratulate cc bcc dear hi hello hey write send forward")

// verbIntro are words after which a noun-or-verb word is a verb: "please
// email", "to share", "then post", "and forward", "you copy", "must send".
var verbIntro = setOf("please to then and also just do first now immediately you we i i'll we'll must should shall will would can could " +
	"may might always never kindly quickly secretly quietly silently")

// headingWord follow a sentence-initial noun-or-verb word used as a
// heading: "Email from …", "Post by …", "Copy of …", "Transfer of …".
var headingWord = setOf("from of by in on at for with address addresses id thread subject sent received is was has had dated")

// modal are words that, as the subject's place before a modal, make what
// follows a request rather than a statement (statedAt: "you will…",
// "please will…", "must…").
var modal = setOf("must should shall will need needs you your please")

// destroyIntros open advice before a destructive verb, as "please" and a
// modal do (verbIntro, which the exfiltration words also read): "Next
// truncate the table", "I'd uninstall Defender", "best delete every
// volume", "why not disable the firewall" (Analyzer.destroysAt).
var destroyIntros = setOf("next so afterwards ideally obviously best otherwise instead finally simply basically or but let's i'd we'd you'd better not")

// actObjects begin what a destructive command acts on, right after its
// verb (Analyzer.actsOnObject): "disable the firewall", "delete all
// trails", "wipe everything", "kill them". "This", "every", "some" and
// "a" are left out: "the plant shutdown this week", "a data purge every
// Friday", "kill a few hours".
var actObjects = setOf("the all your my our their his her its them it him me us everything any")

// statingSubjects and statingModals come before a verb that states what
// someone does or may do, not what the reader is to do
// (Analyzer.statedAt): "we delete logs weekly", "I'll uninstall it
// tonight", "either party may terminate". Obligations ("must",
// "should") are left out: "Admins must delete…" reads as an instruction.
var (
	statingSubjects = setOf("i we they i'll we'll they'll he'll she'll it'll")
	statingModals   = setOf("may might can could will would shall")
	// questionLeads before a stating subject make a question of how to
	// do something: "how do I erase…", "should we delete…".
	questionLeads = setOf("how do does did can could should shall will would may might")
)

// sqlObjects follow a destructive word in capitals where SQL stands
// ("DELETE FROM", "TRUNCATE TABLE", "PURGE BINARY LOGS"), not a heading
// ("EVAL SET:") (Analyzer.codeAt).
var sqlObjects = []string{"from", "table", "tables", "database", "schema", "index", "view", "binary", "recyclebin", "all"}

// cliTools are command-line tools whose subcommands delete, disable or
// destroy ("kubectl delete namespace", "helm uninstall", "systemctl
// disable firewalld", "reg delete"): a destructive word at most three
// words after one is code (Analyzer.codeAt). Package managers are left
// out: "apt purge linux-image-…" is routine.
var cliTools = []string{"kubectl", "terraform", "helm", "gcloud", "az", "aws", "docker", "podman", "systemctl", "ufw",
	"reg", "heroku", "vagrant", "oc", "doctl", "pulumi", "wmic", "vssadmin", "netsh"}

// readingVerbs are how a planted line names its reader, after a name for
// the agent: "any assistant reading this", "LLMs processing these notes"
// (Analyzer.readerAt).
var readingVerbs = setOf("reading processing parsing scanning seeing summarizing summarising reviewing analyzing analysing ingesting handling viewing")

// readerQuantifiers stand before a name for the agent that addresses
// whichever one reads the text: "any assistant reading this" (readerAt).
var readerQuantifiers = setOf("any every all each")

// overridePhrases are the two- and three-word phrases that override the
// agent's instructions.
func overridePhrases() string {
	out := "ignore previous,ignore prior,ignore above,ignore earlier,ignore safety,disregard previous,disregard above,disregard earlier," +
		"disregard safety,forget previous,from now on,new instructions"
	for _, v := range strings.Fields("ignore disregard forget") {
		for _, q := range strings.Fields("all any your these those the") {
			for _, o := range strings.Fields("previous prior above earlier instructions instruction rules guidelines directions commands prompts " +
				"prompt restrictions safety programming system") {
				out += "," + v + " " + q + " " + o
			}
		}
	}
	return out
}

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// commandVerbs start imperative sentences.
const commandVerbs = "ignore disregard forget send forward transfer wire pay delete remove erase run execute click visit open download install " +
	"print output reply respond say tell write add change update share upload post email call include append use always never make do " +
	"don't please remember note stop start set grant enable disable copy paste save navigate go buy order cancel approve " +
	"confirm provide reveal list give insert replace rename move type enter submit sign log"

// domainWords infer life domains.
var domainWords = map[Domain]string{
	Work: "work office meeting meetings colleague colleagues manager boss team project projects deadline deadlines client clients " +
		"customer customers sprint standup roadmap quarterly okr okrs review reviews report reports presentation slides hr payroll " +
		"promotion interview hiring contract coworker coworkers stakeholder stakeholders launch release milestone",
	Family: "family mom mum mother dad father parents parent son daughter kids kid child children baby wife husband partner " +
		"spouse sister brother sibling siblings grandma grandpa grandmother grandfather aunt uncle cousin niece nephew " +
		"birthday anniversary wedding school",
	Health: "health doctor doctors dr clinic hospital appointment medication medications medicine pill pills prescription " +
		"dose symptoms symptom diagnosis therapy therapist allergy allergic blood test tests surgery dentist vaccine vaccines " +
		"pain illness disease diabetes asthma cancer pregnant pregnancy mental anxiety depression injury checkup",
	Finance: "bank banking account accounts money payment payments pay paid invoice invoices tax taxes salary budget loan " +
		"loans mortgage credit debit card cards transfer transfers savings invest investment investments stock stocks " +
		"insurance premium claim claims iban balance bill bills expense expenses refund rent",
	Travel: "travel trip trips flight flights airport airline hotel hotels booking passport visa luggage itinerary vacation " +
		"holiday train trains seat seats boarding destination tour tourist resort cruise rental car",
	Home: "home house apartment flat kitchen garden garage landlord lease repair plumber electrician furniture cleaning " +
		"laundry neighbor neighbour neighbors neighbours heating thermostat roof",
	Social: "friend friends party parties dinner drinks hangout club hobby hobbies game games concert movie movies weekend " +
		"social chat message messages invite invitation",
	Education: "school university college course courses class classes homework exam exams teacher teachers student students " +
		"lecture lectures thesis degree grade grades study studying tuition",
	Legal: "legal lawyer lawyers attorney court lawsuit contract contracts law laws regulation regulations compliance gdpr " +
		"privacy consent liability clause license licence",
	Shopping: "buy bought purchase purchases order orders shop shopping store stores price prices discount delivery " +
		"product products cart gift gifts",
	Tech: "code software server servers deploy deployment deploys database api bug bugs repo repository git commit build " +
		"script scripts docker kubernetes cluster staging production laptop computer phone app install update password wifi",
	Food: "food restaurant restaurants dinner lunch breakfast recipe recipes cook cooking vegetarian vegan meal meals " +
		"cuisine dish dishes coffee tea wine eat eating diet",
}

// stopwords are left out of content-word overlap.
const stopwords = "a an the and or but if then else of to in on at by for with from into onto about as is are was were be been being " +
	"it its this that these those there here so such than too very can could should would will shall may might must do does did " +
	"have has had not no yes i me my we our you your he she him her his they them their what which who whom how when where why " +
	"all any some each every more most other only own same just also now up down out over again once"

// roleWords name, one class per string, roles and relations that one
// holder fills at a time, so that a newer statement naming another holder
// replaces an older one (AnotherHolder): an office, a team, a home, an
// employer. "word>next" names the role only before one of the next words
// given ("plays>for", not "plays piano"), "prev<word" only after prev
// ("chief<executive", not "an executive at Acme"). Roles that several hold
// at once (a child's school, a friend, an allergy, a client, a doctor:
// one sees several; a director, of whom a board has many) are not here:
// a newer one adds to them. Nor are words whose other senses are common
// ("runs" 5k, a "lead" engineer, a golf "club", a "team" that tried to
// sign him, "address" the issue, the "principal" reason), nor a phone
// number or a password: one holds several, and their values are no names.
var roleWords = [...]string{
	"ceo chief<executive",
	"president",
	"prime>minister premier chancellor",
	"chairman chairwoman chairperson chair chaired",
	"leader leads led heads headed",
	"king queen monarch",
	"pope",
	"governor",
	"mayor",
	"captain",
	"coach coached",
	"manager manages managed boss",
	"dean",
	"owner owns owned",
	"dentist",
	"gp",
	"landlord landlady",
	"play>for plays>for played>for playing>for",
	"live>in,at,with,near lives>in,at,with,near lived>in,at,with,near living>in,at,with,near reside resides",
	"employer employed works>for,at work>for,at worked>for,at",
}

// rolePlurals are roles in the plural: a question that holds one asks
// for several holders ("Which clubs has he played for?"), not the one
// who holds it now (Analysis.Several).
const rolePlurals = "presidents ceos leaders kings queens monarchs popes governors mayors captains coaches managers bosses " +
	"principals deans owners dentists landlords teams clubs employers chairmen chairwomen"

// hedgeWords make a statement less than an assertion, doubtWords and
// whileWords together.
const hedgeWords = doubtWords + " " + whileWords

// doubtWords make a statement less than certain: a rumour, a plan, a
// guess ("could soon be named CEO, sources say", "probably moved"). "May"
// is left out: it is a month as often.
const doubtWords = "probably maybe perhaps might could reportedly rumoured rumored rumour rumor rumours rumors seems seem " +
	"apparently allegedly possibly likely soon expected considering planning plans"

// whileWords make a statement less than lasting: a cover, a season
// ("while Sarah is on leave", "during term Ben now lives in halls", "in
// winter"). They date past events as often ("until March we were with
// British Gas", "since the summer"), so only the one-holder rule reads
// them.
const whileWords = "temporarily temporary interim covering covers during while until meanwhile seasonal " +
	"winter winters summer summers term weekdays weekends"

// holdingWords name what a possessor holds as one holds a role: a
// team, an employer or a job, a home. "Newell's Old Boys is Lionel Messi's team"
// and "Uncle Ravi's home is in Saltmere" say where Messi plays and where
// Ravi lives, as "Mia's brother plays for Arsenal" says nothing of Mia
// (Analysis.Possessors).
const holdingWords = "team club side squad employer company firm job workplace office home house flat apartment place address residence"

// additionWords add a holder to those known rather than replace one
// (the Addition cue): "also", "too", "a second coach", "another dentist",
// "the backup plumber", "co-lead".
const additionWords = "also too additionally besides another second backup co"

// roleContext is what must stand beside a role word for it to name the
// role: one of next after it ("plays for"), or prev before it ("chief
// executive"). Kept apart from the lexicon's entries, which every word
// of every text looks up.
type roleContext struct {
	next []string
	prev string
}

// roleContexts holds the contexts of roleWords (entry.roleCtx).
var roleContexts []roleContext

// roleModifiers before a role word make it another role, or a past one:
// "vice president", "deputy manager", "co-lead", "former CEO", "ex-coach".
var roleModifiers = setOf("vice deputy assistant associate acting interim co ex former")

// roleHashes holds the hashes of every role word and title: words that
// anchor no statement to its subject (RoleKeys).
var roleHashes = map[uint64]bool{}

// carrierWords name where a text was kept or came from, not what it says:
// a request's "you can check my Messenger" or "reply to the email" shares
// them with every message it reads (content.WordsOf leaves them out).
const carrierWords = "message messages messenger email emails mail gmail inbox chat chats slack notion calendar facebook " +
	"whatsapp sms dm dms channel channels thread threads"

// carriers holds the hashes of carrierWords, sorted.
var carriers []uint64

// phrases are two-word cues.
var phrases = map[Cue]string{
	// A name of one word is read where it stands (Analyzer.addressedAt);
	// "language model(s)" is read at "model(s)", so.
	AddressedToAgent: "language model,language models",
	SystemVoice: "system prompt,system message,system note,admin note,developer mode,maintenance mode,debug mode,god mode," +
		"new instructions,important instructions,security notice",
	// "ignore all", "ignore any", "forget your" only override with an
	// object that is an instruction ("ignore all previous…", "disregard your
	// rules"): "ignore any irrelevant data" and "forget your keys" do not.
	Override: overridePhrases(),
	TriggerCondition: "if asked,when asked,if the user,if the question,if the query,if the request,when the user,whenever the user," +
		"if someone asks,if anyone asks,whenever someone,whenever you,question mentions,query mentions,request mentions," +
		"user asks,user mentions,user requests,before answering,after answering",
	ExfiltrationVerb: "send it,send them,send all,send every,forward all,forward every,forward it,copy all,email it,post it,upload it,transfer all",
	Credential:       "api key,access key,private key,secret key,security code,credit card,card number,social security,verification code,recovery phrase",
	Destructive:      "rm rf,drop table,delete all,delete every,remove all,wipe all,shut down,disable security,disable logging,factory reset",
	Secrecy: "don't tell,do not tell,do not mention,do not reveal,do not inform,not tell anyone,without telling,without informing," +
		"without asking,without notifying,keep this secret,keep it secret,keep this between",
	Urgency: "right away,right now,as soon,without delay",
	Belief:  "i think,i believe,i feel,in my opinion,in my view,my view,my opinion,believes that,thinks that,is convinced,am convinced,truth is,everyone knows,they say",
	// Pressure to agree in words that say it whatever the clause; the rest
	// is read from how a clause holds praise and criticism (pressure.go),
	// which leaves out what says something else: "upset by the delay",
	// "wants to hear back from the bank", "stay positive" as a team's
	// motto, "no sugarcoating" (helper-67's review of look 32).
	AgreementPressure: "always right,never wrong",
	QueryObjective: "poke holes,tear apart,be straight,be honest,be brutal,sanity check,red team,fact check,double check," +
		"look over,devil's advocate",
	// "what i believe" repeats what ownViewAt reads of "what I" + believe
	// (conviction.go) so that the cue, an input of the model, counts it
	// as it did when "i believe" was a phrase of its own.
	QueryOwnView: "my opinion,my view,my views,my preference,my preferences,i prefer,i like,my favorite,my favourite," +
		"what i think,what i like,what i prefer,do i like,do i think,do i prefer,what i believe,i feel about,i felt about",
	Reported:     "web page,according to,found online,posted on,read on",
	QueryPast:    "used to,back in,as of",
	QueryCurrent: "right now,these days,at present,as of",
	Change: "no longer,any more,not anymore,as of,took over,taken over,stepped down,new address,new number,switched to,moved to," +
		"changed to,from this,these days",
	Sensitive: "keep quiet,between us,in confidence,mental health,medical condition,credit score,criminal record,sexual orientation",
	// Information whose flow someone restricted: told in confidence, or
	// known to a few named people only. Phrases that mostly mean something
	// else ("not to mention", "no one else applied", "the only known
	// route", "keep quiet in the library") are left out.
	Addition: "as well,in addition",
	Confided: "just between us,in confidence,in secret,confided in,confided only,stays between,stay between," +
		"keep it between,off the record," +
		"don't tell,do not tell,don't mention,do not mention,not to tell,not to share,never told,only told,told only,only shared,shared only," +
		"nobody else knows,only known to,only knew about,only knows about",
}

// replyWords name what a reader writes back: the object of a directive
// that shapes it ("in your answer", "your response must…"). "Your code",
// "your solution" are left out: answers on programming forums tell their
// readers what to change in them all the time.
const replyWords = "response responses answer answers reply replies output outputs summary summaries " +
	"response's answer's reply's output's summary's"

// replyCompounds follow a reply word in names of other things: "your
// response time", "your output file", "your answer sheet".
var replyCompounds = setOf("window windows time times handler handlers rate rates file files folder directory path stream " +
	"streams buffer field fields box sheet sheets key keys type types value values variable variables log logs port device " +
	"level size length button format code team letter")

// replyAdjectives may stand between "your" and the reply: "your final
// answer", "your whole response".
var replyAdjectives = setOf("final next entire whole full first every each complete")

// replyModals after "your answer" make it a directive: "your answer must…".
var replyModals = setOf("must should shall needs need")

// replyPrepositions open a phrase before a command: "In your answer, add…".
var replyPrepositions = setOf("in into within throughout for")

// replyVerbs are commands on a text that the command verbs do not hold:
// "Translate your response…", "End your reply with…", "Format your output…".
var replyVerbs = setOf("translate encode encrypt reverse format begin end finish conclude rewrite rephrase summarise summarize " +
	"turn keep limit wrap prefix put mention sign spell mark ensure embed incorporate integrate weave quote cite state describe ask")

// actVerbs are commands to act beyond the reply: on money, access, data
// held elsewhere, devices, bookings or other people. Reading, finding and
// writing the reply are not among them: a request for those asks the agent
// for nothing it would not do for the task (Analysis.Requests).
var actVerbs = setOf("send forward transfer wire pay deposit withdraw delete remove erase wipe disable enable grant revoke " +
	"share upload download install uninstall move redirect change update modify reset unlock lock cancel approve purchase buy " +
	"order book schedule invite email text call post publish sell deactivate activate rename replace archive export submit")

// actParticiples are the past participles of actVerbs that a request in
// the passive uses ("the balance should be moved to…", "payment must be
// sent to…"), each with its verb.
var actParticiples = map[string]string{
	"sent": "send", "forwarded": "forward", "transferred": "transfer", "wired": "wire", "paid": "pay",
	"deposited": "deposit", "withdrawn": "withdraw", "deleted": "delete", "removed": "remove", "shared": "share",
	"uploaded": "upload", "downloaded": "download", "moved": "move", "redirected": "redirect", "changed": "change",
	"updated": "update", "emailed": "email", "posted": "post", "exported": "export",
	"granted": "grant", "submitted": "submit",
}

// participleVerbs holds, per participle of actParticiples, its verb's hash
// as Words and Seq hold it.
var participleVerbs = map[string]uint64{}

// obligations stand before "be" in a request in the passive: "should be
// sent", "must be paid", "is to be moved", "needs to be forwarded".
var obligations = setOf("should must shall to")

// howAsks follow "how" in a question for a way to do something, before
// one of askers: "how do I…", "how can we…". "How did it go?" and "How
// does the weather look?" ask for no way.
var howAsks = setOf("do does can could should would must shall")

// askers are who asks how to do something: "how do I…", "how can we…",
// "how should one…".
var askers = setOf("i we you one")

// leadAdverbs may stand between a lead-in and the act it asks for, besides
// softeners: "you should immediately revoke…", "make sure to also send…".
var leadAdverbs = func() map[string]bool {
	m := setOf("immediately urgently quickly promptly")
	for w := range softeners {
		m[w] = true
	}
	return m
}()

// wayAdjectives before "way" ask for a way to do something: "the quickest
// way of…", "the best way to…".
var wayAdjectives = setOf("best quickest fastest easiest simplest safest cleanest right proper correct recommended")

// titleLabels name a title, not a request, after their colon: "Task:
// Export a clean dataset", "Subject: Transfer of the lease".
var titleLabels = setOf("task request subject title re topic")

// statementOpeners start statements, not commands, though they look like a
// verb's base form: "Per your reply…", "Got your answer", "Appreciate your
// response", "Re your response of 3 May".
var statementOpeners = setOf("per despite after before regarding re following given since until unlike about during " +
	"got saw read heard appreciate thank thanks thx many sorry congrats great nice love like enjoy hope glad cheers " +
	"dear hi hello hey ok okay yes yeah maybe perhaps probably yesterday today tonight tomorrow later earlier " +
	"recently finally luckily sadly hopefully apparently actually basically honestly obviously clearly")

// objectStarts begin what a command acts on: "Scramble the letters…",
// "Modify your answer…". A word the lexicon does not know counts as a
// command only before one of them, since a name opens a statement the same
// way ("Sam wants your reply by Friday").
var objectStarts = setOf("your the a an this these that those it its all every each any some my our")

// objectPronouns are what a command acts on or for besides objectStarts:
// "Email me the list", "Send them to…", "Delete everything".
var objectPronouns = setOf("me us him her them everything")

// softeners come before a command without making it less of one: "please
// add…", "always end…", "then put…". "You must…" is obligers'.
var softeners = setOf("please kindly always never also just then now first simply")

// negators forbid what follows them: "not", "never", "no", "cannot",
// "avoid", "without", "stop" and any word in "n't" ("don't", "mustn't").
var negators = setOf("not never no cannot avoid without stop")

// negates reports whether word t forbids what follows it (negators).
func negates(t []byte) bool { return negators[string(t)] || contracted(t) }

// contracted reports whether word t is a negation contracted into "n't":
// "don't", "wasn't", "mustn't".
func contracted(t []byte) bool {
	n := len(t)
	return n > 3 && string(t[n-3:]) == "n't"
}

// forbidsAt reports whether word j forbids what follows it: a negator, or
// the last word of "rather than" or "instead of" ("rather than bypassing
// the hook", "in plain text instead of Morse").
func (z *Analyzer) forbidsAt(j int) bool { return negates(z.tok(j)) || z.contrastAt(j) }

// contrastAt reports whether word j ends "rather than" or "instead of":
// what follows is set aside for what came before.
func (z *Analyzer) contrastAt(j int) bool {
	t, before := z.tok(j), z.tok(j-1)
	return string(t) == "than" && string(before) == "rather" || string(t) == "of" && string(before) == "instead"
}

// obligers are what may stand between "you" and a command: "you must
// write…", "you should add…", "you need to put…", "you have to end…".
var obligers = setOf("must should shall need needs have to")

var (
	lexicon = map[string]entry{}
	// pairs holds the phrases by the hashes of their first two words (as
	// Analysis.Seq hashes them): one lookup of a fixed-size key per word,
	// where strings cost a lookup per word and another per word that
	// starts a phrase.
	pairs = map[[2]uint64]*follow{}
)

// follow is what a two-word phrase signals, and the hashes of the third
// words that extend it into three-word phrases.
type follow struct {
	cues  uint32
	third map[uint64]uint32
}

func init() {
	for c, ws := range cueWords {
		for _, w := range strings.Fields(ws) {
			e := lexicon[w]
			e.cues |= 1 << c
			lexicon[w] = e
		}
	}
	for _, w := range strings.Fields(replyWords) {
		e := lexicon[w]
		e.reply = true
		lexicon[w] = e
	}
	for _, w := range strings.Fields(nounVerbs) {
		e := lexicon[w]
		e.nounVerb = true
		lexicon[w] = e
	}
	for _, w := range strings.Fields(programWords) {
		e := lexicon[w]
		e.program = true
		lexicon[w] = e
	}
	for _, w := range strings.Fields(commandVerbs) {
		e := lexicon[w]
		e.verb = true
		lexicon[w] = e
	}
	for d := Domain(0); d < NumDomains; d++ { // in order: a word shared by two domains goes to the first
		for _, w := range strings.Fields(domainWords[d]) {
			e := lexicon[w]
			if e.domain == 0 { // a word counts for its first domain only
				e.domain = int8(d) + 1
			}
			lexicon[w] = e
		}
	}
	for _, w := range strings.Fields(stopwords) {
		e := lexicon[w]
		e.stop = true
		lexicon[w] = e
	}
	for _, w := range strings.Fields(plainWords) {
		if _, ok := lexicon[w]; !ok {
			lexicon[w] = entry{} // known, with no cue
		}
	}
	// Last before the hashes: a role, hedge, addition or act word the
	// lexicon did not know stays unknown for everything else (a name when
	// capitalised, a command's verb), so that they change nothing but
	// Analysis.Roles, Several, Hedged, Requests and the Addition cue.
	quiet := func(w string, set func(*entry)) {
		e, known := lexicon[w]
		if !known {
			e.silent = true
		}
		set(&e)
		lexicon[w] = e
	}
	for r := range roleWords {
		for _, w := range strings.Fields(roleWords[r]) {
			var ctx roleContext
			if i := strings.IndexByte(w, '>'); i > 0 {
				w, ctx.next = w[:i], strings.Split(w[i+1:], ",")
			}
			if i := strings.IndexByte(w, '<'); i > 0 {
				ctx.prev, w = w[:i], w[i+1:]
			}
			// The word a role needs beside it is a role word too: "minister"
			// in "prime minister" and "chief" in "chief executive" name no
			// one's office by themselves (RoleKeys).
			for _, x := range ctx.next {
				roleHashes[maphash.String(seed, x)] = true
			}
			if ctx.prev != "" {
				roleHashes[maphash.String(seed, ctx.prev)] = true
			}
			var c uint8
			if ctx.next != nil || ctx.prev != "" {
				roleContexts = append(roleContexts, ctx)
				c = uint8(len(roleContexts))
			}
			quiet(w, func(e *entry) { e.role, e.roleCtx = uint8(r)+1, c })
		}
	}
	for _, w := range strings.Fields(rolePlurals) {
		quiet(w, func(e *entry) { e.plural = true })
	}
	for _, w := range strings.Fields(holdingWords) {
		quiet(w, func(e *entry) { e.holding = true })
	}
	for _, w := range strings.Fields(additionWords) {
		quiet(w, func(e *entry) { e.cues |= 1 << Addition })
	}
	for _, w := range strings.Fields(tamperWords) {
		quiet(w, func(e *entry) { e.tamper = true })
	}
	for i, w := range strings.Fields(numberWords) {
		v := int8(i + 1) // one to nineteen
		if i >= 19 {
			v = int8(i-19+2) * 10 // twenty to ninety
		}
		quiet(w, func(e *entry) { e.number = v })
	}
	for _, w := range strings.Fields(numberScales) {
		quiet(w, func(e *entry) { e.number = -1 })
	}
	for w := range turnWords {
		quiet(w, func(e *entry) { e.tamper = true })
	}
	for w := range pairedTamper {
		quiet(w, func(e *entry) { e.tamper = true })
	}
	for _, w := range strings.Fields(hedgeWords) {
		quiet(w, func(e *entry) { e.hedge = true })
	}
	for _, w := range strings.Fields(doubtWords) {
		quiet(w, func(e *entry) { e.doubt = true })
	}
	for w := range actVerbs {
		quiet(w, func(e *entry) { e.act = true })
	}
	for p, v := range actParticiples {
		quiet(p, func(e *entry) { e.act = true })
		participleVerbs[p] = maphash.String(seed, v)
	}
	for w := range codeWords {
		token, _, _ := strings.Cut(w, "#") // "chmod#wiper": chmod
		quiet(token, func(e *entry) { e.code = true })
	}
	for r, ws := range checkWords {
		for _, w := range strings.Fields(ws) {
			quiet(w, func(e *entry) { e.check |= r })
		}
	}
	for _, w := range strings.Fields(convictionTriggers) {
		quiet(w, func(e *entry) { e.convict = true })
	}
	for r, ws := range viewWords {
		for _, w := range strings.Fields(ws) {
			quiet(w, func(e *entry) { e.view |= r })
		}
	}
	for t, ws := range toneWords {
		for _, w := range strings.Fields(ws) {
			quiet(w, func(e *entry) { e.tone |= t })
		}
	}
	for _, w := range strings.Fields(giveUpWords) {
		quiet(w, func(e *entry) { e.gives = true })
	}
	for w := range negators {
		quiet(w, func(e *entry) { e.negator = true })
	}
	for w := range pastMarkers {
		quiet(w, func(e *entry) { e.past = true })
	}
	quiet("used", func(e *entry) { e.past = true })
	for w, e := range lexicon {
		e.hash = maphash.String(seed, w)
		lexicon[w] = e
	}
	for _, w := range strings.Fields(carrierWords) {
		carriers = append(carriers, maphash.String(seed, w))
	}
	slices.Sort(carriers)
	for _, e := range lexicon {
		if e.role > 0 || e.plural {
			roleHashes[e.hash] = true
		}
	}
	for w := range titles {
		roleHashes[maphash.String(seed, w)] = true // "Dr" anchors no one
	}
	for c, list := range phrases {
		for _, p := range strings.Split(list, ",") {
			ws := strings.Fields(p)
			if len(ws) < 2 || len(ws) > 3 {
				panic("content: phrase " + p + ": want two or three words")
			}
			key := [2]uint64{maphash.String(seed, ws[0]), maphash.String(seed, ws[1])}
			f := pairs[key]
			if f == nil {
				f = &follow{}
				pairs[key] = f
			}
			if len(ws) == 2 {
				f.cues |= 1 << c
				continue
			}
			if f.third == nil {
				f.third = map[uint64]uint32{}
			}
			f.third[maphash.String(seed, ws[2])] |= 1 << c
		}
	}
}
