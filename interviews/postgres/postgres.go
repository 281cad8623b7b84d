// Package postgres keeps interview records in PostgreSQL, so that workers
// on several machines and the web app share one store. It implements
// interviews.Store with github.com/jackc/pgx/v5.
//
// Each record is a row: the whole record as JSONB, beside the columns that
// List filters, searches and orders by (status, role, candidate name,
// creation time, report score, decision) and the summary it returns. A
// sequence numbers every write, so a row's version is its Summary.Revision.
// Leases are an owner and an expiry changed in one statement; provider keys
// are sealed bytes. Open applies the schema's migrations, numbered and
// embedded in the binary, under an advisory lock, so processes starting
// together migrate once.
package postgres

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/viva-interviews/viva/interviews"
)

// OpTimeout bounds every call of the store, so a database that stops
// answering fails a save instead of hanging the session that makes it.
const OpTimeout = 30 * time.Second

// urlHelp ends the errors about the database URL: the form to use.
const urlHelp = "set VIVA_DATABASE_URL (or --database-url) to postgres://USER:PASSWORD@HOST:5432/DATABASE"

// Store keeps interview records in a PostgreSQL database. It is safe for
// concurrent use, also by processes on other machines sharing the database.
type Store struct {
	pool   *pgxpool.Pool
	now    func() time.Time   // the clock of leases and the sweep; nil is time.Now
	sealer *interviews.Sealer // seals provider keys; nil refuses them
	where  string             // database and host, without credentials, for messages
}

var _ interviews.Store = (*Store)(nil)

// Open connects to the database at url (postgres://…), checks it answers,
// and applies the migrations it lacks. Its errors say what to do: fix the
// URL, start or reach the server, fix the user or password, create the
// database. No error or message ever holds the URL's password.
func Open(ctx context.Context, url string) (*Store, error) {
	if strings.TrimSpace(url) == "" {
		return nil, errors.New("postgres: no database URL given: " + urlHelp)
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// The parser's message may quote the URL; say what is wrong
		// without it.
		return nil, errors.New("postgres: the database URL is not a valid PostgreSQL URL: " + urlHelp)
	}
	cc := cfg.ConnConfig
	s := &Store{where: fmt.Sprintf("database %s on %s as user %s", cc.Database, net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port))), cc.User)}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", s.where, err)
	}
	s.pool = pool
	ctx, cancel := context.WithTimeout(ctx, OpTimeout)
	defer cancel()
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, s.connectError(err)
	}
	if err := s.Migrate(ctx, "schema_migrations", migrations); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// connectError explains why the first connection failed.
func (s *Store) connectError(err error) error {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		switch pg.Code {
		case "28P01", "28000": // invalid_password, invalid_authorization_specification
			return fmt.Errorf("postgres: %s: the server refused the user or password (%s): check the user and password in the database URL", s.where, pg.Message)
		case "3D000": // invalid_catalog_name
			return fmt.Errorf("postgres: %s: the database does not exist: create it (createdb) or name another in the database URL", s.where)
		}
	}
	return fmt.Errorf("postgres: cannot reach %s: %w: check that PostgreSQL runs there and that the URL's host and port are right", s.where, err)
}

// Close closes the store's connections.
func (s *Store) Close() { s.pool.Close() }

// SetClock makes the store read the time from now (leases and the sweep):
// tests pass a fake clock. Call it before the store is shared.
func (s *Store) SetClock(now func() time.Time) { s.now = now }

func (s *Store) clock() time.Time {
	if s.now != nil {
		return s.now()
	}
	return time.Now()
}

// Locate says where the record of id is kept: "postgres: <id>".
func (s *Store) Locate(id string) string { return "postgres: " + id }

// Where names the database, its host and user, without a password.
func (s *Store) Where() string { return s.where }

// Pool returns the store's connections, for another part of viva keeping
// its tables in the same database (accounts/postgres).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// opContext bounds one operation of the caller's ctx by OpTimeout.
func opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, OpTimeout)
}

//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock is the advisory lock key held while migrating: any number
// shared by every viva process.
const migrationLock = 0x76697661 // "viva"

// migration is one numbered schema change.
type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations returns the migrations in fsys's directory migrations in
// order; a file is named NNNN_what.sql.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s is not named NNNN_what.sql", base)
		}
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: base, sql: string(data)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i := 1; i < len(out); i++ {
		if out[i].version == out[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share the number %d: renumber the newer one", out[i-1].name, out[i].name, out[i].version)
		}
	}
	return out, nil
}

// Migrate applies the migrations in fsys's directory migrations
// (NNNN_what.sql) that the database lacks, each in its own transaction
// recorded in the table named table, holding an advisory lock so that
// processes starting at once apply each migration once. The interview
// store's own are recorded in schema_migrations; another part of viva
// keeping its tables in the same database (accounts/postgres) passes its
// own table, so each numbers its migrations alone.
func (s *Store) Migrate(ctx context.Context, table string, fsys fs.FS) error {
	all, err := loadMigrations(fsys)
	if err != nil {
		return fmt.Errorf("postgres: reading migrations: %w", err)
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return s.connectError(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrationLock); err != nil {
		return s.writeError("taking the migration lock", err)
	}
	defer func() {
		_, _ = conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", migrationLock)
	}()
	ident := pgx.Identifier{table}.Sanitize()
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+ident+` (
		version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return s.writeError("creating "+table, err)
	}
	rows, err := conn.Query(ctx, "SELECT version FROM "+ident)
	if err != nil {
		return fmt.Errorf("postgres: reading %s: %w", table, err)
	}
	applied, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return fmt.Errorf("postgres: reading %s: %w", table, err)
	}
	if len(all) > 0 && len(applied) > 0 && int(slices.Max(applied)) > all[len(all)-1].version {
		return fmt.Errorf("postgres: %s has schema version %d, newer than this viva knows (%d): upgrade viva", s.where, slices.Max(applied), all[len(all)-1].version)
	}
	for _, m := range all {
		if slices.Contains(applied, int32(m.version)) {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO "+ident+" (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return s.writeError("applying migration "+m.name, err)
		}
	}
	return nil
}

// row is what a write stores of a record besides its JSON.
type row struct {
	record, summary []byte
	status          string
	roleLower       string
	nameLower       string
	createdAt       time.Time
	createdNS       int64
	score           *float64
	decisionRank    int
	createdByLower  string
	linkState       string // the invitation's state but for its expiry
	expiresNS       *int64 // when the link lapses; nil: never, or started
}

// encode validates r and returns its row.
func encode(r *interviews.Record) (row, error) {
	if err := r.Validate(); err != nil {
		return row{}, err
	}
	data, err := json.Marshal(r)
	if err != nil {
		return row{}, fmt.Errorf("encode record %s: %w", r.ID, err)
	}
	sum := interviews.Summarize(r)
	sumData, err := json.Marshal(sum)
	if err != nil {
		return row{}, fmt.Errorf("encode summary of %s: %w", r.ID, err)
	}
	return row{
		record: scrubNUL(data), summary: scrubNUL(sumData), status: string(r.Status),
		roleLower: strings.ToLower(r.Candidate.Role), nameLower: strings.ToLower(r.Candidate.Name),
		createdAt: r.CreatedAt, createdNS: orderNS(r.CreatedAt), score: sum.Score,
		decisionRank:   interviews.DecisionRank(sum.Decision),
		createdByLower: strings.ToLower(r.CreatedBy), linkState: string(sum.Invitation(time.Time{})),
		expiresNS: linkExpiry(sum),
	}, nil
}

// linkExpiry is when the interview's link lapses, as orderNS: nil when it
// never does, or when the interview started (a started interview stays
// joinable). At the zero time nothing has lapsed yet, so a row's
// link_state (sum.Invitation(time.Time{})) with this says the state at
// any moment.
func linkExpiry(sum interviews.Summary) *int64 {
	if sum.ExpiresAt == nil || sum.StartedAt != nil {
		return nil
	}
	ns := orderNS(*sum.ExpiresAt)
	return &ns
}

// orderNS is t in nanoseconds since 1970 for ordering (timestamptz keeps
// microseconds only), clamped to the int64 range.
func orderNS(t time.Time) int64 {
	switch {
	case t.Before(time.Unix(0, math.MinInt64)):
		return math.MinInt64
	case t.After(time.Unix(0, math.MaxInt64)):
		return math.MaxInt64
	}
	return t.UnixNano()
}

// scrubNUL replaces the escaped NUL characters of JSON text (\u0000),
// which PostgreSQL's jsonb cannot hold, with U+FFFD, so that a stray NUL
// in a transcript never fails a save.
func scrubNUL(data []byte) []byte {
	const nul = `\u0000`
	if !strings.Contains(string(data), nul) {
		return data
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' {
			out = append(out, data[i])
			continue
		}
		if strings.HasPrefix(string(data[i:]), nul) {
			out = append(out, `\ufffd`...)
			i += len(nul) - 1
			continue
		}
		// Any other escape: copy the backslash and the escaped byte, so an
		// escaped backslash followed by "u0000" stays text.
		out = append(out, data[i])
		if i+1 < len(data) {
			i++
			out = append(out, data[i])
		}
	}
	return out
}

// upsertSQL writes a whole row; Create adds ON CONFLICT DO NOTHING, Save
// and Update replace.
const (
	insertSQL = `INSERT INTO interviews (id, record, summary, status, role_lower, name_lower, created_at, created_ns, score, decision_rank,
		created_by_lower, link_state, expires_ns)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`
	replaceSQL = `, version = nextval('interview_versions'), updated_at = now()`
	upsertSQL  = insertSQL + ` ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record, summary = EXCLUDED.summary,
		status = EXCLUDED.status, role_lower = EXCLUDED.role_lower, name_lower = EXCLUDED.name_lower,
		created_at = EXCLUDED.created_at, created_ns = EXCLUDED.created_ns, score = EXCLUDED.score,
		decision_rank = EXCLUDED.decision_rank, created_by_lower = EXCLUDED.created_by_lower,
		link_state = EXCLUDED.link_state, expires_ns = EXCLUDED.expires_ns` + replaceSQL
)

func (rw row) args(id string) []any {
	return []any{id, rw.record, rw.summary, rw.status, rw.roleLower, rw.nameLower, rw.createdAt, rw.createdNS, rw.score, rw.decisionRank,
		rw.createdByLower, rw.linkState, rw.expiresNS}
}

// Create implements interviews.Store: ErrExists when the id is taken.
func (s *Store) Create(ctx context.Context, r *interviews.Record) error {
	r.PrepareCreate(time.Now())
	rw, err := encode(r)
	if err != nil {
		return fmt.Errorf("interviews: create: %w", err)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	tag, err := s.pool.Exec(ctx, insertSQL+" ON CONFLICT (id) DO NOTHING", rw.args(r.ID)...)
	if err != nil {
		return s.writeError("create "+r.ID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("interviews: create %s: %w", r.ID, interviews.ErrExists)
	}
	return nil
}

// Save implements interviews.Store: one statement replaces the row whole,
// so concurrent saves of one id leave one of them, whole.
func (s *Store) Save(ctx context.Context, r *interviews.Record) error {
	rw, err := encode(r)
	if err != nil {
		return fmt.Errorf("interviews: save: %w", err)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	if _, err := s.pool.Exec(ctx, upsertSQL, rw.args(r.ID)...); err != nil {
		return s.writeError("save "+r.ID, err)
	}
	return nil
}

// Get implements interviews.Store.
func (s *Store) Get(ctx context.Context, id string) (*interviews.Record, error) {
	if !interviews.ValidID(id) {
		return nil, fmt.Errorf("interviews: get %q: %w", id, interviews.ErrNotFound)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	var data []byte
	err := s.pool.QueryRow(ctx, "SELECT record FROM interviews WHERE id = $1", id).Scan(&data)
	if err != nil {
		return nil, s.readError("get "+id, err)
	}
	return decode(data, id)
}

func decode(data []byte, id string) (*interviews.Record, error) {
	var r interviews.Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("interviews: get %s: the stored record does not decode: %w", id, err)
	}
	return &r, nil
}

// List implements interviews.Store, filtering, ordering and paging in the
// database exactly as the file store does in memory.
func (s *Store) List(ctx context.Context, opts interviews.ListOptions) (interviews.ListPage, error) {
	limit, err := opts.PageSize()
	if err != nil {
		return interviews.ListPage{}, err
	}
	q := listQuery(opts.ResolveAt(s.clock()))
	ctx, cancel := opContext(ctx)
	defer cancel()
	page := interviews.ListPage{Items: []interviews.Summary{}}
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM interviews"+q.where, q.args...).Scan(&page.Total); err != nil {
		return interviews.ListPage{}, s.readError("list", err)
	}
	sql := "SELECT summary, version FROM interviews" + q.where + " ORDER BY " + q.order +
		" LIMIT " + q.arg(limit) + " OFFSET " + q.arg(opts.Offset)
	err = s.scanSummaries(ctx, sql, q.args, func(sum interviews.Summary) error {
		page.Items = append(page.Items, sum)
		return nil
	})
	if err != nil {
		return interviews.ListPage{}, err
	}
	return page, nil
}

// walkTimeout bounds a whole Walk: an export of every interview to a
// slow client.
const walkTimeout = 10 * OpTimeout

// Walk implements interviews.Store with one query whose rows are read as
// fn takes them: the connection holds a few rows at a time, whatever the
// number matching.
func (s *Store) Walk(ctx context.Context, opts interviews.ListOptions, fn func(interviews.Summary) error) error {
	if _, err := opts.PageSize(); err != nil {
		return err
	}
	q := listQuery(opts.ResolveAt(s.clock()))
	ctx, cancel := context.WithTimeout(ctx, walkTimeout)
	defer cancel()
	return s.scanSummaries(ctx, "SELECT summary, version FROM interviews"+q.where+" ORDER BY "+q.order, q.args, fn)
}

// scanSummaries runs sql and calls fn with each row's summary, measured.
func (s *Store) scanSummaries(ctx context.Context, sql string, args []any, fn func(interviews.Summary) error) error {
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return s.readError("list", err)
	}
	defer rows.Close()
	for rows.Next() {
		var data []byte
		var version int64
		if err := rows.Scan(&data, &version); err != nil {
			return s.readError("list", err)
		}
		var sum interviews.Summary
		if err := json.Unmarshal(data, &sum); err != nil {
			return fmt.Errorf("interviews: list: a stored summary does not decode: %w", err)
		}
		sum.Revision = strconv.FormatInt(version, 10)
		sum.Measure()
		if err := fn(sum); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return s.readError("list", err)
	}
	return nil
}

// contains returns the LIKE pattern that matches text anywhere in a
// lower-cased column, its own wildcards escaped.
func contains(text string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(strings.ToLower(text)) + "%"
}

// Update implements interviews.Store: the row is read FOR UPDATE in a
// transaction, so other Updates and Saves of it wait until this one has
// written.
func (s *Store) Update(ctx context.Context, id string, change func(*interviews.Record) error) (*interviews.Record, error) {
	if !interviews.ValidID(id) {
		return nil, fmt.Errorf("interviews: update %q: %w", id, interviews.ErrNotFound)
	}
	ctx, cancel := opContext(ctx)
	defer cancel()
	var out *interviews.Record
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var data []byte
		if err := tx.QueryRow(ctx, "SELECT record FROM interviews WHERE id = $1 FOR UPDATE", id).Scan(&data); err != nil {
			return s.readError("update "+id, err)
		}
		r, err := decode(data, id)
		if err != nil {
			return err
		}
		if err := change(r); err != nil {
			return fmt.Errorf("interviews: update %s: %w", id, err)
		}
		if r.ID != id {
			return fmt.Errorf("interviews: update %s: the change renamed the record to %q: ids never change", id, r.ID)
		}
		rw, err := encode(r)
		if err != nil {
			return fmt.Errorf("interviews: update %s: %w", id, err)
		}
		if _, err := tx.Exec(ctx, upsertSQL, rw.args(id)...); err != nil {
			return s.writeError("update "+id, err)
		}
		out = r.Clone()
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readError wraps a failed read: ErrNotFound for no row.
func (s *Store) readError(what string, err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("interviews: %s: %w", what, interviews.ErrNotFound)
	}
	return fmt.Errorf("interviews: %s: %s: %w", what, s.where, err)
}
