package web

import (
	"crypto/rand"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/livekit/protocol/auth"
	"github.com/livekit/protocol/livekit"
	"golang.org/x/text/unicode/norm"

	"github.com/viva-interviews/viva/interviews"
)

// Participant attributes a candidate's token sets, so the agent and the
// room page know who joined without parsing the room name.
const (
	// AttrInterviewID is the interview the candidate joined for.
	AttrInterviewID = "viva.interview_id"
	// AttrCandidateName is the candidate's name as registered.
	AttrCandidateName = "viva.candidate_name"
	// AttrRole is the role applied for.
	AttrRole = "viva.role"
	// AttrLevel is the seniority level (may be empty).
	AttrLevel = "viva.level"
)

// Room name parts: "interview-<slug>-<suffix>".
const (
	roomPrefix = "interview-"
	maxSlugLen = 24
	// roomSuffixLen random base-32 characters (50 bits) keep a name unique
	// among millions of interviews of candidates with the same slug.
	roomSuffixLen = 10
)

// CandidateIdentity is the LiveKit identity of the candidate of interview
// id: unique per interview, stable across reconnects.
func CandidateIdentity(id string) string { return "candidate-" + id }

// RoomName returns a new, unique room name for a candidate called name:
// "interview-<slug>-<10 random characters>", where the slug is the name in
// lower-case ASCII (accents dropped, other characters turned into dashes,
// at most 24 characters), or "candidate" when nothing is left of it.
func RoomName(name string) string {
	return roomPrefix + slug(name) + "-" + strings.ToLower(rand.Text()[:roomSuffixLen])
}

// slug turns a name into lower-case ASCII letters and digits separated by
// single dashes, at most maxSlugLen characters, cut at a dash when possible.
// Accents are dropped ("José" → "jose"), a few letters are spelled out
// ("ß" → "ss"), apostrophes vanish ("O'Brien" → "obrien").
func slug(name string) string {
	var sb strings.Builder
	dash := false
	emit := func(s string) {
		if dash && sb.Len() > 0 {
			sb.WriteByte('-')
		}
		dash = false
		sb.WriteString(s)
	}
	for _, r := range norm.NFKD.String(name) {
		r = unicode.ToLower(r)
		switch {
		case unicode.Is(unicode.Mn, r), r == '\'', r == '’':
			// combining accents ("é" is "e" + U+0301) and apostrophes
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			emit(string(r))
		case spelled[r] != "":
			emit(spelled[r])
		default:
			dash = true
		}
	}
	s := sb.String()
	if len(s) > maxSlugLen {
		cut := s[:maxSlugLen]
		if i := strings.LastIndexByte(cut, '-'); i >= maxSlugLen/2 {
			cut = cut[:i]
		}
		s = strings.TrimRight(cut, "-")
	}
	if s == "" {
		return "candidate"
	}
	return s
}

// spelled spells in ASCII the letters that have no decomposition.
var spelled = map[rune]string{
	'ß': "ss", 'æ': "ae", 'œ': "oe", 'ø': "o", 'ł': "l", 'đ': "d",
	'ð': "d", 'þ': "th", 'ı': "i",
}

// roomTokens signs the candidates' LiveKit tokens, which dispatch the
// interviewer agent into their room, and knows the LiveKit address the
// browser connects to.
type roomTokens struct {
	apiKey, apiSecret string
	agentName         string
	tokenTTL          time.Duration
	rejoinGrace       time.Duration
	clientURL         string // ws:// or wss:// form given to browsers
}

// candidateToken returns a LiveKit token for the candidate of rec: it
// joins rec.Room as CandidateIdentity(rec.ID), named after the candidate,
// with the interview id, name, role and level as attributes; it may publish
// its microphone and data and subscribe; and, when it creates the room, the
// room dispatches the interviewer agent with {"interview_id": rec.ID}. It
// carries no résumé or job-description text.
func (s *roomTokens) candidateToken(rec *interviews.Record) (string, error) {
	meta, err := interviews.Dispatch{InterviewID: rec.ID}.Encode()
	if err != nil {
		return "", fmt.Errorf("web: token dispatch metadata: %w", err)
	}
	grant := &auth.VideoGrant{RoomJoin: true, Room: rec.Room}
	grant.SetCanPublish(true)
	grant.SetCanSubscribe(true)
	grant.SetCanPublishData(true)
	grant.SetCanPublishSources([]livekit.TrackSource{livekit.TrackSource_MICROPHONE})
	grant.SetCanUpdateOwnMetadata(false)
	at := auth.NewAccessToken(s.apiKey, s.apiSecret).
		SetVideoGrant(grant).
		SetIdentity(CandidateIdentity(rec.ID)).
		SetName(rec.Candidate.Name).
		SetValidFor(s.tokenTTL).
		SetAttributes(map[string]string{
			AttrInterviewID:   rec.ID,
			AttrCandidateName: rec.Candidate.Name,
			AttrRole:          rec.Candidate.Role,
			AttrLevel:         rec.Candidate.Level,
		}).
		SetRoomConfig(&livekit.RoomConfiguration{
			Agents:           []*livekit.RoomAgentDispatch{{AgentName: s.agentName, Metadata: meta}},
			DepartureTimeout: departureTimeout(s.rejoinGrace),
		})
	jwt, err := at.ToJWT()
	if err != nil {
		return "", fmt.Errorf("web: signing the room token: %w", err)
	}
	return jwt, nil
}

// issueToken returns a candidate token for rec and logs its issue; when
// the token cannot be signed it answers 500 and returns false.
func (s *site) issueToken(w http.ResponseWriter, r *http.Request, t *roomTokens, rec *interviews.Record) (string, bool) {
	token, err := t.candidateToken(rec)
	if err != nil {
		s.log.Error("web: minting a candidate token", "interview_id", rec.ID, "err", err)
		s.serverError(w, r)
		return "", false
	}
	s.log.Info("web: candidate token issued", "interview_id", rec.ID, "room", rec.Room)
	return token, true
}

// departureTimeout is how long, in seconds, the room outlives the
// candidate's departure: the rejoin grace and a margin, so the interviewer
// (who does not keep a room open by itself) is still in it when the
// candidate comes back. Zero keeps the server's default.
func departureTimeout(grace time.Duration) uint32 {
	if grace <= 0 {
		return 0
	}
	return uint32((grace + departureMargin).Round(time.Second) / time.Second)
}

// departureMargin covers the moments between the interviewer giving up on
// the candidate and leaving the room.
const departureMargin = 10 * time.Second
