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

	"golang.org/x/sys/unix"

	"github.com/viva-interviews/viva/accounts"
	"github.com/viva-interviews/viva/config"
)

// usersCommands are the subcommands of viva users.
var usersCommands = []command{
	{"add", "add a user: --email ADDRESS --role admin|recruiter|reviewer (password read from the terminal or stdin, or --generate-password)", runUsersAdd},
	{"list", "list the users, their roles and how many API tokens each has", runUsersList},
	{"remove", "remove a user and their API tokens: --email ADDRESS", runUsersRemove},
	{"token", "create an API token for a user and print it once: --email ADDRESS", runUsersToken},
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
			fmt.Fprintf(stderr, "  %-7s %s\n", c.name, c.summary)
		}
		if len(args) == 0 {
			return usageError("name a %s command: %s", group, list)
		}
		return flag.ErrHelp
	}
	for _, c := range cmds {
		if c.name == args[0] {
			return c.run(ctx, args[1:], stdin, stdout, stderr)
		}
	}
	return usageError("unknown %s command %q: use %s", group, args[0], list)
}

// openAccounts opens the users file the configuration names, with the
// production hashing parameters.
func openAccounts(cfg *config.Config) (*accounts.Service, error) {
	store, err := accounts.OpenFile(cfg.ResolvedUsersFile())
	if err != nil {
		return nil, err
	}
	return accounts.NewService(store, accounts.DefaultParams, nil)
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
		return usageError("--role: %q is not a role: use admin, recruiter or reviewer", *role)
	}
	if *email == "" {
		return usageError("--email is required, such as --email ada@example.com")
	}
	svc, err := openAccounts(cfg)
	if err != nil {
		return err
	}
	var password string
	if *generate {
		b := make([]byte, 18)
		_, _ = rand.Read(b) // crypto/rand.Read never fails
		password = base64.RawURLEncoding.EncodeToString(b)
	} else if password, err = readPassword(stdin, stderr); err != nil {
		return err
	}
	u, err := svc.AddUser(ctx, *email, r, password)
	if errors.Is(err, accounts.ErrExists) {
		return fmt.Errorf("%s already has an account: remove it first with viva users remove --email %s", accounts.NormalizeEmail(*email), accounts.NormalizeEmail(*email))
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Added %s (%s) to %s.\n", u.Email, u.Role, cfg.ResolvedUsersFile())
	if *generate {
		fmt.Fprintf(stdout, "Password: %s\n(shown once: only its hash is stored)\n", password)
	}
	return nil
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
		return "", usageError("no password on stdin: pipe one in (printf '%%s\\n' \"$PASSWORD\" | viva users add …), type it at a terminal, or pass --generate-password")
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
	svc, err := openAccounts(cfg)
	if err != nil {
		return err
	}
	users, err := svc.Store().List(ctx)
	if err != nil {
		return err
	}
	if len(users) == 0 {
		fmt.Fprintf(stdout, "No users in %s: add one with viva users add --email you@example.com --role admin\n", cfg.ResolvedUsersFile())
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

// emailFlag parses a users subcommand that takes only --email.
func emailFlag(name string, args []string, stderr io.Writer) (*config.Config, string, error) {
	var email *string
	cfg, err := loadConfig("users "+name, args, stderr, func(fs *flag.FlagSet) {
		email = fs.String("email", "", "the user's email address (required)")
	})
	if err != nil {
		return nil, "", err
	}
	if *email == "" {
		return nil, "", usageError("--email is required, such as --email ada@example.com")
	}
	return cfg, accounts.NormalizeEmail(*email), nil
}

func runUsersRemove(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, email, err := emailFlag("remove", args, stderr)
	if err != nil {
		return err
	}
	svc, err := openAccounts(cfg)
	if err != nil {
		return err
	}
	if err := svc.Store().Remove(ctx, email); errors.Is(err, accounts.ErrNotFound) {
		return fmt.Errorf("%s has no account (viva users list shows who has)", email)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Removed %s; their sessions and API tokens stop working at once.\n", email)
	return nil
}

func runUsersToken(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, email, err := emailFlag("token", args, stderr)
	if err != nil {
		return err
	}
	svc, err := openAccounts(cfg)
	if err != nil {
		return err
	}
	token, err := svc.CreateToken(ctx, email)
	if errors.Is(err, accounts.ErrNotFound) {
		return fmt.Errorf("%s has no account: add it first with viva users add --email %s --role …", email, email)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "API token for %s (shown once: only its hash is stored):\n%s\n\nSend it as: Authorization: Bearer <token>\n", email, token)
	return nil
}
