package analysis

import "testing"

// TestPlausible: garble pocketsphinx produced here from flite speech it
// could not follow (another voice, faster speech, noise) is caught by its
// shape; what people say, as any engine writes it, passes. Grammatical
// nonsense ("but ah the odd about that an adult and i want a blunder")
// is beyond a shape check and is not listed.
func TestPlausible(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		// pocketsphinx garble.
		{"are a problem want to rush out and are caught up and you are up what it did an a", false},
		{"three hundred and the and that can that's", false},
		{"ah what ah what a honduran do", false},
		{"ah what", false},
		{"what while", false},
		{"uh um hm", false},
		{"the the the and a of the", false},
		{"and i were a parent or walk or talk the and", false},
		{"i will still are a the good", false},
		// Speech, punctuated or as pocketsphinx writes it when it follows.
		{"Three years.", true},
		{"Kubernetes, mostly.", true},
		{"no", false}, // nothing to quote
		{"Go, Kafka and PostgreSQL.", true},
		{"About eight years, mostly in fintech.", true},
		{"Because I am excited about the payments domain.", true},
		{"because i am excited about the payments domain and i want to build ledger that never lose money", true},
		{"i lead a team of six engineers and we're able to settlement pipeline in belgium", true},
		{"the hardest problem was a race condition our cupcake consumers that duplicated payments", true},
		{"yes i can hear you fine", true},
		{"we used the stairs with logical replication and it was fine", true},
		{"um i think uh we used kafka um for the ledger", true},
		{"honestly i don't remember the exact numbers", true},
		{"I'd rather not go into that, it's under NDA.", true},
		{"I think it was mostly about latency.", true},
		{"so basically the main thing for me is the people and the mission", true},
		{"the team and the product", true},
		{"we moved from the the old monolith to services", true},
		{"My manager Priya set the direction and I worked closely with Tom from finance on the numbers.", true},
		{"I tuned the query planner, rewrote our worst reports to use partial indexes, and cut p99 from 800ms to 90ms.", true},
		{"What draws me to this role is the chance to mentor and to work on exactly once delivery.", true},
		{"I'd like to grow into a staff role and work on distributed systems.", true},
		{"I haven't used Rust.", true},
		{"no PCI-DSS experience", true},
	} {
		if got := Plausible(tc.text); got != tc.want {
			t.Errorf("Plausible(%q) = %t, want %t", tc.text, got, tc.want)
		}
	}
}
