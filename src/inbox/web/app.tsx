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

export function App() {
  const route = useRoute();
  const [ready, setReady] = useState(false);
  const [needsLogin, setNeedsLogin] = useState(false);
  const [help, setHelp] = useState(false);
  const [name, setName] = useState(reviewerName);
  useKeys({ "?": () => setHelp((h) => !h) });

  useEffect(() => {
    whenUnauthorized(() => setNeedsLogin(true));
    // Sets the CSRF cookie on loopback; behind a token it answers 401 and we show the login.
    api.csrf().then(
      () => setReady(true),
      () => setReady(true),
    );
  }, []);

  return (
    <>
      <header class="topbar">
        <a {...linkTo(href.inbox())} class="brand">
          <span class="logo" aria-hidden="true" />
          stateweaver <span class="muted">inbox</span>
        </a>
        <div class="topbar-right">
          <label class="reviewer">
            <span class="muted">Reviewing as</span>
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
          onLoggedIn={() => {
            setNeedsLogin(false);
            setReady(false);
            setTimeout(() => setReady(true));
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
