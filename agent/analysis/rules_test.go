package analysis

import (
	"slices"
	"strings"
	"testing"

	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/stages"
)

// question builds a question with targets.
func question(text string, t stages.Targets) stages.Question {
	return stages.Question{ID: "q1", Text: text, Context: stages.QuestionContext{Kind: stages.KindGap, Targets: t}}
}

func skillQ(text, skill, attr string) stages.Question {
	return question(text, stages.Targets{Skill: skill, Attribute: attr})
}

var defaultRubric = []stages.RubricField{
	{ID: "current_role", Label: "Current role", Required: true, Expect: stages.ExpectRole, Keywords: []string{"role", "title", "position"}},
	{ID: "years_experience", Label: "Years of experience", Required: true, Expect: stages.ExpectDuration, Keywords: []string{"experience", "career"}},
	{ID: "impact", Label: "Impact in numbers", Required: true, Expect: stages.ExpectNumber, Keywords: []string{"impact", "saved", "reduced", "increased"}},
}

// whyRubric is the Default blueprint's rubric.
var whyRubric = stages.Default().Rubric

func TestRulesAnswer(t *testing.T) {
	tests := []struct {
		name       string
		in         AnswerInput
		confidence interviews.Confidence // "" = not checked
		declined   bool
		fills      []Fill // Evidence not compared
		facts      []string
		discovered []string // About substrings, in order
		priorities []stages.Priority
		skills     []string
		noFollowUp bool
		// followUpLacks is a word the follow-up must not be about.
		followUpLacks string
		// absent are the skills said to be lacking; repeat marks a
		// request to repeat the question; noFacts an answer nothing may
		// be quoted from.
		absent  []string
		repeat  bool
		noFacts bool
	}{
		{
			name:       "seed: 3 years fills the question's skill",
			in:         AnswerInput{Question: skillQ("How long have you worked with Python?", "Python", "duration"), Answer: "3 years"},
			confidence: interviews.ConfidenceHigh,
			fills:      []Fill{{Skill: "Python", Attribute: "duration", Value: "3 years"}},
			noFollowUp: true,
		},
		{
			name:  "seed: 3 years without targets fills no skill",
			in:    AnswerInput{Question: question("Tell me about yourself.", stages.Targets{}), Answer: "3 years"},
			fills: nil, confidence: interviews.ConfidenceLow,
		},
		{
			name:  "duration in words",
			in:    AnswerInput{Question: skillQ("How long have you used Go?", "Go", "duration"), Answer: "About three years now, mostly backend services."},
			fills: []Fill{{Skill: "Go", Attribute: "duration", Value: "About three years"}},
		},
		{
			name:  "duration since a year",
			in:    AnswerInput{Question: skillQ("How long have you used Kafka?", "Kafka", "duration"), Answer: "We've run it since 2019."},
			fills: []Fill{{Skill: "Kafka", Attribute: "duration", Value: "since 2019"}},
		},
		{
			name:  "duration a couple of years",
			in:    AnswerInput{Question: skillQ("And Rust?", "Rust", "duration"), Answer: "A couple of years, on and off."},
			fills: []Fill{{Skill: "Rust", Attribute: "duration", Value: "A couple of years"}},
		},
		{
			name:  "duration six months",
			in:    AnswerInput{Question: skillQ("How long with React?", "React", "duration"), Answer: "Only six months so far."},
			fills: []Fill{{Skill: "React", Attribute: "duration", Value: "six months"}},
		},
		{
			name:  "duration about a decade",
			in:    AnswerInput{Question: skillQ("How long with Java?", "Java", "duration"), Answer: "Oh, about a decade."},
			fills: []Fill{{Skill: "Java", Attribute: "duration", Value: "about a decade"}},
		},
		{
			name:  "scale users in words",
			in:    AnswerInput{Question: skillQ("How big was the PostgreSQL setup?", "PostgreSQL", "scale"), Answer: "It served two hundred thousand users a day."},
			fills: []Fill{{Skill: "PostgreSQL", Attribute: "scale", Value: "two hundred thousand users a day"}},
		},
		{
			name:  "scale requests per second",
			in:    AnswerInput{Question: skillQ("What load did the Go service take?", "Go", "scale"), Answer: "Peak was around 1.5k requests per second."},
			fills: []Fill{{Skill: "Go", Attribute: "scale", Value: "around 1.5k requests per second"}},
		},
		{
			name:  "scale team size",
			in:    AnswerInput{Question: skillQ("How big was the team?", "Kubernetes", "scale"), Answer: "I led a team of six engineers."},
			fills: []Fill{{Skill: "Kubernetes", Attribute: "scale", Value: "team of six engineers"}},
			facts: []string{"Led a team of six engineers."},
		},
		{
			name:   "scale money",
			in:     AnswerInput{Question: skillQ("What was at stake?", "AWS", "scale"), Answer: "The AWS bill was $2 million a year."},
			fills:  []Fill{{Skill: "AWS", Attribute: "scale", Value: "$2 million"}},
			skills: []string{"AWS"},
		},
		{
			name:  "scale percent in words",
			in:    AnswerInput{Question: skillQ("How much did Redis help?", "Redis", "scale"), Answer: "Cut latency by forty percent."},
			fills: []Fill{{Skill: "Redis", Attribute: "scale", Value: "forty percent"}},
		},
		{
			name:  "scale a dozen services",
			in:    AnswerInput{Question: skillQ("How many services?", "Docker", "scale"), Answer: "A dozen services, all containerised."},
			fills: []Fill{{Skill: "Docker", Attribute: "scale", Value: "A dozen services"}},
		},
		{
			name:       "autonomy own decision",
			in:         AnswerInput{Question: skillQ("Who chose the design?", "Terraform", "autonomy"), Answer: "I decided to split the modules per environment."},
			fills:      []Fill{{Skill: "Terraform", Attribute: "autonomy", Value: "independent: I decided to split the modules per environment"}},
			discovered: []string{"the decision to split the modules per environment"},
			priorities: []stages.Priority{stages.P0},
		},
		{
			name:  "autonomy lead decided",
			in:    AnswerInput{Question: skillQ("Who chose the design?", "Terraform", "autonomy"), Answer: "My lead decided on the layout and I implemented it."},
			fills: []Fill{{Skill: "Terraform", Attribute: "autonomy", Value: "directed: My lead decided on the layout and I implemented it"}},
		},
		{
			name:  "constraints",
			in:    AnswerInput{Question: skillQ("What constraints did you work under?", "Java", "constraints"), Answer: "A hard deadline and a legacy mainframe, plus PCI compliance."},
			fills: []Fill{{Skill: "Java", Attribute: "constraints", Value: "deadline, legacy, compliance, pci"}},
		},
		{
			name:  "production",
			in:    AnswerInput{Question: skillQ("Was that in production?", "Django", "production_vs_prototype"), Answer: "Yes, it ran in production for paying customers."},
			fills: []Fill{{Skill: "Django", Attribute: "production_vs_prototype", Value: "production"}},
		},
		{
			name:  "prototype",
			in:    AnswerInput{Question: skillQ("Was that in production?", "Flutter", "production_vs_prototype"), Answer: "No, it was a proof of concept for a hackathon."},
			fills: []Fill{{Skill: "Flutter", Attribute: "production_vs_prototype", Value: "prototype"}},
		},
		{
			name: "depth gist",
			in: AnswerInput{Question: skillQ("How deep did you go with PostgreSQL?", "PostgreSQL", "depth"),
				Answer: "I tuned the query planner, rewrote our worst reports to use partial indexes, and cut p99 from 800ms to 90ms."},
			fills: []Fill{{Skill: "PostgreSQL", Attribute: "depth", Value: "I tuned the query planner, rewrote our worst reports to use partial indexes, and…"}},
		},
		{
			name:       "depth too thin fills nothing",
			in:         AnswerInput{Question: skillQ("How deep did you go with PostgreSQL?", "PostgreSQL", "depth"), Answer: "Pretty deep."},
			confidence: interviews.ConfidenceLow,
		},
		{
			name:       "decline i don't know",
			in:         AnswerInput{Question: skillQ("How long have you used Scala?", "Scala", "duration"), Answer: "I don't know, honestly."},
			confidence: interviews.ConfidenceLow, declined: true,
		},
		{
			name:       "decline rather not say",
			in:         AnswerInput{Question: question("What is your current salary?", stages.Targets{}), Answer: "I'd rather not say."},
			confidence: interviews.ConfidenceLow, declined: true,
		},
		{
			name:       "decline pass",
			in:         AnswerInput{Question: question("Any side projects?", stages.Targets{}), Answer: "Pass."},
			confidence: interviews.ConfidenceLow, declined: true,
		},
		{
			name:       "decline can't remember",
			in:         AnswerInput{Question: question("How many users?", stages.Targets{}), Answer: "Can't remember, sorry."},
			confidence: interviews.ConfidenceLow, declined: true,
		},
		{
			name:  "hedged answer still fills",
			in:    AnswerInput{Question: skillQ("How long with Go?", "Go", "duration"), Answer: "Not sure exactly, maybe five years."},
			fills: []Fill{{Skill: "Go", Attribute: "duration", Value: "maybe five years"}},
		},
		{
			name: "rubric field by target",
			in: AnswerInput{Question: question("What is your current role?", stages.Targets{Field: "current_role"}), Rubric: defaultRubric,
				Answer: "I'm a senior backend engineer at Acme Corp."},
			confidence: interviews.ConfidenceHigh,
			fills:      []Fill{{Field: "current_role", Value: "senior backend engineer at Acme Corp"}},
			facts:      []string{"Is a senior backend engineer at Acme Corp."},
		},
		{
			name: "rubric field unasked",
			in: AnswerInput{Question: question("Tell me about a project you are proud of.", stages.Targets{}), Rubric: defaultRubric,
				Answer: "The cache layer I built reduced our database load by sixty percent."},
			fills: []Fill{{Field: "impact", Value: "sixty percent"}},
		},
		{
			name: "rubric keyword without a value fills nothing",
			in: AnswerInput{Question: question("Tell me about your career.", stages.Targets{}), Rubric: defaultRubric,
				Answer: "My career has been mostly in startups, which I loved."},
			fills: nil,
		},
		{
			name: "discovered person",
			in: AnswerInput{Question: question("Who did you work with?", stages.Targets{}),
				Answer: "My manager Priya set the direction and I worked closely with Tom from finance on the numbers."},
			discovered: []string{"Priya (manager)", "Tom (finance)"},
			priorities: []stages.Priority{stages.P1, stages.P1},
		},
		{
			name: "discovered person named first",
			in: AnswerInput{Question: question("Who reviewed it?", stages.Targets{}),
				Answer: "Marco, our tech lead, reviewed every schema change."},
			discovered: []string{"Marco (tech lead)"},
			priorities: []stages.Priority{stages.P1},
		},
		{
			name: "known person is not discovered",
			in: AnswerInput{Question: question("What did Priya do?", stages.Targets{}),
				Answer: "My manager Priya set the direction for the whole migration."},
		},
		{
			name: "scale half a million in words",
			in: AnswerInput{Question: skillQ("How many customers did Shopify serve there?", "Ruby", "scale"),
				Answer: "Roughly half a million merchants at peak."},
			fills: []Fill{{Skill: "Ruby", Attribute: "scale", Value: "Roughly half a million merchants"}},
		},
		{
			name: "rubric number by target",
			in: AnswerInput{Question: question("What impact did it have?", stages.Targets{Field: "impact"}), Rubric: defaultRubric,
				Answer: "We saved about $300k a year in hosting."},
			confidence: interviews.ConfidenceHigh,
			fills:      []Fill{{Field: "impact", Value: "about $300k"}},
		},
		{
			name: "years of experience unasked",
			in: AnswerInput{Question: question("Tell me about yourself.", stages.Targets{}), Rubric: defaultRubric,
				Answer: "I have eight years of experience, mostly in fintech."},
			fills: []Fill{{Field: "years_experience", Value: "eight years"}},
		},
		{
			name: "hedged number is not a decline",
			in: AnswerInput{Question: question("How big was the org?", stages.Targets{}),
				Answer: "Honestly I'm not sure, but around 40 people."},
			facts: []string{"Around 40 people."},
		},
		{
			name: "discovered person with any role",
			in: AnswerInput{Question: question("Anything else?", stages.Targets{}),
				Answer: "The job runs at 2am. Ask Dana, our finance lead, before touching it."},
			discovered: []string{"Dana (finance lead)"},
			priorities: []stages.Priority{stages.P1},
		},
		{
			name: "discovered named system",
			in: AnswerInput{Question: question("What did you own?", stages.Targets{}),
				Answer: "I owned our billing service Ledger end to end."},
			discovered: []string{"Ledger (billing service)"},
			priorities: []stages.Priority{stages.P1},
		},
		{
			name: "discovered move",
			in: AnswerInput{Question: question("How did the architecture change?", stages.Targets{}),
				Answer: "Last year we moved to Kafka for all the event traffic."},
			discovered: []string{"the move to Kafka"},
			priorities: []stages.Priority{stages.P1},
			skills:     []string{"Kafka"},
		},
		{
			name: "known system is not discovered",
			in: AnswerInput{Question: question("How did the architecture change?", stages.Targets{}), Skills: []string{"Kafka"},
				Answer: "Last year we moved to Kafka for all the event traffic."},
			skills: []string{"Kafka"},
		},
		{
			name: "discovered decision",
			in: AnswerInput{Question: question("What was hard?", stages.Targets{}),
				Answer: "We decided to rewrite the sync engine from scratch because the old one lost data."},
			discovered: []string{"the decision to rewrite the sync engine from scratch"},
			priorities: []stages.Priority{stages.P0},
		},
		{
			name: "a decision that says when asks what was decided",
			in: AnswerInput{Question: question("How was the retry schedule chosen?", stages.Targets{}),
				Answer: "We retry at 2am because the batch window closes at 5am; we decided that after the March outage."},
			discovered: []string{"the decision that after the March outage"},
			priorities: []stages.Priority{stages.P0},
		},
		{
			name:          "a month is not a topic",
			in:            AnswerInput{Question: question("What happened then?", stages.Targets{}), Answer: "It was hard in March, things broke."},
			followUpLacks: "March",
		},
		{
			name: "discovered choice over",
			in: AnswerInput{Question: question("Which database?", stages.Targets{}),
				Answer: "We chose PostgreSQL over MongoDB for the transactions."},
			discovered: []string{"choosing PostgreSQL over MongoDB"},
			priorities: []stages.Priority{stages.P0},
			skills:     []string{"PostgreSQL", "MongoDB"},
		},
		{
			name: "strong answer is high",
			in: AnswerInput{Question: question("Tell me about a hard problem you solved.", stages.Targets{}), Keywords: []string{"problem", "solution", "result"},
				Answer: "Our checkout failed for 3% of users. I traced the problem to a race in the Redis lock, wrote a fix with fencing tokens, " +
					"and the result was zero failures over the next two months."},
			confidence: interviews.ConfidenceHigh, noFollowUp: true,
			skills: []string{"Redis"},
		},
		{
			name:       "vague answer is low with a follow-up",
			in:         AnswerInput{Question: question("Tell me about a project you led.", stages.Targets{}), Answer: "It went fine, it was good."},
			confidence: interviews.ConfidenceLow,
		},
		{
			name: "facts in third person",
			in: AnswerInput{Question: question("Tell me about yourself.", stages.Targets{}),
				Answer: "Well, I work at Stripe on the payments team. I've used Go for five years. My team owns the ledger."},
			facts:  []string{"Works at Stripe on the payments team.", "Has used Go for five years.", "Their team owns the ledger."},
			skills: []string{"Go"},
		},
		{
			name: "modal verbs keep their form",
			in: AnswerInput{Question: question("Can you hear me?", stages.Targets{}),
				Answer: "I can hear you clearly and I will be ready in a minute. I could walk you through our deployment pipeline."},
			facts: []string{"Can hear you clearly and they will be ready in a minute.", "Could walk you through our deployment pipeline."},
		},
		{
			name:   "go to is not Go",
			in:     AnswerInput{Question: question("What next?", stages.Targets{}), Answer: "I'd go to the team and ask. Go ahead with the plan."},
			skills: nil,
		},
		// Motivation: the rubric's why_role from the answer to its
		// question, in the common phrasings, evidence quoted from it.
		{
			name: "why_role: because I am excited",
			in: AnswerInput{Question: question("What made you interested in applying for this position?", stages.Targets{Field: stages.FieldWhyRole}), Rubric: whyRubric,
				Answer: "Because I am excited about the payments domain."},
			confidence: interviews.ConfidenceHigh,
			fills:      []Fill{{Field: stages.FieldWhyRole, Value: "Because I am excited about the payments domain"}},
		},
		{
			name: "why_role: what draws me",
			in: AnswerInput{Question: question("What draws you to this role in particular?", stages.Targets{Field: stages.FieldWhyRole}), Rubric: whyRubric,
				Answer: "Well, what draws me is the chance to mentor people and work on exactly-once delivery."},
			confidence: interviews.ConfidenceHigh,
			fills:      []Fill{{Field: stages.FieldWhyRole, Value: "What draws me is the chance to mentor people and work on exactly-once delivery"}},
		},
		{
			name: "why_role: I'd like to, lower case from the offline recogniser",
			in: AnswerInput{Question: question("Why this role?", stages.Targets{Field: stages.FieldWhyRole}), Rubric: whyRubric,
				Answer: "i'd like to work on payments at scale"},
			confidence: interviews.ConfidenceHigh,
			fills:      []Fill{{Field: stages.FieldWhyRole, Value: "I'd like to work on payments at scale"}},
		},
		{
			name: "why_role: I want to",
			in: AnswerInput{Question: question("What made you apply?", stages.Targets{Field: stages.FieldWhyRole}), Rubric: whyRubric,
				Answer: "Honestly? I want to grow into a staff engineer."},
			fills: []Fill{{Field: stages.FieldWhyRole, Value: "I want to grow into a staff engineer"}},
		},
		{
			name: "why_role: I love",
			in: AnswerInput{Question: question("Why us?", stages.Targets{Field: stages.FieldWhyRole}), Rubric: whyRubric,
				Answer: "I love building things people use every day."},
			fills: []Fill{{Field: stages.FieldWhyRole, Value: "I love building things people use every day"}},
		},
		{
			name: "why_role is not filled from an unrelated answer with a because",
			in: AnswerInput{Question: question("Tell me about a hard problem you solved.", stages.Targets{}), Rubric: whyRubric,
				Answer: "We moved the ledger to Kafka because the old queue lost messages, and I was excited when duplicates dropped to zero."},
			skills: []string{"Kafka"}, discovered: []string{"the move to Kafka"}, priorities: []stages.Priority{stages.P1},
		},
		{
			name: "why_role unasked from a sentence about the role itself",
			in: AnswerInput{Question: question("Tell me about yourself.", stages.Targets{}), Rubric: whyRubric,
				Answer: "I build payment systems at Acme. I applied because this team works on the problems I care about most."},
			fills: []Fill{{Field: stages.FieldWhyRole, Value: "I applied because this team works on the problems I care about most"}},
		},
		{
			name: "a free field unasked needs a sentence about it",
			in: AnswerInput{Question: question("What do you do today?", stages.Targets{}), Rubric: whyRubric,
				Answer: "I built the billing service and led the team that shipped the new checkout in 2023."},
		},
		{
			name: "a free field unasked from a sentence that echoes it",
			in: AnswerInput{Question: question("What do you do today?", stages.Targets{}), Rubric: whyRubric,
				Answer: "The project I am most proud of is the ledger rewrite: I designed the double-entry model and we cut reconciliation errors to zero."},
			fills: []Fill{{Field: stages.FieldProudProject, Value: "The project I am most proud of is the ledger rewrite: I designed the…"}},
		},
		// Repeat requests are no answers.
		{
			name:   "repeat: could you repeat the question",
			in:     AnswerInput{Question: question("What draws you to this role?", stages.Targets{Field: stages.FieldWhyRole}), Rubric: whyRubric, Answer: "Could you repeat the question?"},
			repeat: true, confidence: interviews.ConfidenceLow,
		},
		{
			name:   "repeat: sorry, can you say that again",
			in:     AnswerInput{Question: skillQ("How long have you used Go?", "Go", "duration"), Answer: "sorry, can you say that again"},
			repeat: true,
		},
		{
			name:   "repeat: pardon",
			in:     AnswerInput{Question: question("Tell me about yourself.", stages.Targets{}), Answer: "Pardon?"},
			repeat: true,
		},
		// Declines.
		{
			name:       "decline under NDA",
			in:         AnswerInput{Question: question("What did the fraud model score on?", stages.Targets{}), Answer: "I'd rather not go into that, it's under NDA."},
			confidence: interviews.ConfidenceLow, declined: true, noFacts: true,
		},
		{
			name:       "decline can't talk about",
			in:         AnswerInput{Question: question("Who were the clients?", stages.Targets{}), Answer: "Sorry, I can’t talk about that."},
			confidence: interviews.ConfidenceLow, declined: true, noFacts: true,
		},
		{
			name:     "decline a targeted field",
			in:       AnswerInput{Question: question("What draws you to this role?", stages.Targets{Field: stages.FieldWhyRole}), Rubric: whyRubric, Answer: "I don't know."},
			declined: true,
		},
		{
			name:  "a decline with substance is an answer",
			in:    AnswerInput{Question: question("What did it cost?", stages.Targets{}), Answer: "I can't share the exact figure, but it was about $2 million a year."},
			facts: []string{"Can't share the exact figure, but it was about $2 million a year."},
		},
		// Skills the candidate lacks.
		{
			name:       "absent: I haven't used Rust",
			in:         AnswerInput{Question: skillQ("How long have you used Rust?", "Rust", "duration"), Answer: "I haven't used Rust, to be honest."},
			absent:     []string{"Rust"},
			confidence: interviews.ConfidenceHigh, noFollowUp: true,
			facts: []string{"Hasn't used Rust, to be honest."},
		},
		{
			name:   "absent: no PCI-DSS experience, named as the job does",
			in:     AnswerInput{Question: question("Have you worked under compliance regimes?", stages.Targets{}), Skills: []string{"Go", "PCI-DSS"}, Answer: "No PCI-DSS experience, but I did SOC 2 audits twice."},
			absent: []string{"PCI-DSS"},
		},
		{
			name:   "absent: pci-dss unknown to the interview, lower case",
			in:     AnswerInput{Question: question("Any compliance work?", stages.Targets{}), Answer: "no pci-dss experience really"},
			absent: []string{"pci-dss"},
		},
		{
			name:   "absent: never worked with Kafka, though other skills are had",
			in:     AnswerInput{Question: question("What messaging have you used?", stages.Targets{}), Answer: "I've never worked with Kafka, but we ran RabbitMQ in production for years."},
			absent: []string{"Kafka"}, skills: []string{"RabbitMQ"},
		},
		{
			name:       "absent: a bare no to a skill question",
			in:         AnswerInput{Question: skillQ("Have you used Kubernetes in production?", "Kubernetes", "production_vs_prototype"), Answer: "No, I haven't."},
			absent:     []string{"Kubernetes"},
			confidence: interviews.ConfidenceHigh,
		},
		{
			name:   "absent: it, for the question's skill",
			in:     AnswerInput{Question: skillQ("How deep did you go with Terraform?", "Terraform", "depth"), Answer: "I've never really used it, we had a platform team for that."},
			absent: []string{"Terraform"},
		},
		{
			name: "no follow-up presses a skill the candidate lacks",
			in: AnswerInput{Question: question("What was the hardest problem you ran into?", stages.Targets{Field: stages.FieldHardProblem}), Rubric: whyRubric,
				Answer: "I haven't used Rust, and no PCI-DSS experience either."},
			absent: []string{"Rust", "PCI-DSS"}, followUpLacks: "the work involving",
		},
		{
			name:   "a lapsed skill is not absent",
			in:     AnswerInput{Question: skillQ("How long have you used Scala?", "Scala", "duration"), Answer: "I haven't used Scala since 2019, but I wrote it daily for four years before that."},
			fills:  []Fill{{Skill: "Scala", Attribute: "duration", Value: "four years"}},
			skills: []string{"Scala"},
		},
		{
			name:   "no production experience names no skill",
			in:     AnswerInput{Question: question("Tell me about your Go work.", stages.Targets{}), Answer: "I wrote Go for side projects, no production experience though."},
			skills: []string{"Go"},
			fills:  nil,
		},
		// Garble from the offline recogniser is never quoted.
		{
			name: "garble fills nothing and states no fact",
			in: AnswerInput{Question: question("What draws you to this role?", stages.Targets{Field: stages.FieldWhyRole}), Rubric: whyRubric,
				Answer: "are a problem want to rush out and are caught up and you are up what it did an a"},
			confidence: interviews.ConfidenceLow, noFacts: true,
		},
		{
			name: "garble with a number fills no duration",
			in: AnswerInput{Question: question("How many years have you been working in this field?", stages.Targets{Field: stages.FieldYearsExperience}), Rubric: defaultRubric,
				Answer: "three hundred and the and that can that's"},
			confidence: interviews.ConfidenceLow, noFacts: true,
		},
		{
			name:   "Go the language",
			in:     AnswerInput{Question: question("What do you write?", stages.Targets{}), Answer: "Mostly Go and some golang tooling, plus TypeScript."},
			skills: []string{"Go", "TypeScript"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Rules{}.Answer(t.Context(), tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if res.By != interviews.ByRules || !res.Confidence.Valid() {
				t.Errorf("by %q confidence %q", res.By, res.Confidence)
			}
			if tt.confidence != "" && res.Confidence != tt.confidence {
				t.Errorf("confidence %s, want %s", res.Confidence, tt.confidence)
			}
			if res.Declined != tt.declined {
				t.Errorf("declined %t, want %t", res.Declined, tt.declined)
			}
			var fills []Fill
			answer := strings.Join(strings.Fields(tt.in.Answer), " ")
			for _, f := range res.Fills {
				if f.Skill == "unknown" || f.Evidence == "" {
					t.Errorf("fill %+v", f)
				}
				if !strings.Contains(answer, strings.TrimSuffix(f.Evidence, "…")) {
					t.Errorf("fill %+v: the evidence is not quoted from the answer %q", f, answer)
				}
				f.Evidence = ""
				fills = append(fills, f)
			}
			if !slices.Equal(fills, tt.fills) {
				t.Errorf("fills %+v, want %+v", fills, tt.fills)
			}
			for _, f := range tt.facts {
				if !slices.Contains(res.Facts, f) {
					t.Errorf("facts %q lack %q", res.Facts, f)
				}
			}
			if len(res.Facts) > maxFacts {
				t.Errorf("%d facts", len(res.Facts))
			}
			if len(res.Discovered) != len(tt.discovered) {
				t.Errorf("discovered %+v, want %q", res.Discovered, tt.discovered)
			} else {
				for i, d := range res.Discovered {
					if !strings.Contains(d.About, tt.discovered[i]) || d.Priority != tt.priorities[i] || !strings.HasSuffix(d.Text, "?") {
						t.Errorf("discovered[%d] %+v, want about %q %s", i, d, tt.discovered[i], tt.priorities[i])
					}
				}
			}
			if tt.skills != nil && !slices.Equal(res.Skills, tt.skills) || tt.skills == nil && len(res.Skills) > 0 {
				t.Errorf("skills %q, want %q", res.Skills, tt.skills)
			}
			if !slices.Equal(res.Absent, tt.absent) {
				t.Errorf("absent %q, want %q", res.Absent, tt.absent)
			}
			if res.RepeatRequest != tt.repeat {
				t.Errorf("repeat request %t, want %t", res.RepeatRequest, tt.repeat)
			}
			if tt.noFacts && (len(res.Facts) > 0 || len(res.Discovered) > 0) {
				t.Errorf("quoted facts %q, discovered %+v", res.Facts, res.Discovered)
			}
			switch {
			case res.RepeatRequest:
				if len(res.Fills)+len(res.Facts)+len(res.Skills)+len(res.Discovered) > 0 || res.FollowUp != "" || res.Declined {
					t.Errorf("a repeat request gave %+v", res)
				}
			case res.Declined && res.FollowUp != "":
				t.Errorf("follow-up %q presses a declined answer", res.FollowUp)
			case res.Confidence == interviews.ConfidenceHigh && res.FollowUp != "":
				t.Errorf("follow-up %q on a high answer", res.FollowUp)
			case !res.Declined && res.Confidence != interviews.ConfidenceHigh && res.FollowUp == "":
				t.Errorf("no follow-up on a %s answer", res.Confidence)
			case res.FollowUp != "" && normalizeQuestion(res.FollowUp) == normalizeQuestion(tt.in.Question.Text):
				t.Errorf("follow-up repeats the question")
			}
			if tt.noFollowUp && res.FollowUp != "" {
				t.Errorf("follow-up %q", res.FollowUp)
			}
			if tt.followUpLacks != "" && strings.Contains(res.FollowUp, tt.followUpLacks) {
				t.Errorf("follow-up %q is about %q", res.FollowUp, tt.followUpLacks)
			}
		})
	}
}

func TestFindSkills(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"I write Go, Python and C++ daily; some C# too.", []string{"Go", "Python", "C++", "C#"}},
		{"Go to the dashboard. Go ahead and deploy.", nil},
		{"We moved from Go to Rust.", []string{"Go", "Rust"}},
		{"Go is my main language.", []string{"Go"}},
		{"Built with Node.js and React, deployed on k8s.", []string{"Node.js", "React", "Kubernetes"}},
		{"we react to incidents and go to the spring offsite", nil},
		{"Spring Boot services on PostgreSQL (postgres 15)", []string{"Spring Boot", "PostgreSQL"}},
		{"JavaScript, not Java; MySQL not SQL", []string{"JavaScript", "Java", "MySQL", "SQL"}},
	}
	for _, tt := range tests {
		if got := skillNames(findSkills(tt.text)); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("findSkills(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
	if n := len(technologies); n < 150 {
		t.Errorf("dictionary has %d technologies, want about 150", n)
	}
}

func TestRulesSkills(t *testing.T) {
	resume := `Jane Doe — Backend engineer
Skills: Python (5 years), Go - 3 yrs, PostgreSQL, Docker
Experience: 4+ years of Kubernetes in production.`
	jd := `We build payments infrastructure with Go and Kafka.

Requirements:
- Go and PostgreSQL
- Kubernetes

Nice to have:
- Kafka
- Terraform
- Python`
	skills, err := Rules{}.Skills(t.Context(), resume, jd)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]interviews.Skill{}
	for _, s := range skills {
		got[s.Name] = s
		if s.By != interviews.ByRules {
			t.Errorf("%s by %q", s.Name, s.By)
		}
	}
	want := map[string]struct {
		sources  []string
		duration string
	}{
		"Python":     {[]string{SourceResume, SourceJobPreferred}, "5 years"},
		"Go":         {[]string{SourceResume, SourceJobRequired}, "3 yrs"},
		"PostgreSQL": {[]string{SourceResume, SourceJobRequired}, ""},
		"Docker":     {[]string{SourceResume}, ""},
		"Kubernetes": {[]string{SourceResume, SourceJobRequired}, "4+ years"},
		"Kafka":      {[]string{SourceJobRequired}, ""}, // named before the headings: required
		"Terraform":  {[]string{SourceJobPreferred}, ""},
	}
	if len(got) != len(want) {
		t.Errorf("skills %+v", skills)
	}
	for name, w := range want {
		s := got[name]
		if !slices.Equal(s.Sources, w.sources) || s.Duration != w.duration {
			t.Errorf("%s: sources %q duration %q, want %q %q", name, s.Sources, s.Duration, w.sources, w.duration)
		}
		if w.duration != "" && (len(s.Evidence) == 0 || s.Confidence == 0) {
			t.Errorf("%s: no evidence or confidence: %+v", name, s)
		}
	}
}

func TestJobSectionsPhrases(t *testing.T) {
	jd := "Must have: strong Java.\n- Redis is a plus\n## Bonus\n- Scala\n## What you'll need\n- Kotlin"
	want := map[string]string{"Java": SourceJobRequired, "Redis": SourceJobPreferred, "Scala": SourceJobPreferred, "Kotlin": SourceJobRequired}
	skills, _ := Rules{}.Skills(t.Context(), "", jd)
	for _, s := range skills {
		if !slices.Equal(s.Sources, []string{want[s.Name]}) {
			t.Errorf("%s sources %q, want %s", s.Name, s.Sources, want[s.Name])
		}
	}
	if len(skills) != len(want) {
		t.Errorf("skills %+v", skills)
	}
}

const handoverBrief = `# Handover: billing

## Deploys
- The nightly deploy pipeline
- Who approves hotfixes?
- Rollback steps (P1)
- Feature flags in the admin panel

## Risks
The reconciliation job is fragile on month end. It must never run twice.
- Vendor contract renewal
- Old cron on box-7 (P0)
`

func TestRulesBacklog(t *testing.T) {
	items, err := Rules{}.Backlog(t.Context(), handoverBrief)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		topic, text string
		p           stages.Priority
	}{
		{"Deploys", "Can you walk me through the nightly deploy pipeline?", stages.P0},
		{"Deploys", "Who approves hotfixes?", stages.P0},
		{"Deploys", "Can you walk me through rollback steps?", stages.P1},
		{"Deploys", "Can you walk me through feature flags in the admin panel?", stages.P1},
		{"Risks", "What should someone taking this over know about the reconciliation job is fragile on month end?", stages.P0},
		{"Risks", "What should someone taking this over know about it must never run twice?", stages.P0},
		{"Risks", "Can you walk me through vendor contract renewal?", stages.P1},
		{"Risks", "Can you walk me through old cron on box-7?", stages.P0},
	}
	if len(items) != len(want) {
		t.Fatalf("items %+v", items)
	}
	for i, w := range want {
		it := items[i]
		if it.Topic != w.topic || it.Text != w.text || it.Priority != w.p || it.ID != "b"+string(rune('1'+i)) ||
			it.Origin != interviews.OriginBrief || it.Status != interviews.StatusOpen || it.By != interviews.ByRules {
			t.Errorf("item %d = %+v, want %+v", i, it, w)
		}
	}
}

func TestRulesPhase(t *testing.T) {
	stage := stages.Stage{Name: "data_design", Title: "Data design", Keywords: []string{"schema", "index", "sharding", "replication", "cache"}}
	tests := []struct {
		turns    []string
		decision string
		score    float64
		gaps     []string
	}{
		{[]string{"I'd start with the schema and an index on user id.", "Then caching hot rows."}, interviews.PhaseAdvance, 6, []string{"sharding", "replication"}},
		{[]string{"Schemas first."}, interviews.PhaseContinue, 2, []string{"index", "sharding", "replication", "cache"}},
		{[]string{"Schema, indexes, shard by tenant (sharding), replicated with replication lag monitored, cached reads."}, interviews.PhaseAdvance, 10, nil},
		{nil, interviews.PhaseContinue, 0, []string{"schema", "index", "sharding", "replication", "cache"}},
	}
	for i, tt := range tests {
		ph, err := Rules{}.Phase(t.Context(), PhaseInput{Stage: stage, Turns: tt.turns})
		if err != nil {
			t.Fatal(err)
		}
		if ph.ID != "data_design" || ph.Name != "Data design" || ph.Decision != tt.decision || ph.Score != tt.score ||
			!slices.Equal(ph.Gaps, tt.gaps) || ph.Feedback == "" || ph.By != interviews.ByRules {
			t.Errorf("%d: %+v, want %s %v %q", i, ph, tt.decision, tt.score, tt.gaps)
		}
	}
	// A stricter pass keeps the same coverage in the phase.
	ph, _ := Rules{}.Phase(t.Context(), PhaseInput{Stage: stage, Turns: tests[0].turns, Pass: 0.8})
	if ph.Decision != interviews.PhaseContinue {
		t.Errorf("pass 0.8: %s", ph.Decision)
	}
}

func TestRulesMissing(t *testing.T) {
	in := MissingInput{Rubric: []interviews.RubricItem{
		{ID: "a", Label: "Current role", Required: true, Status: interviews.StatusCovered},
		{ID: "b", Label: "Years of experience", Required: true, Status: interviews.StatusOpen},
		{ID: "c", Label: "Why this role", Required: false, Status: interviews.StatusOpen},
		{ID: "d", Label: "Impact", Required: true, Status: interviews.StatusUnknown},
	}}
	got, _ := Rules{}.Missing(t.Context(), in)
	if !slices.Equal(got, []string{"Years of experience"}) {
		t.Errorf("missing %q", got)
	}
	in.Rubric[1].Status = interviews.StatusCovered
	if got, _ := (Rules{}).Missing(t.Context(), in); len(got) != 0 {
		t.Errorf("missing %q, want none", got)
	}
}

func TestRulesSummarize(t *testing.T) {
	sum, err := Rules{}.Summarize(t.Context(), SummaryInput{Brief: handoverBrief, Items: []SummaryItem{
		{Topic: "Risks", Question: "q", Facts: []string{"The reconciliation job double-charges if run twice."}},
		{Topic: "Deploys", Question: "q", Answer: "I deploy every night at two with the Jenkins job."},
		{Topic: "", Question: "q", Facts: []string{"Priya owns the vendor relationship."}},
		{Topic: "Deploys", Question: "q", Answer: "Pass."},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Basic || sum.By != interviews.ByRules || sum.GeneratedAt.IsZero() {
		t.Errorf("summary %+v", sum)
	}
	var titles []string
	for _, tp := range sum.Topics {
		titles = append(titles, tp.Title)
	}
	if !slices.Equal(titles, []string{"Deploys", "Risks", OtherTopic}) {
		t.Fatalf("topics %q", titles)
	}
	if !slices.Equal(sum.Topics[0].Points, []string{"Deploys every night at two with the Jenkins job."}) {
		t.Errorf("deploy points %q", sum.Topics[0].Points)
	}
}

func BenchmarkRulesAnswer(b *testing.B) {
	in := AnswerInput{
		Question: skillQ("How big was the system you built with Kafka?", "Kafka", "scale"),
		Answer: "So I led a team of six engineers at Acme. We moved to Kafka in 2021 because the old RabbitMQ setup fell over at " +
			"around two hundred thousand events per second. I decided to partition by tenant, my manager Priya signed off on the budget, " +
			"and we cut end-to-end latency by forty percent while staying PCI compliant. It has run in production for three years now.",
		Keywords: []string{"project", "challenge", "result", "impact", "decision", "trade-off", "team"},
		Rubric:   defaultRubric,
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Rules{}).Answer(b.Context(), in); err != nil {
			b.Fatal(err)
		}
	}
}
