package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/config"
	"github.com/viva-interviews/viva/internal/cli"
)

// usersCommands are the subcommands of viva users.
var usersCommands = []command{
	{"add", "add a user: --email ADDRESS --role admin|recruiter|reviewer (password read from the terminal or stdin, or --generate-password)", runUsersAdd},
	{"list", "list the users, their roles and how many API tokens each has", runUsersList},
	{"passwd", "set a user's new password, ending their sessions and API tokens: EMAIL (read as add reads it, or --generate-password)", runUsersPasswd},
	{"role", "change a user's role, ending their sessions and API tokens: --email ADDRESS --role admin|recruiter|reviewer", runUsersRole},
	{"remove", "remove a user and their API tokens: --email ADDRESS", runUsersRemove},
	{"token", "create an API token for a user and print it once: --email ADDRESS [--valid-for 90d]", runUsersToken},
	{"tokens", "list a user's API tokens and when each expires: --email ADDRESS", runUsersTokens},
	{"revoke-token", "revoke one API token of a user: --email ADDRESS --id ID (as tokens lists it)", runUsersRevokeToken},
}

// runUsers manages the web app's user accounts.
func runUsers(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "users", usersCommands, args, stdin, stdout, stderr)
}

// runSubcommand runs the subcommand of viva group that args name, or
// prints the group's commands for -h (and with a usage error for none).
func runSubcommand(ctx context.Context, group string, cmds []command, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	list := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintf(stderr, "Usage: viva %s COMMAND [flags]\n\nCommands:\n", group)
		for _, c := range cmds {
			fmt.Fprintf(stderr, "  %-12s %s\n", c.name, c.summary)
		}
		if len(args) == 0 {
			return cli.UsageError("name a %s command: %s", group, list)
		}
		return flag.ErrHelp
	}
	for _, c := range cmds {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	return cli.UsageError("unknown %s command %q: use %s", group, args[0], list)
}

func runUsersAdd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var email, role *string
	var generate *bool
	cfg, err := loadConfig("users add", args, stderr, func(fs *flag.FlagSet) {
		email = fs.String("email", "", "the user's email address (required)")
		role = fs.String("role", "", "the user's role: admin, recruiter or reviewer (required)")
		generate = fs.Bool("generate-password", false, "generate a password and print it once instead of reading one")
	})
	if err != nil {
		return err
	}
	r, err := accounts.ParseRole(*role)
	if err != nil {
		return cli.UsageError("--role: %q is not a role: use admin, recruiter or reviewer", *role)
	}
	if *email == "" {
		return cli.UsageError("--email is required, such as --email ada@example.com")
	}
	svc, err := openAccounts(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer svc.Close()
	password, err := newPassword(*generate, stdin, stderr)
	if err != nil {
		return err
	}
	u, err := svc.AddUser(ctx, *email, r, password)
	if errors.Is(err, accounts.ErrExists) {
		return fmt.Errorf("%s already has an account: remove it first with viva users remove --email %s", accounts.NormalizeEmail(*email), accounts.NormalizeEmail(*email))
	}
	if err != nil {
		return weakPassword(err)
	}
	fmt.Fprintf(stdout, "Added %s (%s) to %s.\n", u.Email, u.Role, svc.Where)
	if *generate {
		fmt.Fprintf(stdout, "Password: %s\n(shown once: only its hash is stored)\n", password)
	}
	return nil
}

// newPassword returns a generated password when generate is set, else
// one read with readPassword.
func newPassword(generate bool, stdin io.Reader, stderr io.Writer) (string, error) {
	if !generate {
		return readPassword(stdin, stderr)
	}
	b := make([]byte, 18)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// weakPassword adds to a refusal by the password policy how to have a
// strong password made.
func weakPassword(err error) error {
	if errors.Is(err, accounts.ErrWeakPassword) {
		return cli.UsageError("%v; or pass --generate-password to have one made", err)
	}
	return err
}

// readPassword reads a new password: from a terminal twice, without echo;
// else the first line of stdin.
func readPassword(stdin io.Reader, stderr io.Writer) (string, error) {
	f, ok := stdin.(*os.File)
	if ok {
		if _, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS); err == nil {
			first, err := readHidden(f, stderr, "Password (at least 12 characters): ")
			if err != nil {
				return "", err
			}
			again, err := readHidden(f, stderr, "Password again: ")
			if err != nil {
				return "", err
			}
			if first != again {
				return "", errors.New("the two passwords differ: run the command again")
			}
			return first, nil
		}
	}
	line, err := bufio.NewReader(io.LimitReader(stdin, accounts.MaxPasswordLen+2)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the password from stdin: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", cli.UsageError("no password on stdin: pipe one in (printf '%%s\\n' \"$PASSWORD\" | viva users add|passwd …), type it at a terminal, or pass --generate-password")
	}
	return line, nil
}

// readHidden prompts on stderr and reads a line from the terminal f with
// echo turned off.
func readHidden(f *os.File, stderr io.Writer, prompt string) (string, error) {
	fd := int(f.Fd())
	old, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return "", fmt.Errorf("reading the terminal: %w", err)
	}
	quiet := *old
	quiet.Lflag &^= unix.ECHO
	quiet.Lflag |= unix.ICANON
	if err := unix.IoctlSetTermios(fd, unix.TCSETS, &quiet); err != nil {
		return "", fmt.Errorf("turning off the terminal's echo: %w", err)
	}
	defer func() {
		_ = unix.IoctlSetTermios(fd, unix.TCSETS, old)
		fmt.Fprintln(stderr)
	}()
	fmt.Fprint(stderr, prompt)
	line, err := bufio.NewReader(io.LimitReader(f, accounts.MaxPasswordLen+2)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", fmt.Errorf("reading the password: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}

func runUsersList(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := loadConfig("users list", args, stderr, nil)
	if err != nil {
		return err
	}
	svc, err := openAccounts(ctx, cfg, nil)
	if err != nil {
		return err
	}
	defer svc.Close()
	users, err := svc.Store().List(ctx)
	if err != nil {
		return err
	}
	if len(users) == 0 {
		fmt.Fprintf(stdout, "No users in %s: add one with viva users add --email you@example.com --role admin\n", svc.Where)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "EMAIL\tROLE\tAPI TOKENS\tADDED")
	for _, u := range users {
		ids := make([]string, len(u.Tokens))
		for i, t := range u.Tokens {
			ids[i] = t.ID + "…"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", u.Email, u.Role, strings.Join(append([]string{fmt.Sprint(len(u.Tokens))}, ids...), " "), u.CreatedAt.Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

// emailFlag parses a users subcommand that takes --email (or the address
// as its first argument) and the flags more registers, and opens the
// accounts.
func emailFlag(name string, args []string, stderr io.Writer, more func(*flag.FlagSet)) (*accounts.Service, string, error) {
	var email *string
	var positional string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		positional, args = args[0], args[1:]
	}
	cfg, err := loadConfig("users "+name, args, stderr, func(fs *flag.FlagSet) {
		email = fs.String("email", positional, "the user's email address (required; or give it as the first argument)")
		if more != nil {
			more(fs)
		}
	})
	if err != nil {
		return nil, "", err
	}
	if *email == "" {
		return nil, "", cli.UsageError("--email is required, such as --email ada@example.com")
	}
	svc, err := openAccounts(context.Background(), cfg, nil)
	if err != nil {
		return nil, "", err
	}
	return svc.Service, accounts.NormalizeEmail(*email), nil
}

// noAccount turns ErrNotFound for the user email into a message saying
// how to see who has an account.
func noAccount(email string, err error) error {
	if errors.Is(err, accounts.ErrNotFound) {
		return fmt.Errorf("%s has no account (viva users list shows who has; viva users add adds one)", email)
	}
	return err
}

// revokedNote says that a user's sessions ended and how many API tokens
// were revoked with them.
func revokedNote(revoked int) string {
	note := "their sessions have ended"
	if revoked > 0 {
		note += fmt.Sprintf(" and their %d API token(s) were revoked (viva users token creates new ones)", revoked)
	}
	return note
}

func runUsersPasswd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var generate *bool
	svc, email, err := emailFlag("passwd", args, stderr, func(fs *flag.FlagSet) {
		generate = fs.Bool("generate-password", false, "generate a password and print it once instead of reading one")
	})
	if err != nil {
		return err
	}
	if _, err := svc.Store().Get(ctx, email); err != nil {
		return noAccount(email, err)
	}
	password, err := newPassword(*generate, stdin, stderr)
	if err != nil {
		return err
	}
	revoked, err := svc.SetPassword(ctx, email, password)
	if err != nil {
		return weakPassword(noAccount(email, err))
	}
	fmt.Fprintf(stdout, "Changed the password of %s; %s.\n", email, revokedNote(revoked))
	if *generate {
		fmt.Fprintf(stdout, "Password: %s\n(shown once: only its hash is stored)\n", password)
	}
	return nil
}

func runUsersRole(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var role *string
	svc, email, err := emailFlag("role", args, stderr, func(fs *flag.FlagSet) {
		role = fs.String("role", "", "the user's new role: admin, recruiter or reviewer (required)")
	})
	if err != nil {
		return err
	}
	r, err := accounts.ParseRole(*role)
	if err != nil {
		return cli.UsageError("--role: %q is not a role: use admin, recruiter or reviewer", *role)
	}
	u, err := svc.Store().Get(ctx, email)
	if err != nil {
		return noAccount(email, err)
	}
	if u.Role == r {
		fmt.Fprintf(stdout, "%s is a %s already; nothing changed.\n", email, r)
		return nil
	}
	revoked, err := svc.SetRole(ctx, email, r)
	if err != nil {
		return noAccount(email, err)
	}
	fmt.Fprintf(stdout, "%s is now a %s; %s.\n", email, r, revokedNote(revoked))
	return nil
}

func runUsersRemove(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	svc, email, err := emailFlag("remove", args, stderr, nil)
	if err != nil {
		return err
	}
	if err := svc.Store().Remove(ctx, email); err != nil {
		return noAccount(email, err)
	}
	fmt.Fprintf(stdout, "Removed %s; their sessions and API tokens stop working at once, and do not come back if the address is added again.\n", email)
	return nil
}

func runUsersToken(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var validFor *string
	svc, email, err := emailFlag("token", args, stderr, func(fs *flag.FlagSet) {
		validFor = fs.String("valid-for", "90d", "how long the token works: days (30d) or hours (36h), at most 730d")
	})
	if err != nil {
		return err
	}
	ttl, err := config.ParseDuration(*validFor)
	if err != nil || ttl < time.Minute || ttl > accounts.MaxTokenTTL {
		return cli.UsageError("--valid-for %q: give a lifetime from 1m to 730d, such as 90d or 36h", *validFor)
	}
	token, stored, err := svc.CreateTokenValidFor(ctx, email, ttl)
	if errors.Is(err, accounts.ErrNotFound) {
		return fmt.Errorf("%s has no account: add it first with viva users add --email %s --role …", email, email)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "API token %s… for %s, valid until %s (shown once: only its hash is stored):\n%s\n\nSend it as: Authorization: Bearer <token>\nRevoke it with: viva users revoke-token --email %s --id %s\n",
		stored.ID, email, stored.Expires().Format(time.DateTime+" MST"), token, email, stored.ID)
	return nil
}

func runUsersTokens(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	svc, email, err := emailFlag("tokens", args, stderr, nil)
	if err != nil {
		return err
	}
	u, err := svc.Store().Get(ctx, email)
	if err != nil {
		return noAccount(email, err)
	}
	if len(u.Tokens) == 0 {
		fmt.Fprintf(stdout, "%s has no API tokens: viva users token --email %s creates one.\n", email, email)
		return nil
	}
	now := time.Now()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCREATED\tEXPIRES\tSTATE")
	for _, t := range u.Tokens {
		state := "works"
		if t.Expired(now) {
			state = "expired"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.ID, t.CreatedAt.Format("2006-01-02 15:04"), t.Expires().Format("2006-01-02 15:04"), state)
	}
	return tw.Flush()
}

func runUsersRevokeToken(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var id *string
	svc, email, err := emailFlag("revoke-token", args, stderr, func(fs *flag.FlagSet) {
		id = fs.String("id", "", "the token's ID, as viva users tokens lists it (required)")
	})
	if err != nil {
		return err
	}
	if *id == "" {
		return cli.UsageError("--id is required: viva users tokens --email %s lists the IDs", email)
	}
	if err := svc.RevokeToken(ctx, email, *id); errors.Is(err, accounts.ErrNotFound) {
		return fmt.Errorf("%s has no account or no token %s: viva users tokens --email %s lists its tokens", email, *id, email)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Revoked API token %s of %s; it stops working at once.\n", strings.TrimRight(*id, "…"), email)
	return nil
}
