// The tests' PostgreSQL: one server of the run's own (started by test/support/postgres-setup.ts,
// its URL handed over in TEST_POSTGRES_URL), and a fresh database for each test file.
import pg from "pg";

const serverUrl = () => {
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) throw new Error("TEST_POSTGRES_URL is unset: vitest's global setup starts the server");
  return url;
};

/** A new, empty database on the run's server; its URL. */
export const testDatabase = (name: string) => createDatabase(serverUrl(), name);

/** A new, empty database on the server at `url`; its URL. */
export async function createDatabase(url: string, name: string): Promise<string> {
  const database = `${name.replace(/[^a-z0-9_]/gi, "_")}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE DATABASE ${database}`);
  await client.end();
  const target = new URL(url);
  target.pathname = `/${database}`;
  return target.toString();
}
