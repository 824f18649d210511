// The demo orders database's contents, and `node orders-fixture.js <dir>`: create it there.
// SqlDatabase runs this in a child process, so that PGlite's initdb (seconds of CPU, several
// hundred MB that the WebAssembly memory keeps) is paid by a process that then ends.
import { rename, rm } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";

/** A month of demo orders. */
export const ORDERS_FIXTURE = `
CREATE TABLE orders (
  id int PRIMARY KEY,
  customer text NOT NULL,
  status text NOT NULL,
  amount_cents int NOT NULL,
  created_at date NOT NULL
);
INSERT INTO orders VALUES
  (1, 'Acme GmbH', 'paid', 129900, '2026-11-02'),
  (2, 'Globex', 'paid', 45000, '2026-11-05'),
  (3, 'Initech', 'refunded', 9900, '2026-11-09'),
  (4, 'Umbrella', 'paid', 250000, '2026-11-17'),
  (5, 'Hooli', 'pending', 30000, '2026-11-28'),
  (6, 'Acme GmbH', 'paid', 74900, '2026-10-30'),
  (7, 'Globex', 'paid', 18000, '2026-12-01');
`;

/**
 * Creates the orders database in `dir`: built beside it, then renamed into place, so a
 * creation cut short leaves no half-made database behind.
 *
 * @example
 * await createOrdersDatabase("./.stateweaver/orders");
 */
export async function createOrdersDatabase(dir: string): Promise<void> {
  const building = `${dir}.building-${process.pid}`;
  await rm(building, { recursive: true, force: true });
  const db = new PGlite(building);
  await db.exec(ORDERS_FIXTURE);
  await db.close();
  await rename(building, dir);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) throw new Error("Usage: node orders-fixture.js <directory>");
  await createOrdersDatabase(dir);
}
