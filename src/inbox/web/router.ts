/** The inbox's three pages, read from the URL; navigation uses history.pushState. */
import { useEffect, useState } from "preact/hooks";

export type Route =
  | { page: "inbox"; graph?: string }
  | { page: "thread"; threadId: string }
  | { page: "review"; interruptId: string };

export function parseRoute(location: { pathname: string; search: string }): Route {
  const thread = location.pathname.match(/^\/threads\/([^/]+)\/?$/);
  if (thread) return { page: "thread", threadId: decodeURIComponent(thread[1]!) };
  const review = location.pathname.match(/^\/reviews\/([^/]+)\/?$/);
  if (review) return { page: "review", interruptId: decodeURIComponent(review[1]!) };
  const graph = new URLSearchParams(location.search).get("graph");
  return graph ? { page: "inbox", graph } : { page: "inbox" };
}

export const href = {
  inbox: (graph?: string) => (graph ? `/?graph=${encodeURIComponent(graph)}` : "/"),
  thread: (threadId: string) => `/threads/${encodeURIComponent(threadId)}`,
  review: (interruptId: string) => `/reviews/${encodeURIComponent(interruptId)}`,
};

const CHANGE = "sw:navigate";

export function navigate(to: string): void {
  if (to === location.pathname + location.search) return;
  history.pushState(null, "", to);
  window.dispatchEvent(new Event(CHANGE));
}

/** The current route, re-rendered on back/forward and on `navigate`. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location));
  useEffect(() => {
    const update = () => setRoute(parseRoute(location));
    window.addEventListener("popstate", update);
    window.addEventListener(CHANGE, update);
    return () => {
      window.removeEventListener("popstate", update);
      window.removeEventListener(CHANGE, update);
    };
  }, []);
  return route;
}

/** Props for an <a> that navigates inside the app (a plain link when opened in a new tab). */
export function linkTo(to: string) {
  return {
    href: to,
    onClick: (e: MouseEvent) => {
      if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      e.preventDefault();
      navigate(to);
    },
  };
}
