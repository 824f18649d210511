/**
 * Shown when the server answers 401: the token from STATEWEAVER_TOKEN, or, with an auth
 * file, the credential its `authenticate` accepts (sent once; the server keeps the user it
 * returned in a session cookie).
 */
import { useState } from "preact/hooks";
import { ApiError, api } from "../api.js";

export function LoginPage({
  onLoggedIn,
  signIn,
}: {
  onLoggedIn: () => void;
  signIn: "auth_handler" | "shared_token";
}) {
  const byAuthFile = signIn === "auth_handler";
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
                ? byAuthFile
                  ? `That credential was not accepted: ${err.message}`
                  : "That token was not accepted. Use the value of STATEWEAVER_TOKEN the server runs with."
                : String((err as Error).message),
            );
          } finally {
            setBusy(false);
          }
        }}
      >
        <h1>Sign in</h1>
        <p class="muted">
          {byAuthFile
            ? "Sign in with your access token (what this deployment's auth accepts as a bearer token)."
            : "This server needs its access token (STATEWEAVER_TOKEN)."}
        </p>
        <div class={error ? "field invalid" : "field"}>
          <label for="token">{byAuthFile ? "Access token" : "Token"}</label>
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
