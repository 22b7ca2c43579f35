package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// orderGroups is the group commit of new orders on PostgreSQL. The orders that arrive while
// the groups in flight wait for the database are placed together: one pipeline of their
// statements (placeOrderInGroup, under its generic plan, see genericPlans), which runs as one
// transaction, so one round trip, one commit and one WAL flush stand for the whole group
// instead of one each. Under a load of orders most of the time of each went to its own
// commit's turn and round trip (bench/README.md, issue 44).
//
// Its rules:
//   - Durable before answered: each caller gets its order's result only after the group's
//     transaction committed (the pipeline's Sync answered), so an order answered 201 is never
//     lost to a crash of resellerd or of the database.
//   - A group never waits for an account another transaction holds (a deploy batch holds its
//     accounts' rows for its whole transaction): its statement passes over that account
//     (placeOrderInGroup) and writes nothing, the group commits the others, and that order's
//     caller then places it alone (errPlaceAlone), where it waits for the account by itself.
//     Waiting in the group held up every order behind it, of every account of its worker.
//   - One order's failure fails that order only: a statement that fails (a taken idempotency key,
//     a deadlock) rolls the whole group back, and every order of it is then placed alone by its
//     caller (genericPlans), where the failing one fails again by itself. A failure of the
//     commit itself (or of the connection) fails every order of the group: whether it committed
//     is then unknown, and placing them again could place them twice.
//   - Groups in flight share no account: each account's orders go to one worker
//     (accountID mod orderGroupWorkers), so a group never waits for another's account locks,
//     which would run the groups one after the other (a group holds its accounts' rows until
//     its commit). A group places its orders in the order of their accounts' ids (the arrival
//     order within one account), as the workers' batches lock theirs, so it cannot deadlock
//     with those either.
//   - Bounded: at most maxOrderGroup orders a group, orderGroupWorkers groups in flight, each
//     holding a turn (turns.takeTx) as a transaction does, and orderGroupTimeout for one group.
//   - A caller whose context ends while its order waits in the queue withdraws it: not placed,
//     the context's error returned. Once a group has taken the order, the caller waits for that
//     group's outcome and reports it, placed or not, so an order is never placed while its
//     caller was told it failed.
//   - Close stops the workers after the groups in flight; orders still queued are answered
//     errOrdersClosed, not placed.
type orderGroups struct {
	db    *sql.DB
	tell  *changeTeller
	turns *turns
	// queues holds each worker's orders: those of the accounts whose id mod orderGroupWorkers
	// is its index.
	queues []chan *groupedOrder

	ctx       context.Context // ends at Close
	stop      context.CancelFunc
	wg        sync.WaitGroup
	closed    chan struct{} // closed once every worker has returned
	closeOnce sync.Once

	// taken counts the orders the workers have taken from the queue, withdrawn ones included.
	taken atomic.Int64
	// observe, when not nil, is told of each group run: its size and its error (tests).
	observe func(size int, err error)
}

// The bounds of the group commit (see orderGroups).
const (
	// maxOrderGroup bounds a group: a larger one holds its accounts' rows locked longer, and
	// its orders wait for one another. 16 groups of 16 gave 1,031-1,142 orders/s against
	// 770-867 for 8 of 32 (bench/README.md, issue 44).
	maxOrderGroup = 16
	// orderGroupWorkers is how many groups may be in flight at once, one per worker: while
	// one waits for its commit's WAL flush, the others fill, and PostgreSQL's CPUs have work.
	// Each takes a turn (txTurns): on 2 CPUs 6 of the default pool of 8, so 6 at most there.
	orderGroupWorkers = 16
	// orderQueue bounds the orders waiting for a worker's group; a caller past it waits to queue.
	orderQueue = 2 * maxOrderGroup
	// orderGroupTimeout bounds one group's round trip, commit included.
	orderGroupTimeout = time.Minute
)

// errPlaceAlone tells a caller that its group rolled back because one of its statements
// failed, or passed over its order's account, held by another transaction: the caller places
// its order alone.
var errPlaceAlone = errors.New("sqlstore: order not placed in its group, place it alone")

// errOrdersClosed answers the orders still queued when the store closes.
var errOrdersClosed = errors.New("sqlstore: store closed")

// The states of a groupedOrder; whoever moves it out of queued owns it.
const (
	orderQueued    int32 = iota
	orderTaken           // in a group, which answers it
	orderWithdrawn       // its caller gave up before a group took it
)

// groupedOrder is one caller's order in the queue.
type groupedOrder struct {
	accountID int64
	query     string // in PostgreSQL's form, as the pipeline sends it
	args      []any
	dest      []any // where its row is scanned, the caller's
	// passed is set when the group passed over the order's account, held by another
	// transaction: the group answers errPlaceAlone.
	passed bool
	state  atomic.Int32
	done   chan error // buffered: the worker never waits on a caller
}

// newOrderGroups starts the workers of the group commit on db.
func newOrderGroups(db *sql.DB, tell *changeTeller, turns *turns) *orderGroups {
	ctx, stop := context.WithCancel(context.Background())
	g := &orderGroups{db: db, tell: tell, turns: turns, ctx: ctx, stop: stop, closed: make(chan struct{})}
	for range orderGroupWorkers {
		queue := make(chan *groupedOrder, orderQueue)
		g.queues = append(g.queues, queue)
		g.wg.Go(func() { g.work(queue) })
	}
	return g
}

// Close stops the workers once their groups are done and answers every order left queued.
// A second Close does nothing.
func (g *orderGroups) Close() error {
	g.closeOnce.Do(func() {
		g.stop()
		g.wg.Wait()
		close(g.closed)
		for _, queue := range g.queues {
			drain(queue)
		}
	})
	return nil
}

// drain answers errOrdersClosed to every order in queue.
func drain(queue chan *groupedOrder) {
	for {
		select {
		case o := <-queue:
			o.answer(errOrdersClosed)
		default:
			return
		}
	}
}

// queueOf is the queue of the worker of account accountID's orders.
func (g *orderGroups) queueOf(accountID int64) chan *groupedOrder {
	return g.queues[uint64(accountID)%uint64(len(g.queues))]
}

// place runs query, the statement of a new order of account accountID, in a group and scans
// its row into dest. errPlaceAlone asks the caller to place it alone.
func (g *orderGroups) place(ctx context.Context, accountID int64, query string, args, dest []any) error {
	o := &groupedOrder{accountID: accountID, query: query, args: args, dest: dest, done: make(chan error, 1)}
	select {
	case g.queueOf(accountID) <- o:
	case <-ctx.Done():
		return fmt.Errorf("sqlstore: wait to queue an order: %w", ctx.Err())
	case <-g.closed:
		return errOrdersClosed
	}
	select {
	case err := <-o.done:
		return err
	case <-ctx.Done():
		if o.state.CompareAndSwap(orderQueued, orderWithdrawn) {
			return fmt.Errorf("sqlstore: wait for an order group: %w", ctx.Err())
		}
	case <-g.closed:
		if o.state.CompareAndSwap(orderQueued, orderWithdrawn) {
			return errOrdersClosed
		}
	}
	return <-o.done // a group has it: its outcome is this order's (orderGroupTimeout bounds it)
}

// answer tells the caller of o, still queued, err; one that withdrew it has gone.
func (o *groupedOrder) answer(err error) {
	if o.state.CompareAndSwap(orderQueued, orderTaken) {
		o.done <- err
	}
}

// work runs groups of the orders in queue until Close: it waits for an order, then for a turn
// (while it waits, more orders queue), then takes what has queued into the group.
func (g *orderGroups) work(queue chan *groupedOrder) {
	for g.ctx.Err() == nil { // a select below may still pick an order after Close began
		var first *groupedOrder
		select {
		case first = <-queue:
			g.taken.Add(1)
		case <-g.ctx.Done():
			return
		}
		release, err := g.turns.takeTx(g.ctx)
		if err != nil {
			first.answer(errOrdersClosed)
			return
		}
		if group := g.collect(queue, first); len(group) > 0 {
			g.run(group)
		}
		release()
	}
}

// collect takes first and the orders queued behind it in queue, up to maxOrderGroup, skipping
// those their callers withdrew.
func (g *orderGroups) collect(queue chan *groupedOrder, first *groupedOrder) []*groupedOrder {
	group := make([]*groupedOrder, 0, maxOrderGroup)
	if first.state.CompareAndSwap(orderQueued, orderTaken) {
		group = append(group, first)
	}
	for len(group) < maxOrderGroup {
		select {
		case o := <-queue:
			g.taken.Add(1)
			if o.state.CompareAndSwap(orderQueued, orderTaken) {
				group = append(group, o)
			}
		default:
			return group
		}
	}
	return group
}

// run places group in one transaction and answers each of its orders.
func (g *orderGroups) run(group []*groupedOrder) {
	slices.SortStableFunc(group, func(a, b *groupedOrder) int { return cmp.Compare(a.accountID, b.accountID) })
	// Not ended by Close, which waits for the groups in flight: an order whose group was cut
	// off mid-commit could not be answered either way.
	ctx, cancel := context.WithTimeout(context.Background(), orderGroupTimeout)
	defer cancel()
	err := g.commit(ctx, group)
	if g.tell.changes(group[0].query) {
		g.tell.committed() // even after an error: the commit may have happened
	}
	if g.observe != nil {
		g.observe(len(group), err)
	}
	var stmt statementError
	if errors.As(err, &stmt) {
		err = errPlaceAlone
	} else if err != nil {
		err = fmt.Errorf("sqlstore: place an order in a group of %d: %w", len(group), err)
	}
	for _, o := range group {
		if err == nil && o.passed {
			o.done <- errPlaceAlone
			continue
		}
		o.done <- err
	}
}

// statementError is the error of a statement of a group, reported by the server: the group's
// transaction rolled back, nothing of it committed.
type statementError struct{ err error }

func (e statementError) Error() string { return e.err.Error() }
func (e statementError) Unwrap() error { return e.err }

// commit sends useGenericPlan and the group's statements in one pipeline, the one implicit
// transaction that its Sync commits, and scans each order's row.
func (g *orderGroups) commit(ctx context.Context, group []*groupedOrder) error {
	conn, err := g.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close() }()
	return conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("sqlstore: order group: connection %T is not pgx's", driverConn)
		}
		var b pgx.Batch
		b.Queue(useGenericPlan)
		for _, o := range group {
			b.Queue(o.query, o.args...)
		}
		res := c.Conn().SendBatch(ctx, &b)
		_, err := res.Exec()
		for _, o := range group {
			if err != nil {
				break
			}
			if err = res.QueryRow().Scan(o.dest...); errors.Is(err, pgx.ErrNoRows) {
				o.passed, err = true, nil // its account is held: placeOrderInGroup wrote nothing
			}
		}
		var pe *pgconn.PgError
		if err != nil && errors.As(err, &pe) {
			err = statementError{err}
		}
		if closeErr := res.Close(); err == nil {
			err = closeErr // the commit's own error
		}
		return err
	})
}
