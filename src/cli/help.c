#include <stdio.h>

#include "cli/cli.h"

void cli_usage(void)
{
    fputs("pgarena: PostgreSQL benchmark tool\n"
          "\n"
          "Usage:\n"
          "  pgarena init    [CONN] [-w WORKLOAD] [-s SCALE | --tables N --table-size ROWS]\n"
          "                  [--partitions N] [-j JOBS] [--force] [--local]\n"
          "  pgarena run     [CONN] [-w WORKLOAD] [-c CLIENTS] [-j THREADS] [-T S | -t N]\n"
          "                  [-M simple|extended|prepared] [-P S] [-o RESULT.json] [--local]\n"
          "  pgarena show    RESULT.json [--intervals | --csv [--summary]]\n"
          "  pgarena compare A.json B.json [MORE.json...] [--json | --csv] [--fail-if-worse]\n"
          "  pgarena report  RESULT.json... -o REPORT.html\n"
          "  pgarena sweep   [CONN] [--setup LABEL=CONN]... [-c LIST] [-R LIST] [--set N=V1,V2]\n"
          "                  [--trials N] [--max-rate --slo 'p99<=5ms'] [run options] -o DIR\n"
          "  pgarena sweep   [CONN] --replay CAPTURE --speed LIST [--setup LABEL=CONN]... -o DIR\n"
          "  pgarena local   start|stop|status [--dir DIR]\n"
          "  pgarena check   [CONN] -w tpcc [--all]\n"
          "  pgarena recover RESULT.json   (the result of a killed run, from its journal)\n"
          "  pgarena merge   A.json B.json... -o ALL.json [--force]   (a run's agents, exactly)\n"
          "  pgarena store   RESULT.json... --into CONN   (the results store; run --store)\n"
          "  pgarena history CONN|DIR [--where F=V] [--by FIELDS] [--fail-if-regressed]\n"
          "  pgarena replay  prepare LOG... -o CAPTURE | capture [CONN] --seconds N -o CAPTURE\n"
          "                  | show CAPTURE   (the application's own workload, from its log)\n"
          "                  | run CAPTURE [CONN] [--speed F|max] [-o RESULT.json]   (as a run)\n"
          "  pgarena --help | --version ; pgarena COMMAND --help\n"
          "\n"
          "Workloads: tpcb-like (default), simple-update, select-only (pgbench's);\n"
          "           oltp-read-write, oltp-read-only, oltp-point-select, oltp-write-only\n"
          "           (sysbench's); tpcc (TPC-C: init --warehouses W); ch (CH-benCHmark:\n"
          "           TPC-C and 22 analytic queries, run --analytic-clients N).\n"
          "Try: pgarena run --local   (a complete benchmark against a scratch server)\n",
          stdout);
}
