package storetest

import (
	"errors"
	"reflect"
	"testing"

	"github.com/viva-interviews/viva/interviews"
)

// invitationFixture is one invitation in each state at at(50), from two
// recruiters.
func invitationFixture() []*interviews.Record {
	created := NewRecord("i1", "Created", "Engineer", interviews.StatusScheduled, at(1))
	created.ExpiresAt, created.CreatedBy = ptr(at(100)), "rita@example.com"
	opened := NewRecord("i2", "Opened", "Engineer", interviews.StatusScheduled, at(2))
	opened.OpenedAt, opened.CreatedBy = ptr(at(3)), "rita@example.com"
	expired := NewRecord("i3", "Expired", "Engineer", interviews.StatusScheduled, at(3))
	expired.ExpiresAt, expired.OpenedAt, expired.CreatedBy = ptr(at(10)), ptr(at(4)), "RITA@example.com"
	running := NewRecord("i4", "Running", "Engineer", interviews.StatusInProgress, at(4))
	running.ExpiresAt, running.CreatedBy = ptr(at(10)), "sam@example.com"
	done := NewRecord("i5", "Done", "Engineer", interviews.StatusCompleted, at(5))
	done.CreatedBy = "sam@example.com"
	revoked := NewRecord("i6", "Revoked", "Engineer", interviews.StatusScheduled, at(6))
	revoked.ExpiresAt, revoked.CreatedBy = ptr(at(10)), "sam@example.com"
	revoked.Revoke("sam@example.com", at(7))
	revokedDone := NewRecord("i7", "Revoked after", "Engineer", interviews.StatusCompleted, at(7))
	revokedDone.Revoke("admin@example.com", at(30))
	return []*interviews.Record{created, opened, expired, running, done, revoked, revokedDone}
}

// listCase is one listing and the ids it should return, all of them.
type listCase struct {
	name string
	opts interviews.ListOptions
	want []string
}

// checkLists runs List for every case on s.
func checkLists(t *testing.T, s interviews.Store, cases []listCase) {
	t.Helper()
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			page, err := s.List(t.Context(), tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(page); !reflect.DeepEqual(got, tt.want) || page.Total != len(tt.want) {
				t.Fatalf("List(%+v) = %v total %d, want %v", tt.opts, got, page.Total, tt.want)
			}
		})
	}
}

func testListInvitations(t *testing.T, open Opener) {
	s := open(Options{})
	for _, r := range invitationFixture() {
		if err := s.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	checkLists(t, s, []listCase{
		{"created", interviews.ListOptions{Invitations: []interviews.InvitationState{interviews.InvitationCreated}, At: at(50)}, []string{"i1"}},
		{"opened", interviews.ListOptions{Invitations: []interviews.InvitationState{interviews.InvitationOpened}, At: at(50)}, []string{"i2"}},
		{"expired, though opened", interviews.ListOptions{Invitations: []interviews.InvitationState{interviews.InvitationExpired}, At: at(50)}, []string{"i3"}},
		{"in progress, past its expiry", interviews.ListOptions{Invitations: []interviews.InvitationState{interviews.InvitationInProgress}, At: at(50)}, []string{"i4"}},
		{"completed", interviews.ListOptions{Invitations: []interviews.InvitationState{interviews.InvitationCompleted}, At: at(50)}, []string{"i5"}},
		{"revoked, whatever else", interviews.ListOptions{Invitations: []interviews.InvitationState{interviews.InvitationRevoked}, At: at(50)}, []string{"i7", "i6"}},
		{"the moment decides", interviews.ListOptions{Invitations: []interviews.InvitationState{interviews.InvitationExpired}, At: at(200)}, []string{"i3", "i1"}},
		{"not yet expired", interviews.ListOptions{Invitations: []interviews.InvitationState{interviews.InvitationCreated}, At: at(5)}, []string{"i1"}},
		{"still open: created or opened", interviews.ListOptions{Invitations: []interviews.InvitationState{interviews.InvitationCreated, interviews.InvitationOpened}, At: at(50)}, []string{"i2", "i1"}},
		{"closed unused: expired or revoked", interviews.ListOptions{Invitations: []interviews.InvitationState{interviews.InvitationExpired, interviews.InvitationRevoked}, At: at(50)}, []string{"i7", "i6", "i3"}},
		{"creator, any case", interviews.ListOptions{CreatedBy: "Rita@Example.com"}, []string{"i3", "i2", "i1"}},
		{"creator and state", interviews.ListOptions{CreatedBy: "sam@example.com", Invitations: []interviews.InvitationState{interviews.InvitationCompleted}, At: at(50)}, []string{"i5"}},
	})
	if _, err := s.List(t.Context(), interviews.ListOptions{Invitations: []interviews.InvitationState{"lost"}}); err == nil {
		t.Error("an unknown invitation state was accepted")
	}
}

// testWalk: Walk visits what List pages through, in the same order, and
// stops at fn's error.
func testWalk(t *testing.T, open Opener) {
	s := open(Options{})
	recs := append(listFixture(), invitationFixture()...)
	for i, r := range recs {
		r.Report = &interviews.Report{Status: interviews.ReportReady, OverallScore: float64(i * 7 % 10)}
		if err := s.Save(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	for _, opts := range []interviews.ListOptions{{}, {Sort: interviews.SortScore}, {Role: "engineer"},
		{CreatedBy: "sam@example.com", Sort: interviews.SortDecision}, {Invitations: []interviews.InvitationState{interviews.InvitationCompleted}}} {
		var walked []string
		err := s.Walk(t.Context(), opts, func(sum interviews.Summary) error {
			walked = append(walked, sum.ID)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		for offset := 0; ; offset += 2 {
			opts.Offset, opts.Limit = offset, 2
			page, err := s.List(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, ids(page)...)
			if offset+2 >= page.Total {
				break
			}
		}
		if !reflect.DeepEqual(walked, listed) || len(walked) == 0 {
			t.Errorf("Walk(%+v) = %v, List pages = %v", opts, walked, listed)
		}
	}
	stop := errors.New("enough")
	n := 0
	err := s.Walk(t.Context(), interviews.ListOptions{}, func(interviews.Summary) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Errorf("Walk after fn's error: %v after %d summaries, want the error after 3", err, n)
	}
	if err := s.Walk(t.Context(), interviews.ListOptions{Sort: "height"}, func(interviews.Summary) error { return nil }); err == nil {
		t.Error("Walk accepted an unknown order")
	}
}
