-- Traffic counted from the machine's interface (issue 42, points 1 and 2;
-- backend/docs/machines.md, "Traffic").
--
-- machines: what its host has counted of the machine's veth. traffic_bytes is every byte in
-- and out counted so far (only ever grows); traffic_link and traffic_counter are the interface
-- (its ifindex) and its rx+tx at the last read, so the next read adds only the difference, and a
-- new interface (a boot makes one) counts from 0.
ALTER TABLE machines ADD COLUMN traffic_bytes BIGINT NOT NULL DEFAULT 0 CHECK (traffic_bytes >= 0);
ALTER TABLE machines ADD COLUMN traffic_link INTEGER NOT NULL DEFAULT 0;
ALTER TABLE machines ADD COLUMN traffic_counter BIGINT NOT NULL DEFAULT 0 CHECK (traffic_counter >= 0);

-- instances: the operator's allowance (`resellerd instance set`; NULL: the plan's), the cycle
-- the counted bytes are reckoned from (its start, and the machine's traffic_bytes then), and the
-- GB of overage of that cycle already billed.
ALTER TABLE instances ADD COLUMN traffic_included_gb INTEGER CHECK (traffic_included_gb >= 0);
ALTER TABLE instances ADD COLUMN traffic_allow_overage BOOLEAN;
ALTER TABLE instances ADD COLUMN traffic_cycle_start TIMESTAMPTZ;
ALTER TABLE instances ADD COLUMN traffic_cycle_base BIGINT NOT NULL DEFAULT 0;
ALTER TABLE instances ADD COLUMN traffic_billed_gb INTEGER NOT NULL DEFAULT 0;

-- The traffic worker reads the live instances only, by id.
CREATE INDEX instances_active_id ON instances (id) WHERE active;
