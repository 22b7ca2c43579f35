-- Retention (housekeeping): the rows no answer can show any more are deleted in bounded
-- batches, found through these indexes so a purge reads only what it deletes: timed-out orders
-- by when they finished (deployed orders stay with their instances), finished deliveries by
-- when they finished, events by when they were written.
CREATE INDEX orders_timed_out_finished ON orders (finished_at) WHERE status = 'timed_out';
CREATE INDEX deliveries_finished ON deliveries (finished_at) WHERE finished_at IS NOT NULL;
CREATE INDEX events_created ON events (created_at);
-- The order purge passes over an order an idempotency key still names (and PostgreSQL checks
-- the key's foreign key on every delete): both look keys up by order.
CREATE INDEX idempotency_keys_order ON idempotency_keys (order_id);
