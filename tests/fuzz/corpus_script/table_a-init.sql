-- Init script for table_a.sql: the dataset of a published Linux-versus-Windows PostgreSQL
-- comparison, whose own client ran "1 SELECT and 1 UPDATE of a random record".
--   pgarena init -f examples/table_a-init.sql DBNAME
-- 10 "threads" of 100,000 rows each (1,000,000 rows), indexed on thread_id only, as there.
DROP TABLE IF EXISTS table_a;
CREATE TABLE table_a (thread_id int, a_value int);
INSERT INTO table_a (thread_id, a_value)
    SELECT t, v FROM generate_series(1, 10) AS t, generate_series(1, 100000) AS v;
CREATE INDEX table_a_thread_id ON table_a (thread_id);
VACUUM ANALYZE table_a;
