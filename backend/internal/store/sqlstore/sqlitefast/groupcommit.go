package sqlitefast

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// maxGroup bounds how many queued transactions one commit takes.
const maxGroup = 64

// GroupCommitter runs the write transactions of a SQLite store on its one writer connection,
// several to a commit. SQLite runs one writer at a time anyway, and a commit (with its WAL
// frames and locks) is a large part of a small transaction's cost, so the writer takes every
// transaction queued behind the one it ran, up to maxGroup, and runs them in one database
// transaction, each inside a SAVEPOINT of its own:
//
//   - a job whose fn fails is rolled back to its savepoint, alone; the others still commit;
//   - every job's answer is sent only after the COMMIT, so nothing is acknowledged that is not
//     durable, and a failed COMMIT fails every job of the group (none of them was written);
//   - the jobs of a group run one after the other, each seeing what the earlier ones wrote, as
//     they would have in transactions of their own.
//
// A job waits in the queue for as long as its context allows; once started it runs to its end
// (its statements are not interrupted, which would roll back the whole group), which the store
// operations a transaction is made of bound.
//
// T is the store's view of a transaction, which begin makes of the group's transaction (a
// Querier that runs the queries it can on the writer's prepared statements).
type GroupCommitter[T any] struct {
	db     *sql.DB
	jobs   chan *txJob[T]
	begin  func(Querier) T // the store's view of a transaction
	stmts  *writerStmts    // prepared between groups, used inside them
	commit func(jobs int)  // told about every commit (tests); may be nil
	done   chan struct{}   // closed by Close
	exited chan struct{}   // closed when run returns
}

// txJob is one WithTx call waiting for the writer.
type txJob[T any] struct {
	ctx    context.Context
	fn     func(T) error
	result chan txResult
}

// txResult is a job's outcome: its error, or the value fn panicked with, re-raised in the
// caller's goroutine.
type txResult struct {
	err   error
	panic any
}

// NewGroupCommitter starts the writer of the pool db (of one connection). begin makes the
// store's view of a transaction; commit, when not nil, is told about every commit (tests).
func NewGroupCommitter[T any](db *sql.DB, begin func(Querier) T, commit func(jobs int)) *GroupCommitter[T] {
	g := &GroupCommitter[T]{db: db, jobs: make(chan *txJob[T], 4*maxGroup), begin: begin, stmts: newWriterStmts(db),
		commit: commit, done: make(chan struct{}), exited: make(chan struct{})}
	go g.run()
	return g
}

// WithTx queues fn and waits for its outcome; a context that ends while fn is still queued
// returns its error and fn never runs. fn runs alone in a savepoint and, as everywhere, its
// error rolls back exactly what it wrote; a panic of fn is raised again here.
func (g *GroupCommitter[T]) WithTx(ctx context.Context, fn func(T) error) error {
	job := &txJob[T]{ctx: ctx, fn: fn, result: make(chan txResult, 1)}
	select {
	case g.jobs <- job:
	case <-ctx.Done():
		return fmt.Errorf("sqlstore: wait for the writer: %w", ctx.Err())
	case <-g.done:
		return errors.New("sqlstore: store closed")
	}
	var r txResult
	select {
	case r = <-job.result:
	case <-g.exited: // answered before the writer stopped, or queued too late to be taken
		select {
		case r = <-job.result:
		default:
			r = txResult{err: errors.New("sqlstore: store closed")}
		}
	}
	if r.panic != nil {
		panic(r.panic)
	}
	return r.err
}

// run takes the queued jobs a group at a time until Close.
func (g *GroupCommitter[T]) run() {
	defer close(g.exited)
	for {
		select {
		case <-g.done:
			g.failQueued()
			return
		case first := <-g.jobs:
			g.runGroup(g.gather(first))
			g.stmts.prepareWanted(context.Background()) // the writer connection is free now
		}
	}
}

// gather returns first and the jobs queued behind it, at most maxGroup in all.
func (g *GroupCommitter[T]) gather(first *txJob[T]) []*txJob[T] {
	group := []*txJob[T]{first}
	for len(group) < maxGroup {
		select {
		case j := <-g.jobs:
			group = append(group, j)
		default:
			return group
		}
	}
	return group
}

// runGroup runs the jobs in one transaction and answers each after the commit.
func (g *GroupCommitter[T]) runGroup(group []*txJob[T]) {
	results := make([]txResult, len(group))
	if err := g.runInTx(group, results); err != nil {
		for i := range results {
			if results[i].err == nil && results[i].panic == nil {
				results[i].err = err
			}
		}
	}
	for i, j := range group {
		j.result <- results[i]
	}
}

// runInTx runs every job of the group in its own savepoint of one transaction and commits; its
// error fails every job that had none of its own.
func (g *GroupCommitter[T]) runInTx(group []*txJob[T], results []txResult) error {
	ctx := context.Background() // no job's end may cut the group; each job's wait was bounded
	tx, err := g.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sqlstore: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	for i, j := range group {
		if err := j.ctx.Err(); err != nil {
			results[i].err = fmt.Errorf("sqlstore: wait for the writer: %w", err)
			continue
		}
		if err := g.runJob(ctx, tx, j, &results[i]); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sqlstore: commit: %w", err)
	}
	if g.commit != nil {
		g.commit(len(group))
	}
	return nil
}

// runJob runs one job inside a savepoint, rolled back if the job fails or panics. Its error is
// the savepoint's own failure, which ends the group.
func (g *GroupCommitter[T]) runJob(ctx context.Context, tx *sql.Tx, j *txJob[T], result *txResult) error {
	if _, err := tx.ExecContext(ctx, "SAVEPOINT job"); err != nil {
		return fmt.Errorf("sqlstore: savepoint: %w", err)
	}
	*result = callJob(j.fn, g.begin(preparedTx{tx: tx, stmts: g.stmts}))
	if result.err != nil || result.panic != nil {
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO job"); err != nil {
			return fmt.Errorf("sqlstore: roll back to savepoint: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, "RELEASE job"); err != nil {
		return fmt.Errorf("sqlstore: release savepoint: %w", err)
	}
	return nil
}

// callJob calls fn, turning a panic into a result the caller re-raises.
func callJob[T any](fn func(T) error, tx T) (r txResult) {
	defer func() {
		if v := recover(); v != nil {
			r = txResult{panic: v}
		}
	}()
	return txResult{err: fn(tx)}
}

// failQueued answers the jobs still queued when the store closes.
func (g *GroupCommitter[T]) failQueued() {
	for {
		select {
		case j := <-g.jobs:
			j.result <- txResult{err: errors.New("sqlstore: store closed")}
		default:
			return
		}
	}
}

// Close lets the group running finish, fails the queued jobs, waits for the writer to exit and
// closes its prepared statements. The pool is the caller's to close.
func (g *GroupCommitter[T]) Close() error {
	close(g.done)
	<-g.exited
	g.stmts.close()
	return nil
}
