import type { Pool, PoolClient, PoolConfig } from "pg";

type Release = PoolClient["release"];
type ConnectCallback = (
  err: Error | undefined,
  client: PoolClient | undefined,
  done: (release?: Error | boolean) => void,
) => void;

let ReleaseOncePool: typeof Pool | undefined;

/**
 * A pg pool on which releasing a checkout a second time does nothing (pg-pool throws).
 *
 * graphile-worker (0.17.3, and 0.18.0 alike) releases its LISTEN connection both from the
 * connection's error handler and from its pool's shutdown. When the connection drops while
 * the pool shuts down, both run; the second release throws inside an async function that
 * nobody awaits, and the unhandled rejection ends the process. The first release has
 * already returned or discarded the client, so ignoring the second loses nothing, and
 * nothing else about the pool changes.
 */
export async function releaseOncePool(config: PoolConfig): Promise<Pool> {
  const { Pool } = await import("pg");
  ReleaseOncePool ??= class extends Pool {
    override connect(): Promise<PoolClient>;
    override connect(callback: ConnectCallback): void;
    override connect(callback?: ConnectCallback): Promise<PoolClient> | undefined {
      if (!callback) {
        return super.connect().then((client) => {
          client.release = once(client.release);
          return client;
        });
      }
      super.connect((err, client, done) => {
        const release = once(done);
        if (client) client.release = release;
        callback(err, client, release);
      });
      return undefined;
    }
  };
  return new ReleaseOncePool(config);
}

function once(release: Release): Release {
  let released = false;
  return (err) => {
    if (released) return;
    released = true;
    release(err);
  };
}
