-- One SELECT and one UPDATE of a random record of table_a (see table_a-init.sql).
--   pgarena run -f examples/table_a.sql -c 10 -j 2 -T 60 DBNAME
-- Each client works on its own "thread" (client_id modulo 10, as the original client
-- pinned one thread to one connection). With only the thread_id index each statement reads
-- that thread's 100,000 rows: that is the original workload; add an index on
-- (thread_id, a_value) to measure the indexed variant instead.
\set thread_id :client_id % 10 + 1
\set v random(1, 100000)
BEGIN;
SELECT a_value FROM table_a WHERE thread_id = :thread_id AND a_value = :v;
UPDATE table_a SET a_value = :v WHERE thread_id = :thread_id AND a_value = :v;
END;
