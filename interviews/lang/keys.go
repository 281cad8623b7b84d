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

// competencyKey is the key of the name of the reports' default
// competency called name, shown on the feedback page of an interview in
// another language; see CompetencyName.
func competencyKey(name string) Key { return Key("competency." + name) }

// CompetencyName is the name of the reports' default competency called
// name ("technical depth") in tag's language, and whether the catalogue
// has one; a design's own competencies are its own words.
func CompetencyName(tag, name string) (string, bool) {
	s, ok := catalogues[Base(tag)][competencyKey(name)]
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

// The candidate's message pages: a link that cannot be used, a server
// that cannot serve the room, the join endpoint's refusals the room page
// shows. Titles end in "_title".
const (
	MsgNotFoundTitle   Key = "msg.not_found_title"
	MsgNotFound        Key = "msg.not_found"
	MsgErrorTitle      Key = "msg.error_title"
	MsgError           Key = "msg.error"
	MsgEndedTitle      Key = "msg.ended_title"
	MsgEnded           Key = "msg.ended"
	MsgLinkGoneTitle   Key = "msg.link_gone_title"
	MsgWithdrawn       Key = "msg.withdrawn"
	MsgExpiredf        Key = "msg.expiredf"
	MsgRoomDownTitle   Key = "msg.room_unavailable_title"
	MsgRoomMissing     Key = "msg.room_missing"
	MsgRoomNoScript    Key = "msg.room_no_script"
	MsgElsewhere       Key = "msg.elsewhere"
	MsgNoConsent       Key = "msg.no_consent"
	MsgConsentChanged  Key = "msg.consent_changed"
	MsgBadJoin         Key = "msg.bad_join"
	MsgNoFeedbackTitle Key = "msg.no_feedback_title"
	MsgNoFeedback      Key = "msg.no_feedback"
	PageSkip           Key = "page.skip"
	PageByViva         Key = "page.by_viva"
)

// The candidate's feedback page.
const (
	FeedbackTitle        Key = "feedback.title"
	FeedbackPending      Key = "feedback.pending"
	FeedbackUnavailable  Key = "feedback.unavailable"
	FeedbackCompetencies Key = "feedback.competencies"
	FeedbackWentWell     Key = "feedback.went_well"
	FeedbackWorkOn       Key = "feedback.work_on"
	FeedbackRevisit      Key = "feedback.revisit"
	FeedbackYouSaid      Key = "feedback.you_said"
	FeedbackGood         Key = "feedback.good"
	FeedbackAdd          Key = "feedback.add"
	FeedbackOf100        Key = "feedback.of_100"
)

// The emails to the candidate: the invitation, the reminder and the
// feedback-ready email.
const (
	MailHellof              Key = "mail.hellof"
	MailPrivate             Key = "mail.private"
	MailInviteSubject       Key = "mail.invite_subject"
	MailInviteSubjectRolef  Key = "mail.invite_subject_rolef"
	MailReminderSubjectf    Key = "mail.reminder_subjectf"
	MailInviteOpeningf      Key = "mail.invite_openingf"
	MailReminderOpeningf    Key = "mail.reminder_openingf"
	MailTheCompany          Key = "mail.the_company"
	MailHowToJoin           Key = "mail.how_to_join"
	MailPlanAboutf          Key = "mail.plan_aboutf"
	MailQuietPlace          Key = "mail.quiet_place"
	MailLinkUntilf          Key = "mail.link_untilf"
	MailFeedbackSubject     Key = "mail.feedback_subject"
	MailFeedbackThanks      Key = "mail.feedback_thanks"
	MailFeedbackThanksRolef Key = "mail.feedback_thanks_rolef"
	MailFeedbackReady       Key = "mail.feedback_ready"
	MailReadHere            Key = "mail.read_here"
)

// Dates as each language writes them: DateDay is a day ("27 November
// 2026"), DateLong a day with its weekday and a UTC time, from the
// placeholders {weekday}, {day}, {month}, {year} and {time}; see Date and
// DateTime. The names of months and weekdays are keys too (monthKey,
// weekdayKey).
const (
	DateDay  Key = "date.day"
	DateLong Key = "date.long"
)

// The room page's script's error texts (web/frontend).
const (
	JSUnreachable    Key = "js.server_unreachable"
	JSServerAnswered Key = "js.server_answered"
	JSMicDenied      Key = "js.mic_denied"
	JSMicMissing     Key = "js.mic_missing"
	JSMicBusy        Key = "js.mic_busy"
	JSMicInsecure    Key = "js.mic_insecure"
	JSMicOther       Key = "js.mic_other"
	JSCouldNotJoin   Key = "js.could_not_join"
	JSMicStopped     Key = "js.mic_stopped"
	JSNotSent        Key = "js.not_sent"
	JSOtherTab       Key = "js.other_tab"
	JSNoReconnect    Key = "js.no_reconnect"
	JSMicSwitch      Key = "js.mic_switch_failed"
	JSMicSwitchRetry Key = "js.mic_switch_retry"
	JSNoSound        Key = "js.no_sound"
	JSPlayingTone    Key = "js.playing_tone"
	JSHeardTone      Key = "js.heard_tone"
	JSToneFailed     Key = "js.tone_failed"
)

// More of the room page's script's texts (web/frontend).
const (
	JSLinkUnusable Key = "js.link_unusable"
	JSSpeakCheck   Key = "js.speak_check"
	JSNoTime       Key = "js.no_time"
	JSUnderMinute  Key = "js.under_minute"
	JSMinutesLeft  Key = "js.minutes_left"
	JSSkipped      Key = "js.skipped"
	JSMicrophoneN  Key = "js.microphone_n"
	JSSpeakerN     Key = "js.speaker_n"
	// JSStepDone and JSStepNow are read out after a stage's title.
	JSStepDone Key = "js.step_done"
	JSStepNow  Key = "js.step_now"
	// JSInterrupted marks a caption the candidate cut off.
	JSInterrupted Key = "js.interrupted"
)
