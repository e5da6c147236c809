-- A read-mostly mix on pgbench's tables with a skewed (zipfian) key choice: 9 reads out of
-- 10, and hot accounts read far more often than cold ones.
--   pgarena init -s 10 DBNAME && pgarena run -f examples/read-mostly.sql -c 8 -j 2 DBNAME
-- :scale is 1 for custom scripts unless -s is given, as in pgbench: pass -s to match init.
\set aid random_zipfian(1, 100000 * :scale, 1.1)
\set coin random(1, 10)
\if :coin <= 9
  SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
\else
  \set delta random(-5000, 5000)
  UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
\endif
