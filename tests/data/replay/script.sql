-- The psql script of the replay fixtures and integration tests: errors, multi-line
-- statements and quoting, a COPY with data, and passwords that must never reach a capture.
DROP TABLE IF EXISTS replay_t;
CREATE TABLE replay_t(a int, b text);
INSERT INTO replay_t VALUES (1, 'it''s
multi-line'), (2, NULL);
SELECT * FROM replay_nosuch;
SELECT a,
   b FROM replay_t
   WHERE a = 1;
COPY replay_t FROM STDIN;
3	x
\.
DROP ROLE IF EXISTS replay_r1;
CREATE ROLE replay_r1 PASSWORD 'replay-sekrit-1';
ALTER ROLE replay_r1 PASSWORD 'replay-sekrit-2';
ALTER USER replay_r1 PASSWORD 'SCRAM-SHA-256$4096:cmVwbGF5$replaysekrit3:replaysekrit4';
SET statement_timeout = '10ms';
SELECT pg_sleep(1);
RESET statement_timeout;
BEGIN;
SELECT 1/0;
ROLLBACK;
SELECT E'tab\there', 'q"uote', $$dollar 'quoted'$$;
SELEC syntax_error;
