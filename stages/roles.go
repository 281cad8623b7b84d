package stages

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// Role categories returned by RoleCategory. Each has its own RoleFocus
// paragraph.
const (
	RoleManagement  = "management"
	RoleSecurity    = "security"
	RoleQA          = "qa"
	RoleDevOps      = "devops"
	RoleData        = "data"
	RoleDesign      = "design"
	RoleProduct     = "product"
	RoleSales       = "sales"
	RoleEngineering = "engineering"
	RoleGeneral     = "general"
)

// roleRule maps words or phrases of a role title to a category. Rules are
// tried in order and the first rule with a match wins.
type roleRule struct {
	category string
	// terms are lower-case words or space-separated phrases matched against
	// whole words of the role, in sequence.
	terms []string
}

// roleRules is the priority order used by RoleCategory:
//
//  1. Job-title phrases whose last word would mislead: "product manager"
//     and "product owner" are product roles, "account manager" is sales,
//     "tech lead" is engineering.
//  2. People management (manager, director, head, team lead, …), so an
//     "Engineering Manager" or "QA Manager" is interviewed on leading people.
//  3. Specialisms before the general disciplines they belong to: security,
//     QA and test, DevOps/SRE/platform, data and ML. A "Senior Data
//     Engineer" is a data role, a "Platform Engineer" a DevOps role.
//  4. Design before product, so a "Product Designer" is a designer.
//  5. Product, then sales and marketing, then general engineering
//     (engineer, developer, software, backend, frontend, …).
//  6. Anything else gets the general focus.
var roleRules = []roleRule{
	{RoleProduct, []string{"product manager", "product owner", "product management", "product lead", "product director", "head of product", "vp product", "vp of product"}},
	{RoleSales, []string{"account manager", "account executive", "sales manager", "marketing manager"}},
	{RoleEngineering, []string{"tech lead", "technical lead", "lead engineer", "lead developer"}},
	{RoleManagement, []string{"manager", "management", "director", "head", "vp", "vice president", "chief", "cto", "ceo", "coo", "team lead", "people lead", "supervisor", "scrum master"}},
	{RoleSecurity, []string{"security", "infosec", "appsec", "secops", "cybersecurity", "pentester", "penetration"}},
	{RoleQA, []string{"qa", "test", "tester", "testing", "sdet", "quality"}},
	{RoleDevOps, []string{"devops", "sre", "site reliability", "reliability", "platform", "infrastructure", "infra", "cloud", "systems administrator", "sysadmin", "operations engineer"}},
	{RoleData, []string{"data", "analyst", "analytics", "scientist", "science", "ml", "machine learning", "ai", "bi", "statistician"}},
	{RoleDesign, []string{"designer", "design", "ux", "ui", "user experience", "user researcher", "ux researcher"}},
	{RoleProduct, []string{"product", "pm"}},
	{RoleSales, []string{"sales", "marketing", "marketer", "account", "business development", "bdr", "sdr", "growth", "customer success", "partnerships"}},
	{RoleEngineering, []string{"engineer", "engineering", "developer", "development", "programmer", "software", "backend", "back end", "frontend", "front end", "fullstack", "full stack", "mobile", "ios", "android", "web", "architect", "coder", "swe"}},
}

// roleFocus holds the focus paragraph of each category.
var roleFocus = map[string]string{
	RoleManagement: "This is a leadership role. Explore how the candidate builds and grows a team, sets direction and priorities, " +
		"handles underperformance and conflict, delegates, and measures the results of their team rather than their own output.",
	RoleSecurity: "This is a security role. Explore threat modelling, how the candidate finds and prioritises vulnerabilities, " +
		"incident response, secure design reviews, and how they work with engineers so that security helps delivery instead of blocking it.",
	RoleQA: "This is a quality and testing role. Explore test strategy, what the candidate automates and what they test by hand, " +
		"how they find the risky parts of a change, how they report and follow up defects, and how they keep test suites fast and reliable.",
	RoleDevOps: "This is an infrastructure and reliability role. Explore deployment pipelines, infrastructure as code, monitoring and alerting, " +
		"incident handling and postmortems, capacity and cost, and how the candidate makes other teams faster and safer.",
	RoleData: "This is a data role. Explore how the candidate frames a question as an analysis or a model, data quality and pipelines, " +
		"choice of methods and metrics, validating results, and explaining findings to people who are not specialists.",
	RoleDesign: "This is a design role. Explore the candidate's design process, user research, how they turn findings into decisions, " +
		"prototyping and iteration, accessibility, and how they work with product managers and engineers to ship.",
	RoleProduct: "This is a product role. Explore how the candidate discovers user problems, prioritises a roadmap, defines success metrics, " +
		"makes trade-offs with engineering and design, and says no to good ideas for better ones.",
	RoleSales: "This is a commercial role. Explore how the candidate finds and qualifies opportunities, understands a customer's needs, " +
		"handles objections, manages a pipeline or campaign, and measures results against targets.",
	RoleEngineering: "This is a software engineering role. Explore how the candidate designs and builds software, debugging, testing, " +
		"code review, technical trade-offs such as performance against simplicity, and how they ship and maintain what they build.",
	RoleGeneral: "Explore the candidate's main responsibilities, how they approach problems, how they work with others, " +
		"and the concrete results they can point to.",
}

// RoleCategory maps a free-text role ("Senior Data Engineer") to one of the
// Role* categories by whole-word, case-insensitive keyword matching in the
// priority order documented on roleRules; RoleGeneral when nothing matches.
func RoleCategory(role string) string {
	words := roleWords(role)
	for _, r := range roleRules {
		for _, t := range r.terms {
			if containsPhrase(words, strings.Fields(t)) {
				return r.category
			}
		}
	}
	return RoleGeneral
}

// RoleFocus returns a paragraph telling the interviewer what to explore for
// the given free-text role, chosen by RoleCategory. It never returns an empty
// string: unknown roles get a general focus.
func RoleFocus(role string) string {
	return roleFocus[RoleCategory(role)]
}

// roleWords splits s into lower-case words of letters and digits, so
// "Front-end/UX" gives front, end, ux.
func roleWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// containsPhrase reports whether phrase occurs as consecutive words in words.
func containsPhrase(words, phrase []string) bool {
	if len(phrase) == 0 {
		return false
	}
	for i := 0; i+len(phrase) <= len(words); i++ {
		if slices.Equal(words[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}

// levelExpectations holds what is expected at each of Levels.
var levelExpectations = map[string]string{
	"entry": "This is an entry-level position. Expect potential rather than a track record: coursework, personal projects, internships " +
		"and eagerness to learn count. Keep questions concrete and be encouraging; do not expect experience of leading others.",
	"junior": "This is a junior position. Expect one or two years of experience, solid fundamentals, work done with guidance, " +
		"and growing independence on well-defined tasks. Look for curiosity and how they learn from feedback.",
	"mid": "This is a mid-level position. Expect independent ownership of features or projects from start to finish, " +
		"sound judgement on everyday trade-offs, and some help given to less experienced colleagues.",
	"senior": "This is a senior position. Expect ownership of ambiguous, cross-team problems, trade-offs explained with reasons, " +
		"influence on how the team works, and mentoring. Probe for depth and for the impact of their decisions.",
	"lead": "This is a lead position. Expect the candidate to set technical or functional direction for a team, coordinate work across people, " +
		"grow others, and balance delivery against long-term health. Ask how they lead, not only what they built.",
	"staff": "This is a staff-level position. Expect influence across several teams or the organisation, long-term strategy, " +
		"resolution of the hardest technical or organisational problems, and leadership without formal authority.",
}

// LevelExpectations returns a paragraph describing what the interviewer
// should expect of a candidate at level (case and surrounding spaces are
// ignored). An unknown or empty level gets advice to calibrate as the
// interview goes.
func LevelExpectations(level string) string {
	if e, ok := levelExpectations[strings.ToLower(strings.TrimSpace(level))]; ok {
		return e
	}
	return "The seniority of this position is not specified. Calibrate your expectations to the experience the candidate describes."
}

// ValidLevel reports whether level is exactly one of Levels (already
// normalised: lower case, no surrounding spaces).
func ValidLevel(level string) bool {
	return slices.Contains(Levels, level)
}

// NormalizeLevel trims and lower-cases s and checks it is one of Levels, so
// "Senior " becomes "senior". The error lists the accepted levels.
func NormalizeLevel(s string) (string, error) {
	l := strings.ToLower(strings.TrimSpace(s))
	if !ValidLevel(l) {
		return "", fmt.Errorf("stages: level %q is not known; use one of %s", s, strings.Join(Levels, ", "))
	}
	return l, nil
}
