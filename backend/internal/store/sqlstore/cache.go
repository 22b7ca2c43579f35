package sqlstore

import "context"

// rowCache keeps rows read outside transactions, for as long as the database is unchanged;
// every Store has one, a readcache.Cache. On SQLite it is sqlitefast.ReadCache, which sees
// any commit to the file at the cost of a few atomic loads; on PostgreSQL it hears of changes
// through the database's notifications and this process's commits (pgchanges), and reads
// the database while it cannot (noCache is what a SQLite store has while it migrates, before
// its watcher can open). Only the reads of the busiest
// requests go through it, each written beside its SQL: Store.AccountByKeyHash (every
// authenticated request), Store.InstanceWithInstalls (GET /instances/{id}), Store.Instance,
// Store.AppInstalls and Store.SimFailRate (every simulated operation).
// Transactions never read from it.
type rowCache interface {
	// Lookup returns the entry of key, or on a miss keep, which files the row then read with
	// the account whose changes drop it (its scope; 0 for any change).
	Lookup(ctx context.Context, key cacheKey) (v any, hit bool, keep func(v any, scope int64))
}

// cacheKey names an entry: a kind, and the key hash or ids that find the row.
type cacheKey struct {
	kind      cacheKind
	hash      string // cachedAccount
	accountID int64  // cachedInstance, cachedInstanceWithInstalls
	id        int64  // the instance's id (cachedInstance, cachedInstalls, cachedInstanceWithInstalls)
}

type cacheKind uint8

const (
	cachedAccount              cacheKind = iota + 1 // store.Account by key hash
	cachedInstance                                  // store.Instance by account and id
	cachedInstalls                                  // []store.AppInstall by instance id
	cachedInstanceWithInstalls                      // instanceWithInstalls by account and id
	cachedSimFailRate                               // the simulator's fail rate
)

// cached reads the entry of key from c, or with load. scope is the account whose rows what load
// returns is made of, whose changes alone drop the entry (readcache.Scopes); 0 for an entry that
// any change drops. What it returns may be shared with other readers: callers copy its slices
// and maps before handing it out.
func cached[V any](ctx context.Context, c rowCache, key cacheKey, scope func(V) int64, load func() (V, error)) (V, error) {
	v, hit, keep := c.Lookup(ctx, key)
	if hit {
		return v.(V), nil
	}
	out, err := load()
	if err == nil {
		keep(out, scope(out))
	}
	return out, err
}

// anyChange is the scope of an entry that any change drops.
func anyChange[V any](V) int64 { return 0 }

// ofAccount is the scope of an entry of the account id's rows.
func ofAccount[V any](id int64) func(V) int64 { return func(V) int64 { return id } }

// noCache keeps nothing: every read runs its query.
type noCache struct{}

func (noCache) Lookup(context.Context, cacheKey) (any, bool, func(any, int64)) {
	return nil, false, keepNothing
}

// keepNothing is noCache's keep.
func keepNothing(any, int64) {}
