SELECT pg_sleep(0.02);
