/** The reviewer's name, kept in this browser and sent with each decision as `reviewer`. */
const KEY = "stateweaver:reviewer";

export function reviewerName(): string {
  try {
    return localStorage.getItem(KEY) ?? "";
  } catch {
    return "";
  }
}

export function setReviewerName(name: string): void {
  try {
    localStorage.setItem(KEY, name.trim());
  } catch {
    // Storage off (private mode): the server records its own identity for the caller.
  }
}
