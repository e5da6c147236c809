// bench/apps/transfer.js — a small Node.js application for bench/vs-pgreplay-apps: WORKERS
// async workers moving money between the 100 rows of `accounts` for SECONDS seconds, each
// transfer one transaction:
//   BEGIN; UPDATE accounts SET balance = balance - $1 WHERE id = $2;
//          UPDATE accounts SET balance = balance + $1 WHERE id = $3; COMMIT
// The two rows are updated in id order (the debit or the credit first), so that the
// application itself never deadlocks.
//
// Usage: node bench/apps/transfer.js pg|postgres|postgres-pipeline SOCKET_DIR|HOST PORT DATABASE [SECONDS [WORKERS]]
//   pg:       node-postgres (npm `pg`): a Pool; parameters go as unnamed extended-protocol
//             statements, BEGIN and COMMIT as simple queries
//   postgres: postgres.js (npm `postgres`): sql.begin(); every statement a named prepared
//             statement (its default, prepare: true)
//   postgres-pipeline: postgres.js, each worker on a connection of its own issuing four
//             transfers' eight UPDATEs at once, without a transaction block (each its own
//             Sync): postgres.js sends them as a pipeline, each before the one before is answered
// (a transfer of the pipeline is not atomic: the sum of the balances holds once all are in.)
// SOCKET_DIR is an absolute path, HOST anything else (TCP: bench/proxy-apps' proxy). The
// packages are found through NODE_PATH (bench/vs-pgreplay-apps installs them in a cache
// outside the repository). Prints one line: transfers, failures, seconds.
'use strict';

const [driver, sockdir, port, database, secondsArg, workersArg] = process.argv.slice(2);
if (!driver || !sockdir || !port || !database) {
    console.error('usage: transfer.js pg|postgres|postgres-pipeline SOCKET_DIR|HOST PORT DATABASE [SECONDS [WORKERS]]');
    process.exit(2);
}
const seconds = Number(secondsArg || 5);
const workers = Number(workersArg || 8);
const ROWS = 100;

function pick() {
    const a = 1 + Math.floor(Math.random() * ROWS);
    let b = 1 + Math.floor(Math.random() * (ROWS - 1));
    if (b >= a) b++;
    return [a, b, 1 + Math.floor(Math.random() * 100)];
}

async function withPg() {
    const { Pool } = require('pg');
    const pool = new Pool({ host: sockdir, port: Number(port), database, user: 'postgres',
                            max: workers });
    const one = async () => {
        const [from, to, amount] = pick();
        const client = await pool.connect();
        try {
            await client.query('BEGIN');
            if (from < to) {
                await client.query('UPDATE accounts SET balance = balance - $1 WHERE id = $2', [amount, from]);
                await client.query('UPDATE accounts SET balance = balance + $1 WHERE id = $2', [amount, to]);
            } else {
                await client.query('UPDATE accounts SET balance = balance + $1 WHERE id = $2', [amount, to]);
                await client.query('UPDATE accounts SET balance = balance - $1 WHERE id = $2', [amount, from]);
            }
            await client.query('COMMIT');
        } catch (e) {
            await client.query('ROLLBACK').catch(() => {});
            throw e;
        } finally {
            client.release();
        }
    };
    return { one, end: () => pool.end() };
}

function postgresJs(max) {
    const mod = require('postgres');
    const postgres = mod.default || mod;
    // A directory is a unix socket's; anything else a TCP host (bench/proxy-apps' proxy).
    const where = sockdir.startsWith('/') ? { path: `${sockdir}/.s.PGSQL.${port}` }
        : { host: sockdir, port: Number(port) };
    return postgres({ ...where, database, username: 'postgres', max, onnotice: () => {} });
}

async function withPostgresJsPipeline() {
    const sql = postgresJs(workers);
    const move = (id, amount) => sql`UPDATE accounts SET balance = balance + ${amount} WHERE id = ${id}`;
    const one = async () => {
        const updates = [];
        for (let i = 0; i < 4; i++) {
            const [from, to, amount] = pick();
            updates.push(move(from, -amount), move(to, amount));
        }
        await Promise.all(updates);
    };
    return { one, end: () => sql.end({ timeout: 5 }) };
}

async function withPostgresJs() {
    const sql = postgresJs(workers);
    const one = async () => {
        const [from, to, amount] = pick();
        await sql.begin(async (tx) => {
            if (from < to) {
                await tx`UPDATE accounts SET balance = balance - ${amount} WHERE id = ${from}`;
                await tx`UPDATE accounts SET balance = balance + ${amount} WHERE id = ${to}`;
            } else {
                await tx`UPDATE accounts SET balance = balance + ${amount} WHERE id = ${to}`;
                await tx`UPDATE accounts SET balance = balance - ${amount} WHERE id = ${from}`;
            }
        });
    };
    return { one, end: () => sql.end({ timeout: 5 }) };
}

async function main() {
    const app = driver === 'pg' ? await withPg()
        : driver === 'postgres' ? await withPostgresJs()
        : driver === 'postgres-pipeline' ? await withPostgresJsPipeline()
        : (() => { throw new Error(`unknown driver ${driver}`); })();
    const start = Date.now();
    const until = start + seconds * 1000;
    let done = 0, failed = 0;
    const worker = async () => {
        while (Date.now() < until) {
            try {
                await app.one();
                done++;
            } catch (e) {
                failed++;
                if (failed <= 3) console.error(`transfer failed: ${e.message}`);
            }
        }
    };
    await Promise.all(Array.from({ length: workers }, worker));
    await app.end();
    console.log(`${driver}: ${done} transfers, ${failed} failed, ${((Date.now() - start) / 1000).toFixed(2)} s`);
}

main().catch((e) => { console.error(e); process.exit(1); });
