-- pgbench's built-in "select-only" script, as pgbench --show-script prints it.
-- Runs unchanged with: pgarena run -f examples/select-only.sql (on tables from pgarena init).
\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;

