package lang

// Key names one text of a catalogue. Keys ending in "f" take fmt
// arguments (Textf); "room." keys are the room page's, "js." keys its
// script's (Prefixed hands those to the page).
type Key string

// The interviewer's fixed sentences.
const (
	// Filler is said while the model is slow to answer.
	Filler Key = "filler"
	// BudgetSpent is said when the interview's model calls are spent; the
	// interview ends.
	BudgetSpent Key = "budget_spent"
	// CheckIn is said after the candidate's first long silence.
	CheckIn Key = "check_in"
	// OfferStop is said after the second.
	OfferStop Key = "offer_stop"
	// Unresponsive is said after the third, and the interview ends.
	Unresponsive Key = "unresponsive"
	// WelcomeBack greets a candidate who came back; WelcomeBackNamef the
	// same with their first name.
	WelcomeBack      Key = "welcome_back"
	WelcomeBackNamef Key = "welcome_back_namef"
	// AskingAgainf repeats the question the candidate had not answered.
	AskingAgainf Key = "asking_againf"
	// CarryOn says the interview goes on after a welcome back.
	CarryOn Key = "carry_on"
	// AckFirst, AckNext and AckLast acknowledge entering the first stage,
	// a following stage and the last stage when the design has no
	// sentence of its own in the interview's language.
	AckFirst Key = "ack_first"
	AckNext  Key = "ack_next"
	AckLast  Key = "ack_last"
	// SkipOnef and SkipManyf say which promised stages the interview
	// passes over (%s: their titles, joined with And); SkipRest says it
	// without naming them, when the titles are in another language.
	SkipOnef  Key = "skip_onef"
	SkipManyf Key = "skip_manyf"
	SkipRest  Key = "skip_rest"
	And       Key = "and"
	// ChatSlowDown answers typed messages sent faster than they are read.
	ChatSlowDown Key = "chat_slow_down"
)

// What the candidate is told when the interviewer cannot start.
const (
	RefuseBadLink     Key = "refuse_bad_link"
	RefuseLeaseHeld   Key = "refuse_lease_held"
	RefuseFinished    Key = "refuse_finished"
	RefuseRevoked     Key = "refuse_revoked"
	RefuseUnavailable Key = "refuse_unavailable"
	RefuseKeys        Key = "refuse_keys"
	// RefusePlan: the interview's plan cannot run on its design.
	RefusePlan Key = "refuse_plan"
	// RefuseLanguage: the worker's engines cannot hold the interview in
	// its language.
	RefuseLanguage Key = "refuse_language"
	// RefuseNoDesign: the designs the interview names are not in the
	// library.
	RefuseNoDesign Key = "refuse_no_design"
)

// The candidate's pages.
const (
	RoomTitle         Key = "room.title"
	RoomTitleForf     Key = "room.title_forf"
	RoomHeading       Key = "room.heading"
	RoomHeadingForf   Key = "room.heading_forf"
	RoomSkip          Key = "room.skip"
	RoomReconnecting  Key = "room.reconnecting"
	RoomTryAgain      Key = "room.try_again"
	RoomNoMic         Key = "room.no_mic"
	RoomHellof        Key = "room.hellof"
	RoomIntroWithf    Key = "room.intro_withf"
	RoomTakesAbout    Key = "room.takes_about"
	RoomInPartsf      Key = "room.in_partsf"
	RoomBeforeStart   Key = "room.before_start"
	RoomAgree         Key = "room.agree"
	RoomCheckDevices  Key = "room.check_devices"
	RoomCheckOptional Key = "room.check_optional"
	RoomCheckMic      Key = "room.check_mic"
	RoomTestSound     Key = "room.test_sound"
	RoomMicrophone    Key = "room.microphone"
	RoomDefaultMic    Key = "room.default_mic"
	RoomSpeaker       Key = "room.speaker"
	RoomDefaultSpk    Key = "room.default_speaker"
	RoomLevel         Key = "room.level"
	RoomQuietPlace    Key = "room.quiet_place"
	RoomNoScript      Key = "room.noscript"
	RoomJoin          Key = "room.join"
	RoomInProgress    Key = "room.in_progress"
	RoomStages        Key = "room.stages"
	RoomTimeLeft      Key = "room.time_left"
	RoomAbout         Key = "room.about"
	RoomLeftInIt      Key = "room.left_in_interview"
	RoomYourMic       Key = "room.your_mic"
	RoomMicOff        Key = "room.typing_only"
	RoomMicAndSpeaker Key = "room.mic_and_speaker"
	RoomStartAudio    Key = "room.start_audio"
	RoomCaptions      Key = "room.captions"
	RoomTypeLabel     Key = "room.type_label"
	RoomFeedbackReady Key = "room.feedback_ready"
	RoomReadFeedback  Key = "room.read_feedback"
	RoomFeedbackWaits Key = "room.feedback_waits"
	RoomInterviewer   Key = "room.interviewer"
	MinutesShortf     Key = "room.minutesf"
	MinuteOne         Key = "room.one_minute"
)

// The notice the candidate agrees to before joining, when the operator
// wrote none of their own: ConsentAI, then ConsentTranscript or
// ConsentAudio, then ConsentObserved (the integrity signals noted), then
// ConsentReviewf with the company's name.
const (
	ConsentAI         Key = "consent.ai"
	ConsentTranscript Key = "consent.transcript"
	ConsentAudio      Key = "consent.audio"
	ConsentObserved   Key = "consent.observed"
	ConsentReviewf    Key = "consent.reviewf"
)

// stageKey is the key of the title of the built-in designs' stage
// called name, shown to a candidate whose interview is in another
// language than its design's; see StageTitle.
func stageKey(name string) Key { return Key("stage." + name) }

// StageTitle is the title of the built-in designs' stage called name in
// tag's language, and whether the catalogue has one.
func StageTitle(tag, name string) (string, bool) {
	s, ok := catalogues[Base(tag)][stageKey(name)]
	return s, ok
}

// The room page's script's texts (web/frontend), by the names it uses.
const (
	JSYou           Key = "js.you"
	JSInterviewer   Key = "js.interviewer"
	JSParticipant   Key = "js.participant"
	JSTakeYourTime  Key = "js.take_your_time"
	JSListening     Key = "js.listening"
	JSThinking      Key = "js.thinking"
	JSSpeaking      Key = "js.speaking"
	JSGettingReady  Key = "js.getting_ready"
	JSLeft          Key = "js.left"
	JSConnectingTo  Key = "js.connecting_to"
	JSWaiting       Key = "js.waiting"
	JSStageOf       Key = "js.stage_n_of_count"
	JSStageN        Key = "js.stage_n"
	JSTickAgree     Key = "js.tick_agree"
	JSAskingMic     Key = "js.asking_mic"
	JSConnecting    Key = "js.connecting"
	JSMute          Key = "js.mute"
	JSUnmute        Key = "js.unmute"
	JSLostReconnect Key = "js.lost_reconnecting"
	JSClickToEnd    Key = "js.click_to_end"
	JSTapToEnd      Key = "js.tap_to_end"
	JSClickToLeave  Key = "js.click_to_leave"
	JSTapToLeave    Key = "js.tap_to_leave"
	JSMicBlocked    Key = "js.mic_blocked_join"
	JSEnd           Key = "js.end"
	JSThankYou      Key = "js.thank_you"
	JSThankYouName  Key = "js.thank_you_name"
	JSSaved         Key = "js.saved"
	JSSavedShort    Key = "js.saved_short"
	JSCloseTab      Key = "js.close_tab"
	JSTypeInstead   Key = "js.type_instead"
	JSSend          Key = "js.send"
	JSClosingTitle  Key = "js.closing_title"
)
