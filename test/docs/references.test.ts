/**
 * The README and docs/ are read from a clone or an installed package, where only the
 * repository's own files exist: every file they point at must be one of those.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { basename, dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";

const repo = new URL("../..", import.meta.url).pathname;
const files = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard"], {
  cwd: repo,
  encoding: "utf8",
})
  .split("\n")
  .filter(Boolean);
const docs = files.filter((f) => f === "README.md" || /^docs\/.*\.md$/.test(f));
const tracked = new Set(files);
const folders = new Set(
  files.flatMap((f) =>
    f
      .split("/")
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join("/")),
  ),
);
const names = new Set(files.map((f) => basename(f)));
// Made by the build (`prepare`), not kept in git.
const built = new Set(["dist"]);
const topLevel = new Set([...files.map((f) => f.split("/")[0]!), ...built]);

const exists = (path: string) => {
  const p = normalize(path).replace(/\/$/, "");
  return tracked.has(p) || folders.has(p) || built.has(p.split("/")[0]!);
};

/** Every file or folder a doc names: links, path-like code spans, and any `*.md` name. */
function referencesIn(doc: string, text: string): Array<{ ref: string; found: boolean }> {
  const out: Array<{ ref: string; found: boolean }> = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^(https?:|mailto:|#)/.test(target!)) continue;
    out.push({ ref: target!, found: exists(join(dirname(doc), target!.split("#")[0]!)) });
  }
  for (const [, span] of text.matchAll(/`([^`\n]+)`/g)) {
    const s = span!;
    if (!/^[\w.@-]+(\/[\w.@-]*)*$/.test(s)) continue;
    const first = s.split("/")[0]!;
    if (s.includes("/") && topLevel.has(first)) out.push({ ref: s, found: exists(s) });
    // A bare file name (`profile.ts`) names a file the text has placed in a folder already;
    // an extension alone (`.ts`) names no file.
    else if (!s.includes("/") && /^[^.].*\.(md|ts|json|js)$/.test(s))
      out.push({ ref: s, found: names.has(s) });
  }
  const withoutUrls = text.replace(/https?:\/\/\S+/g, "");
  for (const [name] of withoutUrls.matchAll(/[\w./-]+\.md\b/g)) {
    out.push({
      ref: name,
      found: exists(name) || exists(join(dirname(doc), name)) || names.has(name),
    });
  }
  return out;
}

describe("the README and docs/", () => {
  it("reference only files and folders that are in the repository", () => {
    expect(docs).toContain("README.md");
    expect(docs).toContain("docs/architecture.md");
    const missing = docs.flatMap((doc) =>
      referencesIn(doc, readFileSync(join(repo, doc), "utf8"))
        .filter((r) => !r.found)
        .map((r) => `${doc}: ${r.ref}`),
    );
    expect(missing).toEqual([]);
  });

  it("flags a design note kept elsewhere, a path that is not there, and a broken link", () => {
    const text = [
      "## Where this departs from DESIGN.md, and why",
      "The driver (`src/runtime/drive.ts`) and `src/runtime/no-such-file.ts`; `profile.ts`, `.ts` graphs.",
      "See [the models](models.md) and [notes](../NOTES.md); `stateweaver/agent` is an import.",
    ].join("\n");
    const missing = referencesIn("docs/architecture.md", text)
      .filter((r) => !r.found)
      .map((r) => r.ref);
    expect(missing.sort()).toEqual([
      "../NOTES.md",
      "../NOTES.md",
      "DESIGN.md",
      "src/runtime/no-such-file.ts",
    ]);
  });
});
