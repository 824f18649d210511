/** Shown when the server answers 401: the token from STATEWEAVER_TOKEN, sent once. */
import { useState } from "preact/hooks";
import { ApiError, api } from "../api.js";

export function LoginPage({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <main class="page login">
      <form
        class="panel login-card"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          try {
            await api.login(token);
            setError(null);
            onLoggedIn();
          } catch (err) {
            setError(
              err instanceof ApiError && err.status === 401
                ? "That token was not accepted. Use the value of STATEWEAVER_TOKEN the server runs with."
                : String((err as Error).message),
            );
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>Sign in</h1>
        <p class="muted">This server needs its access token (STATEWEAVER_TOKEN).</p>
        <div class={error ? "field invalid" : "field"}>
          <label for="token">Token</label>
          <input
            id="token"
            type="password"
            autoComplete="current-password"
            value={token}
            onInput={(e) => setToken((e.currentTarget as HTMLInputElement).value)}
          />
          {error && (
            <p class="field-error" role="alert">
              {error}
            </p>
          )}
        </div>
        <button type="submit" class="btn primary" disabled={busy || token === ""}>
          Sign in
        </button>
      </form>
    </main>
  );
}
