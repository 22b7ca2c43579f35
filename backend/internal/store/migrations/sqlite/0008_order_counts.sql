-- The pending orders of an account and the price they reserve, kept on the account beside the
-- instance counts: placing an order checks both (api_order_limit, available balance), and
-- counting the pending rows made each order cost as much as the orders still provisioning.
ALTER TABLE accounts ADD COLUMN orders_pending INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN orders_reserved_micros INTEGER NOT NULL DEFAULT 0;
UPDATE accounts SET
    orders_pending = (SELECT COUNT(*) FROM orders WHERE orders.account_id = accounts.id AND orders.status = 'pending'),
    orders_reserved_micros = (SELECT COALESCE(SUM(price_micros), 0) FROM orders
        WHERE orders.account_id = accounts.id AND orders.status = 'pending');
