package voice

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// splitAll feeds text to a splitter in deltas of size bytes (0: one delta)
// and returns every sentence and, for each, how many bytes of input had
// been written when it was emitted.
func splitAll(text string, size int) (sentences []string, at []int) {
	var s SentenceSplitter
	if size <= 0 {
		size = len(text) + 1
	}
	written := 0
	for len(text) > 0 {
		n := min(size, len(text))
		written += n
		for _, out := range s.Write(text[:n]) {
			sentences = append(sentences, out)
			at = append(at, written)
		}
		text = text[n:]
	}
	for _, out := range s.Flush() {
		sentences = append(sentences, out)
		at = append(at, -1)
	}
	return sentences, at
}

func TestSentenceSplitter(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []string
	}{
		{"two sentences", "I see. Tell me about your last project. What did you build?",
			[]string{"I see. Tell me about your last project.", "What did you build?"}},
		{"question and exclamation", "That is great! Why did you choose Go? It fits.",
			[]string{"That is great!", "Why did you choose Go?", "It fits."}},
		{"stop runs", "Really?! Wow. Fine.", []string{"Really?! Wow.", "Fine."}},
		{"titles", "Dr. Smith and Mr. Jones met Prof. Lee. They talked.",
			[]string{"Dr. Smith and Mr. Jones met Prof. Lee.", "They talked."}},
		{"latin", "Use a queue, e.g. Kafka, i.e. a log. Then scale out.",
			[]string{"Use a queue, e.g. Kafka, i.e. a log.", "Then scale out."}},
		{"etc mid sentence", "We used Go, Rust, etc. for the backend. It worked.",
			[]string{"We used Go, Rust, etc. for the backend.", "It worked."}},
		{"etc at the end", "We used Go, Rust, etc. Then we shipped it.",
			[]string{"We used Go, Rust, etc.", "Then we shipped it."}},
		{"dotted abbreviation", "She moved to the U.S. in May. Welcome back.",
			[]string{"She moved to the U.S. in May.", "Welcome back."}},
		{"time", "The call is at 3 p.m. tomorrow. Please join.",
			[]string{"The call is at 3 p.m. tomorrow.", "Please join."}},
		{"decimals", "Latency fell from 3.5 to 1.25 seconds. Nice work there.",
			[]string{"Latency fell from 3.5 to 1.25 seconds.", "Nice work there."}},
		{"version number ends sentence", "We are on version 2. Then came 3.",
			[]string{"We are on version 2.", "Then came 3."}},
		{"initials", "I read J. R. R. Tolkien last year. Good books.",
			[]string{"I read J. R. R. Tolkien last year.", "Good books."}},
		{"ellipsis pause", "Well... let me think about that. Okay... Next question.",
			[]string{"Well... let me think about that.", "Okay...", "Next question."}},
		{"unicode ellipsis", "Hmm… that is unusual. Tell me more.",
			[]string{"Hmm… that is unusual.", "Tell me more."}},
		{"quotes after the stop", `He said "ship it." Then he left. (It was late.) Fine.`,
			[]string{`He said "ship it."`, "Then he left.", "(It was late.)", "Fine."}},
		{"curly quotes", "She said “done.” We moved on.", []string{"She said “done.”", "We moved on."}},
		{"urls and emails", "See https://example.com/a.b?x=1 or mail jo.doe@example.co.uk. Thanks for asking.",
			[]string{"See https://example.com/a.b?x=1 or mail jo.doe@example.co.uk.", "Thanks for asking."}},
		{"newlines", "First line without a stop\nSecond line\n\nThird.",
			[]string{"First line without a stop", "Second line", "Third."}},
		{"markdown", "# Summary\n**Great** answer, you used `defer` well.\n- First point\n* Second point\n> quoted",
			[]string{"Summary", "Great answer, you used defer well.", "First point", "Second point", "quoted"}},
		{"numbered list", "The steps are these:\n1. Design the schema.\n2. Write the API.",
			[]string{"The steps are these:", "1. Design the schema.", "2. Write the API."}},
		{"short heading merged", "Steps:\n1. Design it.", []string{"Steps: 1. Design it."}},
		{"hash inside a line", "I have used C# and F# for years. Also Go.",
			[]string{"I have used C# and F# for years.", "Also Go."}},
		{"dash inside a line", "It was a well-known - and loved - tool.",
			[]string{"It was a well-known - and loved - tool."}},
		{"negative number", "-5 degrees outside.", []string{"-5 degrees outside."}},
		{"whitespace collapse", "  So   tell\tme   more.  ", []string{"So tell me more."}},
		{"no stop at the end", "Tell me about yourself", []string{"Tell me about yourself"}},
		{"short first merged", "Hi. I'm Alex, your interviewer.", []string{"Hi. I'm Alex, your interviewer."}},
		{"short first released after the budget",
			"Okay. Let us talk about the distributed systems work you did at your previous company and what you learned.",
			[]string{"Okay.", "Let us talk about the distributed systems work you did at your previous company and what you learned."}},
		{"only a short sentence", "Okay.", []string{"Okay."}},
		{"long sentence split at a comma",
			"I would like to hear about the largest system you have designed end to end, including how you chose the storage layer, how you handled failures across regions, and how you measured whether it actually met the latency goals you set at the start.",
			[]string{
				"I would like to hear about the largest system you have designed end to end, including how you chose the storage layer, how you handled failures across regions,",
				"and how you measured whether it actually met the latency goals you set at the start.",
			}},
		{"long sentence without commas split at a space",
			strings.Repeat("word ", 70) + "end.",
			[]string{strings.TrimSpace(strings.Repeat("word ", 60)), strings.TrimSpace(strings.Repeat("word ", 10)) + " end."}},
		{"empty", "", nil},
		{"only markdown", "**  ``", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, size := range []int{0, 1, 2, 3, 7} {
				got, _ := splitAll(tc.in, size)
				if !slices.Equal(got, tc.want) {
					t.Fatalf("deltas of %d bytes:\n got %q\nwant %q", size, got, tc.want)
				}
			}
		})
	}
}

// TestSentenceSplitterStreams checks that sentences come out as soon as
// they are complete, not at Flush.
func TestSentenceSplitterStreams(t *testing.T) {
	in := "Thanks for that answer. Now tell me about a bug you fixed. Take your time"
	got, at := splitAll(in, 1)
	want := []string{"Thanks for that answer.", "Now tell me about a bug you fixed.", "Take your time"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q", got)
	}
	// Each complete sentence is released by the space after its stop.
	for i, s := range want[:2] {
		end := strings.Index(in, s) + len(s) + 1
		if at[i] != end {
			t.Errorf("%q released after %d bytes, want %d", s, at[i], end)
		}
	}
	if at[2] != -1 {
		t.Errorf("the unterminated tail must wait for Flush")
	}

	// A short first sentence waits at most MergeBudgetBytes for the next.
	in = "Sure. " + strings.Repeat("x", 60)
	_, at = splitAll(in, 1)
	if at[0] < 0 || at[0] > len("Sure.")+MergeBudgetBytes+2 {
		t.Errorf("short first sentence released after %d bytes, want within the merge budget", at[0])
	}
}

func TestSentenceSplitterReuse(t *testing.T) {
	var s SentenceSplitter
	s.Write("One. Two")
	if got := s.Flush(); !slices.Equal(got, []string{"One. Two"}) {
		t.Fatalf("first flush %q", got)
	}
	got := append(s.Write("Hello there. "), s.Flush()...)
	if !slices.Equal(got, []string{"Hello there."}) {
		t.Fatalf("after reuse %q", got)
	}
}

// normalized is what the sentences must add up to: the input with
// markdown removed and whitespace collapsed.
func normalized(in string) string {
	var f markdownFilter
	b := f.write(nil, in)
	b = f.flush(b)
	return collapseSpaces(b)
}

func FuzzSplitter(f *testing.F) {
	for _, s := range []string{
		"Hello there. How are you? I'm fine!",
		"Dr. Who met Mr. X. e.g. this, i.e. that. U.S. Army. 3.5 versus 4. etc. Done",
		"# Title\n- item one\n* item two\n**bold** `code` > quote\n1. first\n2. second",
		"Well... maybe… \"Quoted.\" (Bracketed.) ‘Curly.’ «Guillemets.»",
		"https://example.com/a?b=c. mail@x.io. ...",
		strings.Repeat("long clause, ", 40),
		"Hi. Ok. Yes.\n\n\nNo",
		"é… ü. ñ? 日本語。 Test.",
	} {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, in string, chunk uint8) {
		whole, _ := splitAll(in, 0)
		for _, s := range whole {
			if s == "" || strings.Trim(s, " \t\n\r\f\v") != s || strings.ContainsAny(s, "\n*`") {
				t.Fatalf("bad sentence %q from %q", s, in)
			}
		}
		if got, want := strings.Join(whole, " "), normalized(in); got != want {
			t.Fatalf("sentences do not add up to the input:\n got %q\nwant %q", got, want)
		}
		chunked, _ := splitAll(in, int(chunk%16)+1)
		if !slices.Equal(chunked, whole) {
			t.Fatalf("deltas of %d bytes changed the result:\n got %q\nwant %q", chunk%16+1, chunked, whole)
		}
		if utf8.ValidString(in) {
			for _, s := range whole {
				if !utf8.ValidString(s) {
					t.Fatalf("invalid UTF-8 in %q", s)
				}
			}
		}
	})
}

func BenchmarkSplitter(b *testing.B) {
	reply := "Thanks, that is a really useful example. I'd like to dig into the design a little more: " +
		"how did you decide between Postgres and DynamoDB, e.g. for the order history? " +
		"Some teams pick based on cost, others on latency... What mattered most for you? " +
		"Also, how large was the team, roughly 5 or 10 people, and who owned the on-call rotation?\n" +
		"- Take your time.\n- There is no wrong answer."
	// LLM deltas are a few characters each.
	var deltas []string
	for i := 0; i < len(reply); i += 4 {
		deltas = append(deltas, reply[i:min(i+4, len(reply))])
	}
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	var s SentenceSplitter
	for b.Loop() {
		for _, d := range deltas {
			s.Write(d)
		}
		s.Flush()
	}
}
