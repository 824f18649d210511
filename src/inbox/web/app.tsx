/** The inbox shell: header, login when the server asks for it, and the three pages. */
import { useEffect, useState } from "preact/hooks";
import { api, whenUnauthorized } from "./api.js";
import { KeyboardHelp, useKeys } from "./keyboard.js";
import { InboxPage } from "./pages/inbox-page.js";
import { LoginPage } from "./pages/login-page.js";
import { ReviewPage } from "./pages/review-page.js";
import { ThreadPage } from "./pages/thread-page.js";
import { reviewerName, setReviewerName } from "./reviewer.js";
import { href, linkTo, useRoute } from "./router.js";
import type { SignInState } from "./wire.js";

export function App() {
  const route = useRoute();
  const [ready, setReady] = useState(false);
  const [needsLogin, setNeedsLogin] = useState(false);
  const [help, setHelp] = useState(false);
  const [name, setName] = useState(reviewerName);
  const [signIn, setSignIn] = useState<SignInState | undefined>(undefined);
  useKeys({ "?": () => setHelp((h) => !h) });

  // Sets the CSRF cookie, and says who is signed in (an auth file's user) or that names are typed.
  const refreshSignIn = () =>
    api.csrf().then(
      (state) => {
        setSignIn(state);
        setReady(true);
      },
      () => setReady(true),
    );
  useEffect(() => {
    whenUnauthorized(() => setNeedsLogin(true));
    void refreshSignIn();
  }, []);
  const verified = signIn?.signIn === "auth_handler";

  return (
    <>
      <header class="topbar">
        <a {...linkTo(href.inbox())} class="brand">
          <span class="logo" aria-hidden="true" />
          stateweaver <span class="muted">inbox</span>
        </a>
        <div class="topbar-right">
          {verified ? (
            signIn?.user && (
              <span class="reviewer" data-testid="signed-in-as">
                <span class="muted">Signed in as</span> <strong>{signIn.user.displayName}</strong>
                <button
                  type="button"
                  class="btn ghost"
                  onClick={async () => {
                    await api.logout().catch(() => {});
                    const { user: _signedOut, ...rest } = signIn;
                    setSignIn({ ...rest, authenticated: false });
                    setNeedsLogin(true);
                  }}
                >
                  Sign out
                </button>
              </span>
            )
          ) : (
            // One shared token: the name is whatever is typed here, recorded as not verified.
            <label class="reviewer">
              <span class="muted">Reviewing as (not verified)</span>
              <input
                value={name}
                placeholder="your name"
                aria-label="Your name, recorded with each decision"
                onInput={(e) => {
                  const v = (e.currentTarget as HTMLInputElement).value;
                  setName(v);
                  setReviewerName(v);
                }}
              />
            </label>
          )}
          <button
            type="button"
            class="btn ghost"
            onClick={() => setHelp(true)}
            title="Keyboard shortcuts"
          >
            <kbd>?</kbd>
          </button>
        </div>
      </header>
      {needsLogin ? (
        <LoginPage
          signIn={signIn?.signIn ?? "shared_token"}
          onLoggedIn={() => {
            setNeedsLogin(false);
            setReady(false);
            void refreshSignIn();
          }}
        />
      ) : !ready ? null : route.page === "thread" ? (
        <ThreadPage threadId={route.threadId} />
      ) : route.page === "review" ? (
        <ReviewPage interruptId={route.interruptId} />
      ) : (
        <InboxPage {...(route.graph !== undefined && { graph: route.graph })} />
      )}
      {help && <KeyboardHelp onClose={() => setHelp(false)} />}
    </>
  );
}
