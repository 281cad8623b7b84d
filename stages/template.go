package stages

// Template is a role template: the questions worth asking for one role,
// grouped by category, written in markdown (see ParseTemplate). A guided
// stage asks them, in order, skipping those whose SkipIf matches what is
// already known.
type Template struct {
	// Name identifies the template ("fullstack-senior"); it is stored in
	// the interview record.
	Name string `json:"name"`
	// Title is the document's "# " heading.
	Title string `json:"title"`
	// Questions are the template's questions in document order. Each has
	// an ID ("<category>-<n>"), Text, Expected, an optional SkipIf, and a
	// Context of KindTemplate whose Targets name the Category and what it
	// Assesses.
	Questions []Question `json:"questions"`
}
