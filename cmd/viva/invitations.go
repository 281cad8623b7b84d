package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/viva-interviews/viva/internal/cli"
	"github.com/viva-interviews/viva/interviews"
	"github.com/viva-interviews/viva/web"
)

// invitationsCommands are the subcommands of viva invitations: the
// recruiter's invitation actions of the web app, from a terminal.
var invitationsCommands = []command{
	{"revoke", "withdraw a candidate's link: --id ID [--as NAME]", runInvitationsRevoke},
	{"reissue", "replace a candidate's link with a new interview for the same plan: --id ID [--as NAME]", runInvitationsReissue},
}

// runInvitations withdraws or re-issues candidates' links in the
// configured store, through the same interview service as the web app.
func runInvitations(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runSubcommand(ctx, "invitations", invitationsCommands, args, stdin, stdout, stderr)
}

// invitationAction parses the flags of invitation action name and runs
// act with the interview service over the configured store, the interview
// id, who acts (as the audit list names them) and the public address.
func invitationAction(ctx context.Context, name string, args []string, stderr io.Writer,
	act func(svc *interviews.Service, id, who, publicURL string) error) error {
	var id, as *string
	cfg, err := loadConfig("invitations "+name, args, stderr, func(fs *flag.FlagSet) {
		id = fs.String("id", "", "the interview whose link to "+name+" (required)")
		as = fs.String("as", interviews.AuditSystem, "who acts, as the interview's audit list names them (such as your email)")
	})
	if err != nil {
		return err
	}
	if *id == "" {
		return cli.UsageError("--id is required: the interview's id, as the invitations page or viva export shows it")
	}
	store, err := openStore(ctx, cfg, newLogger(stderr, cfg.LogLevel))
	if err != nil {
		return err
	}
	defer closeStore(store)
	svc := &interviews.Service{Store: store, NewRoom: web.RoomName, LinkTTL: cfg.LinkTTL}
	return act(svc, *id, interviews.CleanLine(*as), cfg.PublicURL)
}

func runInvitationsRevoke(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	return invitationAction(ctx, "revoke", args, stderr, func(svc *interviews.Service, id, who, _ string) error {
		if err := svc.Revoke(ctx, id, who); err != nil {
			return fmt.Errorf("the link of %s was not withdrawn: %w", id, err)
		}
		fmt.Fprintf(stdout, "withdrew the link of interview %s\n", id)
		return nil
	})
}

func runInvitationsReissue(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	return invitationAction(ctx, "reissue", args, stderr, func(svc *interviews.Service, id, who, publicURL string) error {
		rec, err := svc.Reissue(ctx, id, who)
		if err != nil {
			return fmt.Errorf("the link of %s was not re-issued: %w", id, err)
		}
		fmt.Fprintf(stdout, "re-issued interview %s as %s\n", id, rec.ID)
		if publicURL != "" {
			fmt.Fprintf(stdout, "send the candidate: %s/interview/%s\n", strings.TrimSuffix(publicURL, "/"), url.PathEscape(rec.ID))
		}
		return nil
	})
}
