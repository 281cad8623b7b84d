package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/user"
	"strings"

	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/interviews/privacy"
)

// eraseName is the erase command's name, for loadConfig and its help.
const eraseName = "erase"

// runErase is "viva erase --email ADDRESS": it erases every interview of
// the candidate with that address (a request to erase their data) — the
// records with their reports, recordings and provider keys — after
// listing them and asking for confirmation (unless --yes). Each erasure
// leaves an entry in the store's erasure log with the interview id and
// what went, and nothing of the candidate.
func runErase(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var email, by *string
	var yes *bool
	cfg, err := loadConfig(eraseName, args, stderr, func(fs *flag.FlagSet) {
		email = fs.String("email", "", "erase every interview of the candidate with this email address (required)")
		yes = fs.Bool("yes", false, "erase without asking for confirmation")
		by = fs.String("by", operatorName(), "who asked for the erasure, kept in the erasure log")
	})
	if err != nil {
		return err
	}
	if err := checkEmailFlag(*email, true); err != nil {
		return err
	}
	if strings.TrimSpace(*by) == "" {
		return cli.UsageError("--by is empty: name who asked for the erasure, such as dpo@example.com")
	}
	log := newLogger(stderr, cfg.LogLevel)
	store, err := openBackend(cfg, log)
	if err != nil {
		return err
	}
	defer closeStore(store)
	found, err := privacy.Find(ctx, store, *email)
	if err != nil {
		return fmt.Errorf("finding the interviews of %s: %w", *email, err)
	}
	if len(found) == 0 {
		fmt.Fprintf(stdout, "no interviews of %s are stored: nothing to erase\n", *email)
		return nil
	}
	fmt.Fprintf(stdout, "%d interviews of %s:\n", len(found), *email)
	for _, s := range found {
		fmt.Fprintf(stdout, "  %s  registered %s  %-14s %s, %s\n", s.ID, s.CreatedAt.UTC().Format("2006-01-02"), s.Status, s.Candidate.Name, s.Candidate.Role)
	}
	if !*yes && !confirm(stdin, stdout, "Erase them with their reports, recordings and keys? This cannot be undone. Type yes to erase: ") {
		return errors.New("nothing erased: answer yes to erase, or pass --yes")
	}
	recs, err := openRecordings(ctx, cfg, false)
	if err != nil {
		return err
	}
	e := &privacy.Eraser{Store: store, Recordings: recs}
	erased, failed := 0, 0
	for _, s := range found {
		d, err := e.Erase(ctx, s.ID, *by, interviews.ErasureRequested)
		switch {
		case errors.Is(err, interviews.ErrNotFound):
			fmt.Fprintf(stdout, "%s was erased meanwhile\n", s.ID)
		case err != nil:
			failed++
			fmt.Fprintf(stdout, "not erased %s: %v\n", s.ID, err)
		default:
			erased++
			fmt.Fprintf(stdout, "erased %s: %s\n", s.ID, d)
		}
	}
	fmt.Fprintf(stdout, "erased %d interviews of %s; the erasure log keeps their ids and what went, nothing of the candidate\n", erased, *email)
	if failed > 0 {
		return fmt.Errorf("%d interviews of %s were not erased: see above, then run viva erase again", failed, *email)
	}
	return nil
}

// confirm asks question on out and reports whether the line read from in
// is yes.
func confirm(in io.Reader, out io.Writer, question string) bool {
	fmt.Fprint(out, question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "yes" || answer == "y"
}

// operatorName is who runs this command, for the erasure log: the login
// name, or "operator".
func operatorName() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "operator"
}
