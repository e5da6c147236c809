#ifndef PGARENA_WORKLOAD_TPCC_SCHEMA_H
#define PGARENA_WORKLOAD_TPCC_SCHEMA_H

/*
 * The TPC-C tables as pgarena creates them, and as init and run check them. Static data.
 */

struct buf;

struct tpcc_column {
    const char *name;
    const char *type; /* as format_type() spells it */
};

struct tpcc_table {
    const char *name;
    const struct tpcc_column *cols; /* ends with a NULL name */
    const char *key;                /* primary key columns, NULL for none (history) */
    const char *index_sql;          /* the secondary index, or NULL */
    const char *partition_key;      /* hash-partitioned by it with --partitions, or NULL */
};

#define TPCC_N_TABLES 9

/* Largest first. */
extern const struct tpcc_table tpcc_tables[TPCC_N_TABLES];

/* The table called name, or NULL. */
const struct tpcc_table *tpcc_table(const char *name);

/* Append the columns as "name type, name type" (the shape load_check_tables compares). */
void tpcc_shape(const struct tpcc_table *t, struct buf *b);

/* Append the CREATE TABLE statement (and its partitions' when partitions > 0 and the table
 * has a partition key), without a final semicolon. */
void tpcc_create_sql(const struct tpcc_table *t, int partitions, struct buf *b);

#endif
