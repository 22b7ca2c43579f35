-- A machine its host found down (its init exited, its agent stopped or silent; issue 40, point
-- 8) and has not booted again yet: every replica's status read says offline while it is set,
-- not the power the database says the machine should have (backend/docs/machines.md).
ALTER TABLE machines ADD COLUMN down INTEGER NOT NULL DEFAULT 0 CHECK (down IN (0, 1));
