package stages

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// A blueprint's pool of problems in YAML: reading, writing and checking.

var (
	problemFields      = []string{"id", "title", "statement", "details", "stages"}
	problemStageFields = []string{"name", "keywords", "questions"}
)

func (d *decoder) problem(n *yaml.Node, path string) Problem {
	var p Problem
	d.fields(n, path, "problem", problemFields, func(key, field string, v *yaml.Node) {
		switch key {
		case "id":
			p.ID = d.str(v, field)
		case "title":
			p.Title = d.str(v, field)
		case "statement":
			p.Statement = d.str(v, field)
		case "details":
			p.Details = d.str(v, field)
		case "stages":
			d.list(v, field, "the problem's stages (lines starting with \"- name: …\")", func(sn *yaml.Node, sf string) {
				p.Stages = append(p.Stages, d.problemStage(sn, sf))
			})
		}
	})
	if p.Title == "" {
		p.Title = strings.ToLower(titleFromName(p.ID))
	}
	return p
}

func (d *decoder) problemStage(n *yaml.Node, path string) ProblemStage {
	var s ProblemStage
	d.fields(n, path, "problem stage", problemStageFields, func(key, field string, v *yaml.Node) {
		switch key {
		case "name":
			s.Name = d.str(v, field)
		case "keywords":
			s.Keywords = d.words(v, field)
		case "questions":
			d.list(v, field, "questions", func(qn *yaml.Node, qf string) {
				s.Questions = append(s.Questions, d.question(qn, qf))
			})
		}
	})
	for j := range s.Questions {
		if s.Questions[j].ID == "" {
			s.Questions[j].ID = fmt.Sprintf("%s-%d", s.Name, j+1)
		}
	}
	return s
}

func problemNode(p Problem) *yaml.Node {
	pn := mapping()
	addString(pn, "id", p.ID)
	addString(pn, "title", p.Title)
	addString(pn, "statement", p.Statement)
	addString(pn, "details", p.Details)
	if len(p.Stages) > 0 {
		addPair(pn, "stages", sequence(p.Stages, func(s ProblemStage) *yaml.Node {
			sn := mapping()
			addString(sn, "name", s.Name)
			if len(s.Keywords) > 0 {
				addPair(sn, "keywords", stringList(s.Keywords))
			}
			if len(s.Questions) > 0 {
				addPair(sn, "questions", sequence(s.Questions, questionNode))
			}
			return sn
		}))
	}
	return pn
}

// poolProblems checks the pool: ids lower case and unique, a statement
// each, stages that exist and are named once, questions with unique ids
// and texts that render.
func (b *Blueprint) poolProblems(names map[string]int) []*FieldError {
	l := &problemList{}
	ids := map[string]int{}
	for i, p := range b.Problems {
		at := func(field string) string { return fmt.Sprintf("problems[%d].%s", i, field) }
		switch first, dup := ids[p.ID]; {
		case !stageNamePattern.MatchString(p.ID):
			l.add(at("id"), "", "%q is not a problem id; use lower-case letters, digits, '-' and '_', such as \"ticketing\"", p.ID)
		case dup:
			l.add(at("id"), "", "%q is already the id of problems[%d]; problem ids must be unique", p.ID, first)
		default:
			ids[p.ID] = i
		}
		if strings.TrimSpace(p.Statement) == "" {
			l.add(at("statement"), "", "is empty; write how the interviewer presents the problem, in two or three spoken sentences")
		}
		stagesSeen := map[string]bool{}
		qids := map[string]string{}
		for j, s := range p.Stages {
			sat := func(field string) string { return at(fmt.Sprintf("stages[%d].%s", j, field)) }
			_, known := names[s.Name]
			switch {
			case !known:
				l.add(sat("name"), "", "%q is not a stage of this blueprint; name one of its stages", s.Name)
			case stagesSeen[s.Name]:
				l.add(sat("name"), "", "stage %q appears twice in this problem; keep one", s.Name)
			}
			stagesSeen[s.Name] = true
			for k, q := range s.Questions {
				qat := sat(fmt.Sprintf("questions[%d]", k))
				if other := qids[q.ID]; other != "" {
					l.add(qat+".id", s.Name, "%q is already used by %s; question ids must be unique within the problem", q.ID, other)
				}
				qids[q.ID] = qat + ".id"
				if strings.TrimSpace(q.Text) == "" {
					l.add(qat+".text", s.Name, "is empty; write the question as it should be spoken, or remove it")
				} else {
					l.checkTemplate(qat+".text", s.Name, q.Text)
				}
			}
		}
	}
	return l.probs
}
