// vitest's global setup: one PostgreSQL server of the run's own for every test file.
import { startOwnPostgres } from "./postgres-server.js";

export default async function setup() {
  const server = await startOwnPostgres();
  process.env.TEST_POSTGRES_URL = server.url;
  return () => server.stop();
}
