package stages

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
)

// Problem is one problem of a blueprint's pool: a design interview lists
// several (Blueprint.Problems) and each interview works on one, chosen at
// registration or drawn for it (PickProblem). Templates see the chosen
// one as {{.Problem}}, {{.ProblemStatement}} and {{.ProblemDetails}}, and
// its stages' questions and keywords replace the blueprint's own
// (WithProblem).
type Problem struct {
	// ID identifies the problem in the pool and in interview records
	// ("ticketing"): lower case, unique.
	ID string `yaml:"id" json:"id"`
	// Title names what is designed, to fit in a sentence ("an online
	// ticketing service"); defaults to the id made readable.
	Title string `yaml:"title" json:"title"`
	// Statement is how the interviewer presents the problem, spoken.
	Statement string `yaml:"statement" json:"statement"`
	// Details are the facts the interviewer answers clarifying questions
	// with (numbers, users, what is out of scope); never read out whole.
	Details string `yaml:"details" json:"details,omitempty"`
	// Stages hold the problem's own questions and keywords, by stage.
	Stages []ProblemStage `yaml:"stages" json:"stages,omitempty"`
}

// ProblemStage is what a problem brings to one stage of its blueprint.
type ProblemStage struct {
	// Name is the blueprint stage's name.
	Name string `yaml:"name" json:"name"`
	// Keywords, when set, replace the stage's: what a good answer touches
	// and, with evaluate_phase, what a complete phase covers.
	Keywords []string `yaml:"keywords" json:"keywords,omitempty"`
	// Questions, when set, replace the stage's question bank.
	Questions []Question `yaml:"questions" json:"questions,omitempty"`
}

// clone returns a copy of p that shares no memory with it.
func (p Problem) clone() Problem {
	c := p
	c.Stages = make([]ProblemStage, len(p.Stages))
	for i, s := range p.Stages {
		c.Stages[i] = ProblemStage{Name: s.Name, Keywords: slices.Clone(s.Keywords)}
		if s.Questions != nil {
			c.Stages[i].Questions = make([]Question, len(s.Questions))
			for j, q := range s.Questions {
				c.Stages[i].Questions[j] = q.Clone()
			}
		}
	}
	if p.Stages == nil {
		c.Stages = nil
	}
	return c
}

// ProblemIDs lists the ids of the blueprint's problems, in order.
func (b *Blueprint) ProblemIDs() []string {
	ids := make([]string, len(b.Problems))
	for i, p := range b.Problems {
		ids[i] = p.ID
	}
	return ids
}

// FindProblem returns the problem of the pool called id (case and
// surrounding spaces ignored). An unknown id is an error listing the
// pool; so is any id for a blueprint without one.
func (b *Blueprint) FindProblem(id string) (Problem, error) {
	n := strings.ToLower(strings.TrimSpace(id))
	for _, p := range b.Problems {
		if p.ID == n {
			return p.clone(), nil
		}
	}
	if len(b.Problems) == 0 {
		return Problem{}, fmt.Errorf("blueprint %q has no pool of problems to choose %q from: leave the problem out", b.Name, id)
	}
	return Problem{}, fmt.Errorf("blueprint %q has no problem %q; choose one of %s, or leave it out to draw one", b.Name, id, strings.Join(b.ProblemIDs(), ", "))
}

// PickProblem draws the problem of an interview from the pool: the same
// seed (the interview's id) always draws the same problem, so a resumed
// interview keeps it. ok is false for a blueprint without problems.
func (b *Blueprint) PickProblem(seed string) (p Problem, ok bool) {
	if len(b.Problems) == 0 {
		return Problem{}, false
	}
	h := fnv.New32a()
	h.Write([]byte(seed))
	return b.Problems[int(h.Sum32()%uint32(len(b.Problems)))].clone(), true
}

// WithProblem returns a copy of the blueprint set for problem p: each
// stage p names takes p's questions and keywords in place of its own
// (question ids default to <stage>-<n>).
func (b *Blueprint) WithProblem(p Problem) *Blueprint {
	c := b.Clone()
	for _, ps := range p.Stages {
		i := c.Index(ps.Name)
		if i < 0 {
			continue // Validate refuses it
		}
		if len(ps.Keywords) > 0 {
			c.Stages[i].Keywords = slices.Clone(ps.Keywords)
		}
		if len(ps.Questions) > 0 {
			c.Stages[i].Questions = make([]Question, len(ps.Questions))
			for j, q := range ps.Questions {
				q = q.Clone()
				if q.ID == "" {
					q.ID = fmt.Sprintf("%s-%d", ps.Name, j+1)
				}
				c.Stages[i].Questions[j] = q
			}
		}
	}
	return c
}
