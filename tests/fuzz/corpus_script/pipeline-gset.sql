-- Pipelines and \gset: five lookups sent at once (one round trip), then the balance of
-- the last one read back into a variable and used in a branch.
-- Pipelines need the extended or prepared protocol:
--   pgarena run -f examples/pipeline-gset.sql -M prepared -s 10 DBNAME
\set aid random(1, 100000 * :scale)
\startpipeline
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 1;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 2;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 3;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid + 4;
\endpipeline
SELECT abalance AS balance FROM pgbench_accounts WHERE aid = :aid \gset
\if :balance < 0
  \sleep 1 ms
\endif
